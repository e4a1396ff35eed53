import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, PRODUCT_MAPPING, runCli, tempDir } from './support.js';

beforeAll(async () => {
  await ensureBuilt();
}, 300_000);

describe('shopsync mappings', { timeout: 180_000 }, () => {
  it('checks the shipped mappings and exits 1 naming file and line of a broken one', async () => {
    const shipped = await runCli(['mappings', 'check']);
    expect(shipped.code, shipped.stdout).toBe(0);
    expect(shipped.stdout).toMatch(/ok\s+\S+products\.yaml \(products\)/);

    const dir = tempDir();
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, PRODUCT_MAPPING.replace('products_model: sku', 'products_modell: sku'));
    const res = await runCli(['mappings', 'check', bad, '--json']);
    expect(res.code).toBe(1);
    const report = JSON.parse(res.stdout) as { ok: boolean; files: { file: string; problems: { line?: number; message: string }[] }[] };
    expect(report.ok).toBe(false);
    expect(report.files[0].problems[0].line).toBe(8);
    expect(report.files[0].problems[0].message).toContain('products_modell');
  });

  it('previews what a mapping makes of sample records', async () => {
    const dir = tempDir();
    const mapping = join(dir, 'products.yaml');
    writeFileSync(mapping, PRODUCT_MAPPING);
    const input = join(dir, 'sample.json');
    writeFileSync(input, JSON.stringify([{ sku: 'A-1', name: 'Tisch', price: '12.50', qty: '3', updated_at: 'x' }, { sku: 'A-2', name: 'Stuhl', price: 'zwölf', qty: '1', updated_at: 'x' }]));
    const res = await runCli(['mappings', 'preview', mapping, '--input', input, '--json']);
    expect(res.code).toBe(1);
    const rows = JSON.parse(res.stdout) as { ok: boolean; payload?: Record<string, unknown>; errors: { field?: string }[] }[];
    expect(rows[0]).toMatchObject({ ok: true, payload: { products_model: 'A-1', products_price: '12.50' } });
    expect(rows[1].ok).toBe(false);
    const text = await runCli(['mappings', 'preview', mapping, '-i', input, '-n', '1']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('1 ok, 0 refused');
  });
});
