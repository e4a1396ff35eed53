import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { openState } from '../../src/state/index.js';
import { createErp, ensureBuilt, runCli, shopProducts, sku, tempDir, writeConfig, PRODUCT_MAPPING } from './support.js';
import { useSandbox, shopEnv } from '../support/sandbox.js';

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });

describe('shopsync sync, status and dlq (spawned against the sandbox)', { timeout: 180_000 }, () => {
  it('pushes the ERP products into the shop and reports them in status --json', async () => {
    const dir = tempDir();
    createErp(join(dir, 'erp.sqlite'), 30);
    const config = writeConfig(dir);

    const dry = await runCli(['sync', 'products', '--dry-run', '--config', config], { env: shopEnv(sandbox) });
    expect(dry.code, dry.stderr).toBe(0);
    // What it would do, not what it did: nothing was created.
    expect(dry.stdout).toMatch(/products dry-run succeeded in [\d.]+ s: read 30, would create 30, would update 0, unchanged 0, would fail 0/);
    expect(dry.stdout).toContain(`create ${sku(1)}`);
    expect([...(await shopProducts(sandbox)).keys()].filter((k) => k.startsWith('SKU-'))).toHaveLength(0);

    const sync = await runCli(['sync', 'products', '--config', config], { env: shopEnv(sandbox) });
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stdout).toMatch(/products sync succeeded \(run \d+\) in [\d.]+ s: read 30, created 30/);
    const shop = await shopProducts(sandbox);
    expect(shop.get(sku(7))).toMatchObject({ products_model: sku(7) });

    const status = await runCli(['status', '--json'], { env: { ...shopEnv(sandbox), SHOPSYNC_CONFIG: config } });
    expect(status.code, status.stderr).toBe(0);
    const body = JSON.parse(status.stdout) as { pipelines: { name: string; lastRun: { status: string; counts: { created: number } }; cursor: { value: unknown; key: string }; deadLetters: number; nextRun: unknown; running: boolean }[] };
    expect(body.pipelines).toHaveLength(1);
    expect(body.pipelines[0]).toMatchObject({ name: 'products', lastRun: { status: 'succeeded', counts: { created: 30 } }, cursor: { value: '2026-01-01 00:00:00', key: sku(30) }, deadLetters: 0, nextRun: null, running: false });

    const again = await runCli(['sync', 'products', '--config', config, '--json'], { env: shopEnv(sandbox) });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'succeeded', counts: { read: 0 } });
  });

  it('exits 1 with a partial run when a CSV drop has a broken line, lands the rows before and after it, and lists the line as a dead letter', async () => {
    const dir = tempDir();
    const config = writeConfig(dir);
    mkdirSync(join(dir, 'inbox'));
    writeFileSync(join(dir, 'inbox', 'artikel.csv'), 'sku;name;price;qty\nCSV-1;Eins;1.50;3\nCSV-2;"Zwei;2.00;4\nCSV-3;Drei;3.50;5\n');
    const yaml = readFileSync(config, 'utf8')
      .replace('connections:\n', 'connections:\n  drop: { kind: files, folder: . }\n')
      .replace('source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku }', 'source: { connection: drop, folder: inbox, format: csv, csv: { delimiter: ";" }, key: sku, stability: { mode: settle, settleMs: 0 } }');
    writeFileSync(config, yaml);

    const sync = await runCli(['sync', 'products', '--config', config], { env: shopEnv(sandbox) });
    expect(sync.code, sync.stderr).toBe(1);
    expect(sync.stdout).toMatch(/products sync partial .*read 3, created 2, .*dead-lettered 1, unreadable 1/);
    const shop = await shopProducts(sandbox);
    expect([shop.has('CSV-1'), shop.has('CSV-3')]).toEqual([true, true]);

    const list = await runCli(['dlq', 'list', '--json', '--config', config], { env: shopEnv(sandbox) });
    const letters = JSON.parse(list.stdout) as { erpKey: string; code: string; reason: string; origin: { file: string; line: number; raw: string } }[];
    expect(letters).toEqual([expect.objectContaining({ erpKey: 'artikel.csv#line 3', code: 'SOURCE_BAD_ROW', origin: { file: 'artikel.csv', line: 3, raw: 'CSV-2;"Zwei;2.00;4' } })]);
    expect(letters[0]?.reason).toMatch(/artikel\.csv line 3: .*quote/i);

    const status = await runCli(['status', '--config', config], { env: shopEnv(sandbox) });
    expect(status.stdout).toMatch(/products .*partial .*3 read, 2 written, 1 unreadable/);
  });

  it('exits 1 with dead letters, lists them, retries them through a fixed mapping and drops the rest', async () => {
    const dir = tempDir();
    const erpFile = join(dir, 'erp.sqlite');
    createErp(erpFile, 5);
    const erp = new Database(erpFile);
    erp.prepare("UPDATE products SET qty = 'viele' WHERE sku IN (?, ?)").run(sku(2), sku(4));
    erp.close();
    const config = writeConfig(dir);

    // A dry run used as a gate fails like the real run would.
    const dry = await runCli(['sync', 'products', '--dry-run', '--config', config], { env: shopEnv(sandbox) });
    expect(dry.code, dry.stderr).toBe(1);
    expect(dry.stdout).toMatch(/products dry-run partial .*would fail 2/);

    const sync = await runCli(['sync', 'products', '--config', config], { env: shopEnv(sandbox) });
    expect(sync.code, sync.stderr).toBe(1);
    expect(sync.stdout).toMatch(/products sync partial .*dead-lettered 2/);

    const list = await runCli(['dlq', 'list', '--json', '--config', config], { env: shopEnv(sandbox) });
    expect(list.code, list.stderr).toBe(0);
    const letters = JSON.parse(list.stdout) as { id: number; erpKey: string }[];
    expect(letters.map((l) => l.erpKey).sort()).toEqual([sku(2), sku(4)]);
    const text = await runCli(['dlq', 'list', '--config', config], { env: shopEnv(sandbox) });
    expect(text.stdout).toMatch(/ID\s+PIPELINE\s+SHOP\s+ERP KEY/);

    // Fix the mapping (unreadable quantities become 0) and retry one letter; drop the other.
    writeFileSync(join(dir, 'products.yaml'), PRODUCT_MAPPING.replace("products_quantity: { from: qty, type: decimal, locale: point }", 'products_quantity: { value: 0 }'));
    const first = letters.find((l) => l.erpKey === sku(2))!;
    const other = letters.find((l) => l.erpKey === sku(4))!;
    const retry = await runCli(['dlq', 'retry', String(first.id), '--config', config], { env: shopEnv(sandbox) });
    expect(retry.code, retry.stderr + retry.stdout).toBe(0);
    expect((await shopProducts(sandbox)).get(sku(2))).toBeDefined();

    const usage = await runCli(['dlq', 'drop', '--config', config], { env: shopEnv(sandbox) });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--all');

    const drop = await runCli(['dlq', 'drop', String(other.id), '--json', '--config', config], { env: shopEnv(sandbox) });
    expect(drop.code, drop.stderr).toBe(0);
    expect(JSON.parse(drop.stdout)).toEqual({ dropped: 1 });
    const status = JSON.parse((await runCli(['status', '--json', '--config', config], { env: shopEnv(sandbox) })).stdout) as { pipelines: { deadLetters: number }[] };
    expect(status.pipelines[0].deadLetters).toBe(0);
  });

  it('exits 3 while another process holds the pipeline lock', async () => {
    const dir = tempDir();
    createErp(join(dir, 'erp.sqlite'), 2);
    const config = writeConfig(dir);
    expect((await runCli(['status', '--config', config], { env: shopEnv(sandbox) })).code).toBe(0);
    const state = await openState(join(dir, 'state/shopsync.db'));
    const lock = await state.locks.acquire('products');
    try {
      const res = await runCli(['sync', 'products', '--config', config], { env: shopEnv(sandbox) });
      expect(res.code).toBe(3);
      expect(res.stderr).toContain('LOCK_HELD');
    } finally {
      await lock.release();
      await state.close();
    }
  });

  it('exits 2 naming file, line and key for an invalid config, and for an unknown pipeline', async () => {
    const dir = tempDir();
    const config = writeConfig(dir).replace(/shopsync\.yaml$/, 'bad.yaml');
    writeFileSync(config, 'shop:\n  baseUrl: not a url\n  token: ${SHOP_TOKEN}\n');
    const bad = await runCli(['status', '--config', config], { env: shopEnv(sandbox) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${config}:2: shop.baseUrl:`);
    const missing = await runCli(['status', '--config', config], { env: { SHOP_URL: sandbox.url } });
    expect(missing.code).toBe(2);
    const good = writeConfig(dir);
    const unknown = await runCli(['sync', 'nope', '--config', good], { env: shopEnv(sandbox) });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('known: products');
    const flag = await runCli(['sync', 'products', '--bogus', '--config', good], { env: shopEnv(sandbox) });
    expect(flag.code).toBe(2);
  });

  it('shows --help for every command and exits 0', async () => {
    for (const args of [['--help'], ['run', '--help'], ['sync', '--help'], ['backfill', '--help'], ['status', '--help'], ['dlq', '--help'], ['dlq', 'retry', '--help'], ['sandbox', '--help']]) {
      const res = await runCli(args);
      expect(res.code, args.join(' ')).toBe(0);
      expect(res.stdout).toContain('Usage: shopsync');
    }
  });
});
