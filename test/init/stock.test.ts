/**
 * The stock question of `shopsync init` (issue 43): a proposed mapping that writes stock asks
 * whether the ERP's figure is on hand (`stock: reserved`, and the pipeline's `reservations:` with a
 * booked rule: the staging table's `imported_at` when init also writes the orders pull, else the
 * stock row's change time) or already available (`stock: available`). Without an answer init
 * writes reserved and says so in both files; the files it writes pass `mappings check` and the
 * dry run against the sandbox. A mapping without stock asks nothing.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runInit, type AnswersInput, type StockChoice } from '../../src/init/index.js';
import type { StockQuestion } from '../../src/init/index.js';
import { silentLogger } from '../../src/log.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { tempDir } from '../pipeline/support.js';

let sandbox: SandboxHandle;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
});
afterAll(async () => {
  await sandbox.close();
});

/** A folder with an ERP SQLite file whose table `artikel` has the given columns. */
function erpFolder(withStock: boolean): string {
  const dir = tempDir('shopsync-init-stock-');
  const db = new Database(join(dir, 'erp.sqlite'));
  db.exec(`CREATE TABLE artikel (artnr TEXT PRIMARY KEY, bezeichnung TEXT NOT NULL, preis TEXT NOT NULL${withStock ? ', bestand INTEGER NOT NULL' : ''}, geaendert TEXT NOT NULL)`);
  const insert = db.prepare(`INSERT INTO artikel VALUES (?, ?, ?${withStock ? ', ?' : ''}, ?)`);
  for (let i = 1; i <= 3; i++) insert.run(...[`A-${i}`, `Tisch ${i}`, `${10 + i}.50`, ...(withStock ? [i * 4] : []), `2026-01-0${i} 10:00:00`]);
  db.close();
  return dir;
}

function answers(dir: string, extra: Partial<AnswersInput> = {}): AnswersInput {
  return { shop: { url: sandbox.url, auth: { kind: 'token', token: sandbox.token } }, source: { kind: 'sqlite', path: join(dir, 'erp.sqlite'), table: 'artikel' }, resource: 'products', name: 'artikel', dir, ...extra };
}

async function init(dir: string, extra: Partial<AnswersInput> = {}, askStock?: (q: StockQuestion) => Promise<StockChoice>) {
  const lines: string[] = [];
  const result = await runInit(answers(dir, extra), { say: (l) => lines.push(l), logger: silentLogger, env: {}, cwd: dir }, askStock ? { askStock } : {});
  const configText = readFileSync(result.configFile, 'utf8');
  const mappingText = readFileSync(result.mappingFile, 'utf8');
  const config = parse(configText) as { pipelines: { name: string; reservations?: { booked: Record<string, unknown> } }[] };
  return { result, lines, configText, mappingText, mapping: parse(mappingText) as { stock?: string }, pipeline: config.pipelines.find((p) => p.name === 'artikel')! };
}

describe('init asks what the ERP stock figure is', () => {
  it('asks once, naming the stock column, and on "on hand" writes stock: reserved with reservations booked by the stock row\'s change time', async () => {
    const dir = erpFolder(true);
    const asked: StockQuestion[] = [];
    const r = await init(dir, {}, async (q) => {
      asked.push(q);
      return 'reserved';
    });
    expect(asked).toEqual([{ fields: [{ target: 'products_quantity', column: 'bestand' }], ordersPull: false }]);
    expect(r.mapping.stock).toBe('reserved');
    expect(r.pipeline.reservations).toEqual({ booked: { changedAfter: true } });
    expect(r.configText).toContain('replace it with booked: { query:');
    expect(r.configText).not.toContain('init did not ask');
    expect(r.result.ok).toBe(true);
    expect(r.result.verification?.checkOk).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });

  it('on "already available" writes stock: available and no reservations', async () => {
    const dir = erpFolder(true);
    const r = await init(dir, {}, async () => 'available');
    expect(r.mapping.stock).toBe('available');
    expect(r.pipeline.reservations).toBeUndefined();
    expect(r.configText).toContain('nothing is subtracted (mapping stock: available)');
    expect(r.result.ok).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });

  it('without a terminal to ask on, writes reserved and says in both files that it was not asked and how to choose', async () => {
    const dir = erpFolder(true);
    const r = await init(dir);
    expect(r.mapping.stock).toBe('reserved');
    expect(r.pipeline.reservations).toEqual({ booked: { changedAfter: true } });
    expect(r.mappingText).toMatch(/^stock: reserved .*init's default, not asked/m);
    expect(r.configText.replace(/\n# /g, ' ')).toContain('init did not ask (no terminal, or --yes) and chose reserved');
    expect(r.lines).toContain('stock: reserved (not asked: the default; --stock available if the ERP figure already subtracts open shop orders)');
    expect(r.result.ok).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes --stock without asking', async () => {
    const dir = erpFolder(true);
    const r = await init(dir, { stock: 'available' }, async () => {
      throw new Error('asked although --stock was given');
    });
    expect(r.mapping.stock).toBe('available');
    rmSync(dir, { recursive: true, force: true });
  });

  it('with the orders pull, counts an order as booked once the ERP set imported_at on its staging row', async () => {
    const dir = erpFolder(true);
    const asked: StockQuestion[] = [];
    const r = await init(dir, { ordersPull: true }, async (q) => {
      asked.push(q);
      return 'reserved';
    });
    expect(asked[0]?.ordersPull).toBe(true);
    expect(r.pipeline.reservations).toEqual({ booked: { query: 'SELECT orders_id FROM shopsync_in_orders WHERE imported_at IS NOT NULL AND orders_id IN (:orders)' } });
    // The booked query runs on the ERP connection, where init created the staging table.
    const db = new Database(join(dir, 'erp.sqlite'));
    expect(db.prepare('SELECT orders_id FROM shopsync_in_orders WHERE imported_at IS NOT NULL AND orders_id IN (1, 2)').all()).toEqual([]);
    db.close();
    expect(r.result.ok).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });

  it('asks nothing when the mapping writes no stock', async () => {
    const dir = erpFolder(false);
    const r = await init(dir, {}, async () => {
      throw new Error('asked about stock the mapping does not write');
    });
    expect(r.mapping.stock).toBeUndefined();
    expect(r.pipeline.reservations).toBeUndefined();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a --stock answer it does not know, naming both', async () => {
    const dir = erpFolder(true);
    await expect(runInit(answers(dir, { stock: 'onhand' as never }), { say: () => undefined, logger: silentLogger, env: {}, cwd: dir })).rejects.toThrow(/stock: expected reserved .* or available/);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('which targets are stock', () => {
  it('are the registry\'s stock fields of the resource: the article total, a warehouse row\'s and a SKU\'s quantity', async () => {
    const { stockTargets } = await import('../../src/init/stock.js');
    const { getResource } = await import('../../src/shop/registry/index.js');
    expect(stockTargets(getResource('products'), ['products_model', 'products_quantity', 'storages[].products_quantity', 'options[].quantity', 'products_price'])).toEqual(['products_quantity', 'storages[].products_quantity', 'options[].quantity']);
    expect(stockTargets(getResource('customers'), ['customers_email_address'])).toEqual([]);
  });
});
