/**
 * A pull never overwrites a row it did not write: shop orders pulled through the shipped
 * orders-to-erp mapping into import tables that already hold the ERP's own order under one of the
 * shop's order numbers (the sink's key). That order is lettered SINK_FOREIGN_ROW naming the table,
 * the key and what is there; the ERP's row and its lines stay as they were; the other orders are
 * delivered and counted created. `overwrite: foreign` is the explicit way to overwrite it. The
 * sink has no owner column here, so the pipeline's state says which rows are its own: after the
 * state is deleted the orders the table holds are letters too, until the user accepts the restore.
 * On SQLite, PostgreSQL and MariaDB.
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSink } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { retryDeadLetters, runPipeline } from '../../src/pipeline/index.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { importBackends, type Backend, type ErpDb } from './importTables.js';
import { pushFixture, type PushFixture } from './support.js';

const [sqlite, postgres, mariadb] = importBackends('erp_foreign') as [Backend, Backend, Backend];

const def = { name: 'orders-to-erp', direction: 'pull' as const, sink: { connection: 'erp' }, mapping: 'orders-to-erp.yaml', resource: 'orders', options: { overlapDays: 30, sinkBatchSize: 2 } };
const SINK = { table: 'erp_orders', key: 'Shop_BestellNr', children: [{ field: 'Positionen', table: 'erp_order_lines', key: ['Shop_BestellNr', 'Pos'], parentKey: 'Shop_BestellNr' }] };

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

describe.each([sqlite, postgres, mariadb])('$name import tables holding rows the pull did not write', (backend) => {
  let f: PushFixture;
  let erp: ErpDb;
  let state: StateStore;

  beforeEach(async (ctx) => {
    if (!backend.available) return ctx.skip();
    f = await pushFixture();
    erp = await backend.open(f.dir);
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
  const sinkOf = (extra: Record<string, unknown> = {}) => () => createSink(erp.connection, { ...SINK, ...extra }, { logger: silentLogger, baseDir: f.dir, env: {}, pipeline: def.name });
  const deps = (extra: Record<string, unknown> = {}) => ({ state, shop: f.shop, mapping, sink: sinkOf(extra) });
  const pull = (extra: Record<string, unknown> = {}) => runPipeline(def, deps(extra));
  const q = (c: string) => erp.q(c);
  const orderRow = async (n: number) => (await erp.rows(`SELECT ${q('RE_Name')} AS name, ${q('Status')} AS status, ${q('Zahlungsart')} AS payment FROM erp_orders WHERE ${q('Shop_BestellNr')} = ${n}`))[0];
  const linesOf = async (n: number) => (await erp.rows(`SELECT ${q('Pos')} AS pos, ${q('ARTNR')} AS artnr FROM erp_order_lines WHERE ${q('Shop_BestellNr')} = ${n} ORDER BY 1`)).map((r) => `${Number(r.pos)}:${String(r.artnr)}`);
  const orderNumbers = async () => (await erp.rows(`SELECT ${q('Shop_BestellNr')} AS n FROM erp_orders ORDER BY 1`)).map((r) => Number(r.n));

  /** The ERP's own shipped order under number `n`, with three lines. */
  async function erpOrder(n: number): Promise<void> {
    await erp.exec(`INSERT INTO erp_orders (${q('Shop_BestellNr')}, ${q('RE_Name')}, ${q('Status')}, ${q('Zahlungsart')}) VALUES (${n}, 'Real Customer GmbH', 9, 'invoice')`);
    await erp.exec(`INSERT INTO erp_order_lines (${q('Shop_BestellNr')}, ${q('Pos')}, ${q('ARTNR')}) VALUES (${n}, 1, 'ERP-A'), (${n}, 2, 'ERP-B'), (${n}, 3, 'ERP-C')`);
  }

  it("letters the order whose number holds the ERP's own row, leaves that row and its lines as they were, and delivers the others", async () => {
    const ids = await place(3);
    const theirs = ids[1]!;
    await erpOrder(theirs);

    const run = await pull();
    expect(run).toMatchObject({ status: 'partial', counts: { created: 2, updated: 0, deadLettered: 1 } });
    const letters = await state.deadLetters.list({ pipeline: def.name });
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ erpKey: String(theirs), code: 'SINK_FOREIGN_ROW' });
    expect(letters[0]!.reason).toContain(`erp_orders already holds a row under Shop_BestellNr=${theirs} that this pipeline did not write`);
    expect(letters[0]!.reason).toContain('RE_Name=Real Customer GmbH');
    expect(letters[0]!.reason).toContain('staging table');
    expect(letters[0]!.reason).toContain('overwrite: foreign');
    expect(await orderRow(theirs)).toMatchObject({ name: 'Real Customer GmbH', payment: 'invoice' });
    expect(Number((await orderRow(theirs))!.status)).toBe(9);
    expect(await linesOf(theirs)).toEqual(['1:ERP-A', '2:ERP-B', '3:ERP-C']);
    expect(await orderNumbers()).toEqual([...ids].sort((a, b) => a - b));
    for (const id of [ids[0]!, ids[2]!]) expect(await linesOf(id)).toHaveLength(2);

    // The next pull refuses it again rather than overwriting it; what it delivered is unchanged.
    expect(await pull()).toMatchObject({ status: 'partial', counts: { created: 0, updated: 0, unchanged: 2, deadLettered: 1 } });
    expect(await linesOf(theirs)).toEqual(['1:ERP-A', '2:ERP-B', '3:ERP-C']);

    // Said explicitly, the row is overwritten: an update, not a create.
    const retried = await retryDeadLetters(def, deps({ overwrite: 'foreign' }));
    expect(retried).toMatchObject({ status: 'succeeded', counts: { created: 0, updated: 1, deadLettered: 0 } });
    expect(await linesOf(theirs)).toEqual(['1:ART-1', '2:ART-X']);
  });

  /** The table refuses a billing name longer than 20 characters, each database in its own way. */
  async function limitNames(): Promise<void> {
    if (backend.name === 'SQLite') await erp.exec(`CREATE TRIGGER name_limit BEFORE INSERT ON erp_orders WHEN length(NEW.${q('RE_Name')}) > 20 BEGIN SELECT RAISE(ABORT, 'RE_Name too long'); END`);
    else await erp.exec(`ALTER TABLE erp_orders ADD CONSTRAINT name_limit CHECK (${backend.name === 'MariaDB' ? 'CHAR_LENGTH' : 'length'}(${q('RE_Name')}) <= 20)`);
  }

  it("keeps refusing the ERP's row when the batch it came in is split for another record the table refuses", async () => {
    await limitNames();
    // One batch: the order under the ERP's number, and one whose billing name the table refuses.
    const [theirs] = await place(1, 1);
    const longName = order(2);
    const created = await f.shop.create('orders', [{ ...longName, billing: { ...(longName.billing as object), lastname: 'Mustermann-Lüdenscheid-Oberhausen' } }]);
    const long = Number(created.outcomes[0]!.data!.orders_id);
    await erpOrder(theirs!);

    const run = await pull();
    expect(run).toMatchObject({ status: 'partial', counts: { created: 0, updated: 0 } });
    const letters = await state.deadLetters.list({ pipeline: def.name });
    expect(Object.fromEntries(letters.map((l) => [l.erpKey, l.code]))).toEqual({ [String(theirs)]: 'SINK_FOREIGN_ROW', [String(long)]: 'SINK_ROW_REFUSED' });
    expect(await orderRow(theirs!)).toMatchObject({ name: 'Real Customer GmbH' });
    expect(await linesOf(theirs!)).toEqual(['1:ERP-A', '2:ERP-B', '3:ERP-C']);
  });

  it('without an owner column, a deleted state letters the orders the table holds instead of overwriting them; accepted, they are updates in place', async () => {
    const ids = await place(3);
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 3 } });
    await erp.exec(`UPDATE erp_orders SET ${q('RE_Ort')} = 'importiert'`);

    await state.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${join(f.dir, 'state.db')}${suffix}`, { force: true });
    state = await openState(join(f.dir, 'state.db'));
    const refused = await pull();
    expect(refused).toMatchObject({ status: 'partial', counts: { created: 0, updated: 0, deadLettered: 3 } });
    const letters = await state.deadLetters.list({ pipeline: def.name });
    expect(letters.map((l) => l.code)).toEqual(['SINK_FOREIGN_ROW', 'SINK_FOREIGN_ROW', 'SINK_FOREIGN_ROW']);
    expect(letters[0]!.reason).toContain(`shopsync state accept-restore ${def.name}`);
    expect(Number((await erp.rows(`SELECT COUNT(*) AS c FROM erp_orders WHERE ${q('RE_Ort')} = 'importiert'`))[0]!.c)).toBe(3);

    await state.rewinds.accept(def.name, Date.now());
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 0, updated: 3 } });
    expect(await orderNumbers()).toEqual([...ids].sort((a, b) => a - b));
    expect(Number((await erp.rows('SELECT COUNT(*) AS c FROM erp_order_lines'))[0]!.c)).toBe(6);
    expect(await state.deadLetters.list({ pipeline: def.name })).toEqual([]);
  });
});
