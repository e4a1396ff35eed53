/**
 * A mapping that reads a column the source does not have (`from: pries` for `preis`) is named by
 * `mappings check --source`, by `doctor` and by the run itself, which fails before it writes
 * anything; each names the mapping's file:line and the nearest real column.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRODUCT_MAPPING, createErp, ensureBuilt, runCli, shopProducts, sku, tempDir, writeConfig } from './support.js';
import { shopEnv, useSandbox } from '../support/sandbox.js';

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });

describe('a mapping that reads a column the source does not have', { timeout: 120_000 }, () => {
  it('is named by mappings check --source and doctor, fails the sync before any write, and syncs once fixed', async () => {
    const dir = tempDir();
    createErp(join(dir, 'erp.sqlite'), 5);
    const config = writeConfig(dir);
    // The ERP's column is `price`; the mapping says `prices`.
    const typo = PRODUCT_MAPPING.replace('products_price: { from: price,', 'products_price: { from: prices,');
    writeFileSync(join(dir, 'products.yaml'), typo);
    const line = typo.split('\n').findIndex((l) => l.includes('from: prices')) + 1;
    const env = shopEnv(sandbox);

    const check = await runCli(['mappings', 'check', '--source', '--config', config, join(dir, 'products.yaml')], { env });
    expect(check.code, check.stderr).toBe(1);
    expect(check.stdout).toContain(`source columns: pipeline products: [MAPPING_SOURCE_COLUMN_MISSING]`);
    expect(check.stdout).toContain(`products.yaml:${line}: fields.products_price reads \`prices\`, but the sqlite source of pipeline products has no column \`prices\`; did you mean \`price\`?`);

    const doctor = await runCli(['doctor', '--config', config], { env });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/pipeline products: mapping columns.*reads `prices`.*did you mean `price`\?/);

    const sync = await runCli(['sync', 'products', '--config', config], { env });
    expect(sync.code).toBe(1);
    expect(sync.stdout).toMatch(/products sync failed \(run \d+\) in [\d.]+ s: read 0, created 0/);
    expect(sync.stdout).toContain('error: [MAPPING_SOURCE_COLUMN_MISSING] the mapping reads column(s) the source does not have');
    expect([...(await shopProducts(sandbox)).keys()].filter((k) => k.startsWith('SKU-'))).toEqual([]);

    writeFileSync(join(dir, 'products.yaml'), readFileSync(join(dir, 'products.yaml'), 'utf8').replace('from: prices,', 'from: price,'));
    const fixed = await runCli(['sync', 'products', '--config', config], { env });
    expect(fixed.code, fixed.stderr).toBe(0);
    expect((await shopProducts(sandbox)).get(sku(3))).toMatchObject({ products_model: sku(3) });
    const good = await runCli(['mappings', 'check', '--source', '--config', config, join(dir, 'products.yaml')], { env });
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/source columns: pipeline products: every column .*products\.yaml reads is there/);
  });
});
