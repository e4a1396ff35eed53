/**
 * A state that went back in time says so: shop orders pulled through the shipped orders-to-erp
 * mapping into import tables, then the state is replaced by an older copy (its online backup) or
 * deleted. The next pull delivers nothing into the sink and names the orders it found there; after
 * the user's say-so they are updates of the rows already there, one row per order. On SQLite,
 * PostgreSQL and MariaDB import tables. A file sink, which cannot be asked, is held back by the
 * restore mark alone. The import tables carry an owner column (`ownerColumn`), which is how the
 * sink tells an older state's rows of its own from rows it did not write
 * (test/pipeline/pull-foreign-rows.test.ts has the sink without one).
 */
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSink } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { pushFixture, type PushFixture } from './support.js';
import { importBackends, type Backend, type ErpDb } from './importTables.js';

const [sqlite, postgres, mariadb] = importBackends('erp_rewind') as [Backend, Backend, Backend];

// overlapDays: every pull re-reads every order (purchased within five days), as a restored cursor would.
const def = { name: 'orders-to-erp', direction: 'pull' as const, sink: { connection: 'erp' }, mapping: 'orders-to-erp.yaml', resource: 'orders', options: { overlapDays: 30, sinkBatchSize: 2 } };
const SINK = { table: 'erp_orders', key: 'Shop_BestellNr', ownerColumn: 'shopsync_pipeline', children: [{ field: 'Positionen', table: 'erp_order_lines', key: ['Shop_BestellNr', 'Pos'], parentKey: 'Shop_BestellNr' }] };

function order(n: number): Record<string, unknown> {
  return {
    customers_id: 0,
    auto_stock: false,
    tax_flag: 0,
    date_purchased: `2025-03-0${1 + (n % 5)} 12:00:00`,
    billing: { firstname: 'Erika', lastname: `Muster ${n}`, street_address: 'Hauptstr. 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE' },
    products: [
      { products_model: `ART-${n}`, products_name: `Artikel ${n}`, quantity: 1, products_price: 10 },
      { products_model: 'ART-X', products_name: 'Versand', quantity: 2, products_price: 2.5 },
    ],
  };
}

let mapping: CompiledMapping;
beforeAll(async () => {
  mapping = await loadMapping(resolve('mappings/orders-to-erp.yaml'));
});

describe.each([sqlite, postgres, mariadb])('$name import tables, after the state went back in time', (backend) => {
  let f: PushFixture;
  let erp: ErpDb;
  /** The state the runs use: the fixture's, until a test puts another in its place. */
  let state: StateStore;
  const statePath = () => join(f.dir, 'state.db');

  beforeEach(async (ctx) => {
    if (!backend.available) return ctx.skip();
    f = await pushFixture();
    erp = await backend.open(f.dir, true);
    state = f.state;
  });
  afterEach(async () => {
    if (!backend.available) return;
    await state.close();
    await erp.close();
    await f.close();
  });

  async function place(n: number, from = 0): Promise<number[]> {
    const created = await f.shop.create('orders', Array.from({ length: n }, (_, i) => order(from + i)));
    expect(created.outcomes.every((o) => o.ok), JSON.stringify(created.outcomes.find((o) => !o.ok)?.error)).toBe(true);
    return created.outcomes.map((o) => Number(o.data!.orders_id));
  }
  const pull = (sink: Record<string, unknown> = SINK) => runPipeline(def, { state, shop: f.shop, mapping, sink: () => createSink(erp.connection, sink as typeof SINK, { logger: silentLogger, baseDir: f.dir, env: {}, pipeline: def.name }) });
  const orderNumbers = async () => (await erp.rows(`SELECT ${erp.q('Shop_BestellNr')} AS n FROM erp_orders ORDER BY 1`)).map((r) => Number(r.n));
  const lineCount = async () => Number((await erp.rows('SELECT COUNT(*) AS c FROM erp_order_lines'))[0]?.c);
  /** The ERP marks what it imported, as an ERP consuming its import table does; a re-delivery would overwrite it. */
  const markImported = () => erp.exec(`UPDATE erp_orders SET ${erp.q('RE_Ort')} = 'importiert'`);
  const imported = async () => (await erp.rows(`SELECT ${erp.q('Shop_BestellNr')} AS n FROM erp_orders WHERE ${erp.q('RE_Ort')} = 'importiert' ORDER BY 1`)).map((r) => Number(r.n));

  /** Put `file` (or, without it, nothing: a deleted state) in place of the state, as an operator would with the daemon stopped. */
  async function replaceState(file?: string): Promise<void> {
    await state.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${statePath()}${suffix}`, { force: true });
    if (file) copyFileSync(file, statePath());
    state = await openState(statePath());
  }

  it('a state replaced by an older copy delivers nothing, naming the orders the sink already holds; accepted, they are updates of the same rows', async () => {
    const early = await place(3);
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 3 } });
    const backup = join(f.dir, 'older.db');
    await state.backup(backup);
    const late = await place(2, 3);
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 2, updated: 0 } });
    await markImported();

    await replaceState(backup);
    const refused = await pull();
    expect(refused).toMatchObject({ status: 'failed', error: { code: 'STATE_BEHIND_SINK' }, counts: { created: 0, updated: 0 } });
    expect(refused.error!.message).toContain(`table erp_orders already holds 2 of the records about to be delivered (key ${late.join(', ')})`);
    expect(refused.error!.message).toContain('shopsync state accept-restore orders-to-erp');
    expect(await imported()).toEqual([...early, ...late]);
    // Refused again on the next run (the daemon's next tick), until someone says so.
    expect(await pull()).toMatchObject({ status: 'failed', error: { code: 'STATE_BEHIND_SINK' } });

    await state.rewinds.accept(def.name, Date.now());
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 0, updated: 2, unchanged: 3 } });
    expect(await orderNumbers()).toEqual([...early, ...late]);
    expect(await lineCount()).toBe(10);
    expect(await imported()).toEqual(early);
    // Caught up: the acceptance closed, and a new order is a create again.
    expect(await state.rewinds.acceptance(def.name)).toMatchObject({ open: false });
    const next = await place(1, 5);
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 1, updated: 0, unchanged: 5 } });
    expect(await orderNumbers()).toEqual([...early, ...late, ...next]);
  });

  it('a deleted state delivers nothing into a sink that holds its orders; accepted, every order is an update, one row each', async () => {
    const ids = await place(5);
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 5 } });
    await markImported();

    await replaceState();
    const refused = await pull();
    expect(refused).toMatchObject({ status: 'failed', error: { code: 'STATE_BEHIND_SINK', message: expect.stringContaining(`key ${ids.slice(0, 2).join(', ')})`) }, counts: { created: 0, updated: 0 } });
    expect(await imported()).toEqual(ids);
    expect(await state.cursors.get(def.name)).toBeUndefined();

    await state.rewinds.accept(def.name, Date.now());
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 0, updated: 5 } });
    expect(await orderNumbers()).toEqual(ids);
    expect(await lineCount()).toBe(10);
  });

  it('a sink row the state lost only because its last write did not land is ours: delivered again as an update without asking', async () => {
    const [id] = await place(1);
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 1 } });
    // What a state keeps when the sink committed a batch and the process died before the state recorded it:
    // the batch's keys in flight, no delivery.
    await replaceState();
    await state.rewinds.setInFlight(def.name, [String(id)]);
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 0, updated: 1 } });
    expect(await orderNumbers()).toEqual([id]);
  });
});

describe('a file sink after `state restore`', () => {
  let f: PushFixture;
  beforeEach(async () => {
    f = await pushFixture();
  });
  afterEach(async () => {
    await f.close();
  });

  it('writes no file while the restore waits for its say-so (a file outbox cannot be asked what it holds), and delivers once accepted', async () => {
    const created = await f.shop.create('orders', [order(1), order(2)]);
    expect(created.outcomes.every((o) => o.ok)).toBe(true);
    const outbox = join(f.dir, 'out');
    const files = () => readdirSync(outbox).filter((n) => !n.startsWith('.'));
    const pull = () => runPipeline(def, { state: f.state, shop: f.shop, mapping, sink: () => createSink({ kind: 'files', folder: f.dir }, { folder: 'out', format: 'json' }, { logger: silentLogger, baseDir: f.dir, env: {} }) });
    mkdirSync(outbox);
    // What `shopsync state restore` writes into the state it puts in place (test/cli/state-restore.test.ts runs the command).
    await f.state.rewinds.markRestored({ restoredAt: Date.parse('2026-12-01T09:00:00Z'), file: '/backups/monday.db', newestRunAt: '2026-11-30T18:00:00.000Z' });

    const refused = await pull();
    expect(refused).toMatchObject({ status: 'failed', error: { code: 'STATE_RESTORED' }, counts: { read: 0 } });
    expect(refused.error!.message).toMatchInlineSnapshot(`"pull orders-to-erp refused to deliver: the state was restored from /backups/monday.db at 2026-12-01T09:00:00.000Z; its newest run started 2026-11-30T18:00:00.000Z, so it does not know what was delivered since, and would deliver it into the sink again. If the ERP has not imported them yet or imports by key, or after you removed what it imported twice, accept with \`shopsync state accept-restore orders-to-erp\` (or run \`shopsync sync orders-to-erp --accept-restore\`): the rows already there are then updated in place, never inserted again. If the newer state still exists (\`<state>.before-restore\`), put it back instead"`);
    expect(files()).toEqual([]);

    await f.state.rewinds.accept(def.name, Date.now());
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 2 } });
    expect(files()).toHaveLength(1);
  });
});
