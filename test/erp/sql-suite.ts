/**
 * Behaviour shared by the three SQL dialects, run against each real database by its own test file.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { createSink, createSource, type ConnectionInput, type ConnectorContext, type CursorPosition, type Source, type SourceItem } from '../../src/erp/index.js';
import type { ServiceProbe } from '../support/services.js';

/** What a dialect's test file provides. */
export interface SqlHarness {
  readonly connection: ConnectionInput;
  readonly ctx?: Partial<ConnectorContext>;
  /** Run raw SQL as the test's admin (positional `?` placeholders are not used: values are literals). */
  exec(sql: string): Promise<void>;
  /** Column types. */
  readonly types: { readonly int: string; readonly text: string; readonly decimal: string };
  /** Quote an identifier. */
  q(id: string): string;
}

/** Read a source to the end (or `stopAfter` items). */
export async function collect(source: Source, options: Parameters<Source['read']>[0], stopAfter = Infinity): Promise<SourceItem[]> {
  const out: SourceItem[] = [];
  for await (const item of source.read(options)) {
    out.push(item);
    if (out.length >= stopAfter) break;
  }
  return out;
}

/** The connector context of the database tests: silent, no environment fallbacks. */
export const TEST_CTX = { logger: silentLogger, baseDir: process.cwd(), env: {} };

/** The connection settings of a probed local database service. */
export function serviceConnection<K extends 'postgres' | 'mysql'>(kind: K, service: ServiceProbe): { kind: K; host: string; port: number; user: string; database: string } {
  return { kind, host: service.host, port: service.port, user: service.user, database: service.database };
}

/**
 * Read a table of ids 1..`total` in pages of 10, call `dropConnection` after the 15th record, then
 * restart a new source from the last position read (as a run would after a typed failure); returns
 * every id seen, sorted. A read that fails must fail with CONNECTOR_UNREACHABLE.
 */
export async function readAcrossDroppedConnection(open: () => Promise<Source>, dropConnection: () => Promise<void>): Promise<number[]> {
  const seen: string[] = [];
  const source = await open();
  let last: CursorPosition | undefined;
  try {
    for await (const item of source.read({ pageSize: 10 })) {
      seen.push(item.key);
      last = item.position;
      if (seen.length === 15) await dropConnection();
    }
  } catch (err) {
    // Either the pool noticed and reconnected, or the read fails typed and the run restarts from `last`.
    expect(err).toMatchObject({ code: 'CONNECTOR_UNREACHABLE' });
  }
  await source.close().catch(() => undefined);
  const restarted = await open();
  for (const item of await collect(restarted, { pageSize: 10, after: last })) seen.push(item.key);
  await restarted.close();
  return seen.map(Number).sort((a, b) => a - b);
}

const TOTAL = 10_000;
const TIES = 3_000;
const TIE_VALUE = 5_000;

/** Register the shared SQL behaviour tests; `h` is resolved lazily inside the hooks. */
export function sqlSuite(h: () => SqlHarness): void {
  const suffix = `${process.pid}_${Math.floor(Math.random() * 1e6)}`;
  const items = `erp_items_${suffix}`;
  const orders = `erp_orders_${suffix}`;
  const lines = `erp_lines_${suffix}`;
  const ctx = (): ConnectorContext => ({ logger: silentLogger, baseDir: process.cwd(), ...h().ctx });

  beforeAll(async () => {
    const { exec, types, q } = h();
    await exec(`CREATE TABLE ${q(items)} (id ${types.int} PRIMARY KEY, seq ${types.int} NOT NULL, name ${types.text} NOT NULL)`);
    // Every id in {0,3,7} mod 10 shares one cursor value: 3,000 ties spread over the whole key range.
    for (let start = 1; start <= TOTAL; start += 1000) {
      const values: string[] = [];
      for (let id = start; id < start + 1000; id++) {
        const seq = [0, 3, 7].includes(id % 10) ? TIE_VALUE : id;
        values.push(`(${id}, ${seq}, 'item ${id}')`);
      }
      await exec(`INSERT INTO ${q(items)} (id, seq, name) VALUES ${values.join(', ')}`);
    }
    await exec(`CREATE TABLE ${q(orders)} (id ${types.int} PRIMARY KEY, updated ${types.int} NOT NULL, customer ${types.text}, total ${types.decimal})`);
    await exec(`CREATE TABLE ${q(lines)} (order_id ${types.int} NOT NULL, line_no ${types.int} NOT NULL, sku ${types.text} NOT NULL, qty ${types.int} NOT NULL, PRIMARY KEY (order_id, line_no))`);
  }, 120_000);

  afterAll(async () => {
    const { exec, q } = h();
    for (const t of [items, orders, lines]) await exec(`DROP TABLE IF EXISTS ${q(t)}`);
  });

  const itemSource = (query?: string) =>
    createSource(h().connection, query
      ? { query, cursor: 'seq', key: 'id', initialCursor: -1, initialKey: 0 }
      : { query: `SELECT id, seq, name FROM ${h().q(items)}`, cursor: 'seq', key: 'id' }, ctx());

  function expectExactlyOnce(all: readonly SourceItem[]): void {
    const keys = all.map((i) => i.key);
    expect(new Set(keys).size).toBe(TOTAL);
    expect(keys.length).toBe(TOTAL);
    expect(all.filter((i) => i.position.value === TIE_VALUE)).toHaveLength(TIES);
    for (let i = 1; i < all.length; i++) {
      const a = all[i - 1] as SourceItem;
      const b = all[i] as SourceItem;
      const ordered = (a.position.value as number) < (b.position.value as number) || (a.position.value === b.position.value && Number(a.key) < Number(b.key));
      if (!ordered) throw new Error(`out of order at ${i}: ${JSON.stringify(a.position)} then ${JSON.stringify(b.position)}`);
    }
  }

  it('pages a composite key [firma, artnr] across pages and a restart, exactly once each, and attaches child rows by the whole key', async () => {
    const { exec, types, q } = h();
    const table = `erp_art_${suffix}`;
    const prices = `erp_prices_${suffix}`;
    await exec(`CREATE TABLE ${q(table)} (firma ${types.text} NOT NULL, artnr ${types.text} NOT NULL, changed ${types.int} NOT NULL, name ${types.text}, PRIMARY KEY (firma, artnr))`);
    await exec(`CREATE TABLE ${q(prices)} (firma ${types.text} NOT NULL, artnr ${types.text} NOT NULL, grp ${types.int} NOT NULL, price ${types.text})`);
    // Eleven articles of two companies sharing article numbers, most on one cursor value.
    const rows: string[] = [];
    for (const firma of ['01', '02']) for (let n = 1; n <= 6; n++) if (!(firma === '02' && n === 6)) rows.push(`('${firma}', 'A-${n}', ${n <= 4 ? 5 : n}, '${firma}/${n}')`);
    await exec(`INSERT INTO ${q(table)} (firma, artnr, changed, name) VALUES ${rows.join(', ')}`);
    await exec(`INSERT INTO ${q(prices)} (firma, artnr, grp, price) VALUES ('01', 'A-1', 1, '9.99'), ('02', 'A-1', 1, '7.50'), ('02', 'A-1', 2, '7.00')`);
    const open = () =>
      createSource(h().connection, {
        query: `SELECT firma, artnr, changed, name FROM ${q(table)}`,
        cursor: 'changed',
        key: ['firma', 'artnr'],
        children: [{ field: 'prices', query: `SELECT firma, artnr, grp, price FROM ${q(prices)} WHERE firma IN (:keys_firma) AND artnr IN (:keys_artnr) ORDER BY grp`, parentKey: ['firma', 'artnr'] }],
      }, ctx());
    try {
      const first = await open();
      const head = await collect(first, { pageSize: 3 }, 4);
      await first.close();
      const second = await open();
      const rest = await collect(second, { pageSize: 3, after: head[head.length - 1]?.position });
      await second.close();
      const keys = [...head, ...rest].map((i) => i.key);
      expect(keys).toHaveLength(11);
      expect(new Set(keys).size).toBe(11);
      expect(keys[0]).toBe('["01","A-1"]');
      const byKey = new Map([...head, ...rest].map((i) => [i.key, i.record]));
      expect(byKey.get('["01","A-1"]')?.prices).toEqual([{ firma: '01', artnr: 'A-1', grp: 1, price: '9.99' }]);
      expect((byKey.get('["02","A-1"]')?.prices as unknown[]).length).toBe(2);
      expect(byKey.get('["01","A-2"]')?.prices).toEqual([]);
    } finally {
      await exec(`DROP TABLE ${q(table)}`);
      await exec(`DROP TABLE ${q(prices)}`);
    }
  });

  it('refuses a row without a key or cursor value as an item of its own and reads the rows after it', async () => {
    const { exec, types, q } = h();
    const table = `erp_nullkey_${suffix}`;
    await exec(`CREATE TABLE ${q(table)} (sku ${types.text}, updated ${types.int}, name ${types.text})`);
    await exec(`INSERT INTO ${q(table)} (sku, updated, name) VALUES ('A-1', 1, 'first'), (NULL, 2, 'no key'), ('A-3', NULL, 'no cursor'), ('A-4', 4, 'after')`);
    const source = await createSource(h().connection, { query: `SELECT sku, updated, name FROM ${q(table)}`, cursor: 'updated', key: 'sku' }, ctx());
    try {
      const all = await collect(source, {});
      const good = all.filter((i) => !i.refused).map((i) => i.key);
      const refused = all.filter((i) => i.refused).map((i) => [i.key, i.refused?.code]);
      expect(good).toEqual(['A-1', 'A-4']);
      expect(refused.sort()).toEqual([['A-3', 'SOURCE_KEY_MISSING'], ['sku=NULL@updated=2', 'SOURCE_KEY_MISSING']].sort());
      expect(all.find((i) => i.key === 'A-3')?.refused?.message).toMatch(/no cursor \(updated\) value/);
    } finally {
      await source.close();
      await exec(`DROP TABLE ${q(table)}`);
    }
  });

  it('reads 10,000 rows of which 3,000 share a cursor value exactly once each, across pages and a restart', async () => {
    const first = await itemSource();
    const part1 = await collect(first, { pageSize: 700 }, 4_321);
    await first.close();
    expect(part1.at(-1)?.position.value).toBe(TIE_VALUE); // the restart happens inside the tie group
    const second = await itemSource();
    const part2 = await collect(second, { pageSize: 700, after: part1.at(-1)?.position as CursorPosition });
    await second.close();
    expectExactlyOnce([...part1, ...part2]);
  });

  it('pages a query that does its own keyset paging with :cursor, :cursor_key and :limit', async () => {
    const { q } = h();
    const source = await itemSource(`SELECT id, seq, name FROM ${q(items)} WHERE seq > :cursor OR (seq = :cursor AND id > :cursor_key) ORDER BY seq, id LIMIT :limit`);
    const all = await collect(source, { pageSize: 999 });
    await source.close();
    expectExactlyOnce(all);
  });

  it('stops at the inclusive until bound for backfills', async () => {
    const source = await itemSource();
    const all = await collect(source, { pageSize: 500, after: { value: 4_990, key: '4990' }, until: TIE_VALUE });
    await source.close();
    expect(all[0]?.key).toBe('4991');
    expect(all.every((i) => (i.position.value as number) <= TIE_VALUE)).toBe(true);
    expect(all.filter((i) => i.position.value === TIE_VALUE)).toHaveLength(TIES);
    expect(all).toHaveLength(TIES + 7); // 4991, 4992, 4994, 4995, 4996, 4998, 4999 plus the ties
  });

  it('upserts orders with their lines in one transaction and replaces the lines of an order', async () => {
    const sinkCfg = { table: orders, key: 'id', children: [{ field: 'lines', table: lines, key: ['order_id', 'line_no'], parentKey: 'order_id' }] };
    const sink = await createSink(h().connection, sinkCfg, ctx());
    await sink.write({ id: 'b1', records: [
      { id: 1, updated: 10, customer: 'Müller', total: '12.50', lines: [{ line_no: 1, sku: 'A', qty: 1 }, { line_no: 2, sku: 'B', qty: 2 }] },
      { id: 2, updated: 11, customer: 'Søren', total: '3.00', lines: [{ line_no: 1, sku: 'C', qty: 5 }] },
    ] });
    // Order 1 loses line 2, changes its customer; order 2 sends no lines field and keeps its lines.
    // Both rows are the pipeline's own (its state delivered them), which is what lets the sink update them.
    await sink.write({ id: 'b2', records: [{ id: 1, updated: 12, customer: 'Müller GmbH', lines: [{ line_no: 1, sku: 'A', qty: 3 }] }, { id: 2, updated: 13 }], owned: [true, true] });
    await sink.close();

    const source = await createSource(h().connection, {
      query: `SELECT id, updated, customer, total FROM ${h().q(orders)}`, cursor: 'updated', key: 'id',
      children: [{ field: 'lines', query: `SELECT order_id, line_no, sku, qty FROM ${h().q(lines)} WHERE order_id IN (:keys) ORDER BY order_id, line_no`, parentKey: 'order_id' }],
    }, ctx());
    const got = (await collect(source, {})).map((i) => i.record);
    await source.close();
    expect(got).toEqual([
      { id: 1, updated: 12, customer: 'Müller GmbH', total: '12.50', lines: [{ order_id: 1, line_no: 1, sku: 'A', qty: 3 }] },
      { id: 2, updated: 13, customer: 'Søren', total: '3.00', lines: [{ order_id: 2, line_no: 1, sku: 'C', qty: 5 }] },
    ]);
  });

  it('writes nothing of a batch when one record in it fails', async () => {
    const sink = await createSink(h().connection, { table: orders, key: 'id', children: [{ field: 'lines', table: lines, key: ['order_id', 'line_no'], parentKey: 'order_id' }] }, ctx());
    // The second order's line has no sku (NOT NULL): the database refuses it mid-transaction.
    const failure = sink.write({ id: 'b3', records: [
      { id: 7, updated: 20, customer: 'first', lines: [{ line_no: 1, sku: 'X', qty: 1 }] },
      { id: 8, updated: 21, customer: 'second', lines: [{ line_no: 1, sku: null, qty: 1 }] },
    ] });
    // A data error of a record: the pipeline splits the batch on this code to find and letter that record.
    await expect(failure).rejects.toMatchObject({ code: 'SINK_ROW_REFUSED' });
    await sink.close();
    const source = await createSource(h().connection, { query: `SELECT id FROM ${h().q(orders)} WHERE id IN (7, 8)`, cursor: 'id', key: 'id' }, ctx());
    expect(await collect(source, {})).toEqual([]);
    await source.close();
  });

  it('names the key, the table and the column of a lone record the table refuses, with the database\'s reason and the fix', async () => {
    const sink = await createSink(h().connection, { table: orders, key: 'id', children: [{ field: 'lines', table: lines, key: ['order_id', 'line_no'], parentKey: 'order_id' }] }, ctx());
    const err = await sink.write({ id: 'b4', records: [{ id: 9, updated: 22, customer: 'third', lines: [{ line_no: 1, sku: null, qty: 1 }] }] }).catch((e: unknown) => e);
    await sink.close();
    expect(err).toMatchObject({ code: 'SINK_ROW_REFUSED', record: { erpKey: '9' }, details: { table: lines } });
    expect((err as Error).message).toContain(`${lines} refused the row id=9`);
    expect((err as Error).message).toMatch(/sku/);
    expect((err as Error).message).toContain('shopsync dlq retry');
  });

  it('folds joined rows into one record per key with groupBy, even when a page cuts an order', async () => {
    const { q } = h();
    const source = await createSource(h().connection, {
      query: `SELECT o.id, o.updated, o.customer, l.line_no AS line_line_no, l.sku AS line_sku FROM ${q(orders)} o LEFT JOIN ${q(lines)} l ON l.order_id = o.id`,
      cursor: 'updated', key: 'id',
      groupBy: [{ field: 'lines', prefix: 'line_' }],
    }, ctx());
    const sink = await createSink(h().connection, { table: lines, key: ['order_id', 'line_no'] }, ctx());
    await sink.write({ id: 'more-lines', records: [2, 3, 4].map((n) => ({ order_id: 1, line_no: n, sku: `S${n}`, qty: n })) });
    await sink.close();
    const got = (await collect(source, { pageSize: 2 })).map((i) => i.record);
    await source.close();
    expect(got.map((r) => [r.id, (r.lines as unknown[]).length])).toEqual([[1, 4], [2, 1]]);
    expect((got[0]?.lines as unknown[])[3]).toEqual({ line_no: 4, sku: 'S4' });
  });

  it('tells which records it holds as its own by its owner column (a composite key, values given as text too), without writing', async () => {
    const { exec, q, types } = h();
    const owned = `erp_owned_${suffix}`;
    await exec(`CREATE TABLE ${q(owned)} (order_id ${types.int} NOT NULL, line_no ${types.int} NOT NULL, sku ${types.text}, shopsync_pipeline VARCHAR(200), PRIMARY KEY (order_id, line_no))`);
    // A row of someone else's under a key the batch asks about: not the sink's.
    await exec(`INSERT INTO ${q(owned)} (order_id, line_no, sku, shopsync_pipeline) VALUES (5, 3, 'theirs', 'another-pipeline')`);
    const sink = await createSink(h().connection, { table: owned, key: ['order_id', 'line_no'], ownerColumn: 'shopsync_pipeline' }, { ...ctx(), pipeline: 'lines' });
    await sink.write({ id: 'held', records: [{ order_id: 5, line_no: 1, sku: 'H' }, { order_id: 5, line_no: 2, sku: 'H' }] });
    const held = await sink.holding!([
      { order_id: 5, line_no: 2 },
      { order_id: 77, line_no: 1 },
      { order_id: '5', line_no: '1' },
      { order_id: 5 },
      { order_id: 5, line_no: 3 },
    ]);
    await sink.close();
    await exec(`DROP TABLE ${q(owned)}`);
    expect([...held].sort()).toEqual([0, 2]);
  });

  it('refuses a record whose key holds a row it did not write, leaving that row and its children as they were, and writes the rest of the batch', async () => {
    const { exec, q } = h();
    // The ERP's own order 40 with two lines, under the key the shop's order would take.
    await exec(`INSERT INTO ${q(orders)} (id, updated, customer, total) VALUES (40, 1, 'ERP customer', 99.5)`);
    await exec(`INSERT INTO ${q(lines)} (order_id, line_no, sku, qty) VALUES (40, 1, 'ERP-1', 1), (40, 2, 'ERP-2', 2)`);
    const sink = await createSink(h().connection, { table: orders, key: 'id', children: [{ field: 'lines', table: lines, key: ['order_id', 'line_no'], parentKey: 'order_id' }] }, { ...ctx(), pipeline: 'orders-in' });
    const result = await sink.write({ id: 'f1', records: [
      { id: 40, updated: 50, customer: 'shop customer', lines: [{ line_no: 1, sku: 'SHOP', qty: 9 }] },
      { id: 41, updated: 51, customer: 'new', lines: [{ line_no: 1, sku: 'N', qty: 1 }] },
    ], owned: [false, false] });
    expect(result?.outcomes).toEqual([
      { kind: 'refused', code: 'SINK_FOREIGN_ROW', message: expect.stringContaining(`${orders} already holds a row under id=40 that this pipeline did not write`), details: expect.objectContaining({ table: orders, key: { id: 40 }, found: expect.objectContaining({ customer: 'ERP customer' }) }) },
      { kind: 'created' },
    ]);
    const refusal = result!.outcomes[0] as { message: string };
    expect(refusal.message).toContain('customer=ERP customer');
    expect(refusal.message).toContain('shopsync init --orders-pull');
    expect(refusal.message).toContain('overwrite: foreign');
    // Proven its own (the state delivered it), the same row is updated; `overwrite: foreign` would too.
    const again = await sink.write({ id: 'f2', records: [{ id: 41, updated: 52, customer: 'newer' }], owned: [true] });
    expect(again?.outcomes).toEqual([{ kind: 'updated' }]);
    await sink.close();

    const source = await createSource(h().connection, {
      query: `SELECT id, updated, customer FROM ${q(orders)} WHERE id IN (40, 41)`, cursor: 'id', key: 'id',
      children: [{ field: 'lines', query: `SELECT order_id, line_no, sku, qty FROM ${q(lines)} WHERE order_id IN (:keys) ORDER BY order_id, line_no`, parentKey: 'order_id' }],
    }, ctx());
    const got = (await collect(source, {})).map((i) => i.record);
    await source.close();
    expect(got).toEqual([
      { id: 40, updated: 1, customer: 'ERP customer', lines: [{ order_id: 40, line_no: 1, sku: 'ERP-1', qty: 1 }, { order_id: 40, line_no: 2, sku: 'ERP-2', qty: 2 }] },
      { id: 41, updated: 52, customer: 'newer', lines: [{ order_id: 41, line_no: 1, sku: 'N', qty: 1 }] },
    ]);
  });

  it('with an owner column, refuses a row another marker wrote even when the pipeline proves the key, and updates its own', async () => {
    const { exec, q, types } = h();
    const staged = `erp_staged_${suffix}`;
    await exec(`CREATE TABLE ${q(staged)} (id ${types.int} PRIMARY KEY, customer ${types.text}, shopsync_pipeline VARCHAR(200))`);
    await exec(`INSERT INTO ${q(staged)} (id, customer, shopsync_pipeline) VALUES (1, 'theirs', 'erp-import')`);
    const sink = await createSink(h().connection, { table: staged, key: 'id', ownerColumn: 'shopsync_pipeline' }, { ...ctx(), pipeline: 'orders-in' });
    const first = await sink.write({ id: 'o1', records: [{ id: 1, customer: 'ours' }, { id: 2, customer: 'ours', shopsync_pipeline: 'forged' }], owned: [true, false] });
    const second = await sink.write({ id: 'o2', records: [{ id: 2, customer: 'ours again' }] });
    await sink.close();
    expect(first?.outcomes.map((o) => o.kind)).toEqual(['refused', 'created']);
    expect((first!.outcomes[0] as { message: string }).message).toContain('its shopsync_pipeline is erp-import, not orders-in');
    expect(second?.outcomes).toEqual([{ kind: 'updated' }]);
    const rows = [] as unknown[];
    const source = await createSource(h().connection, { query: `SELECT id, customer, shopsync_pipeline FROM ${q(staged)}`, cursor: 'id', key: 'id' }, ctx());
    for (const item of await collect(source, {})) rows.push(item.record);
    await source.close();
    await exec(`DROP TABLE ${q(staged)}`);
    expect(rows).toEqual([{ id: 1, customer: 'theirs', shopsync_pipeline: 'erp-import' }, { id: 2, customer: 'ours again', shopsync_pipeline: 'orders-in' }]);
  });

  it('appends the rows of an append child whose key is new, and never deletes or rewrites one there (the ERP\'s own column on it survives)', async () => {
    const { exec, q, types } = h();
    const parents = `erp_followed_${suffix}`;
    const events = `erp_changes_${suffix}`;
    await exec(`CREATE TABLE ${q(parents)} (id ${types.int} PRIMARY KEY, status ${types.int})`);
    await exec(`CREATE TABLE ${q(events)} (order_id ${types.int} NOT NULL, seq ${types.int} NOT NULL, kind ${types.text} NOT NULL, processed ${types.int}, PRIMARY KEY (order_id, seq))`);
    const cfg = { table: parents, key: 'id', children: [{ field: 'changes', table: events, key: ['order_id', 'seq'], parentKey: 'order_id', append: true }] };
    const sink = await createSink(h().connection, cfg, ctx());
    await sink.write({ id: 'a1', records: [{ id: 1, status: 2, changes: [{ seq: 1, kind: 'status' }] }, { id: 2, status: 1, changes: [] }] });
    // The ERP acts on change 1 and marks it.
    await exec(`UPDATE ${q(events)} SET processed = 1 WHERE order_id = 1 AND seq = 1`);
    // The next delivery carries every change so far (1 again, with another kind as a rewrite would) and a new one; order 2 gets its first.
    const again = await sink.write({ id: 'a2', records: [{ id: 1, status: 4, changes: [{ seq: 1, kind: 'rewritten' }, { seq: 2, kind: 'cancelled' }] }, { id: 2, status: 5, changes: [{ seq: 1, kind: 'return' }] }], owned: [true, true] });
    expect(again?.outcomes).toEqual([{ kind: 'updated' }, { kind: 'updated' }]);
    // A list without an entry deletes nothing; an entry the table refuses still fails the batch (no silent skip).
    await sink.write({ id: 'a3', records: [{ id: 1, status: 4, changes: [] }], owned: [true] });
    await expect(sink.write({ id: 'a4', records: [{ id: 1, status: 4, changes: [{ seq: 3, kind: null }] }], owned: [true] })).rejects.toMatchObject({ code: 'SINK_ROW_REFUSED' });
    await sink.close();
    const source = await createSource(h().connection, {
      query: `SELECT id, status FROM ${q(parents)}`, cursor: 'id', key: 'id',
      children: [{ field: 'changes', query: `SELECT order_id, seq, kind, processed FROM ${q(events)} WHERE order_id IN (:keys) ORDER BY order_id, seq`, parentKey: 'order_id' }],
    }, ctx());
    const got = (await collect(source, {})).map((i) => i.record);
    await source.close();
    await exec(`DROP TABLE ${q(events)}`);
    await exec(`DROP TABLE ${q(parents)}`);
    expect(got).toEqual([
      { id: 1, status: 4, changes: [{ order_id: 1, seq: 1, kind: 'status', processed: 1 }, { order_id: 1, seq: 2, kind: 'cancelled', processed: null }] },
      { id: 2, status: 5, changes: [{ order_id: 2, seq: 1, kind: 'return', processed: null }] },
    ]);
  });

  it('refuses an append child whose key lacks its parent key columns', async () => {
    const cfg = { table: orders, key: 'id', children: [{ field: 'changes', table: lines, key: 'line_no', parentKey: 'order_id', append: true }] };
    await expect(createSink(h().connection, cfg, ctx())).rejects.toThrow(/append child's key must hold its parentKey columns \(order_id missing\)/);
  });

  it('refuses at start-up a sink whose key no unique index covers, naming a staging table as the fix', async () => {
    const { exec, q, types } = h();
    const loose = `erp_loose_${suffix}`;
    await exec(`CREATE TABLE ${q(loose)} (id ${types.int}, other ${types.int}, name ${types.text}, UNIQUE (id, other))`);
    const err = await createSink(h().connection, { table: loose, key: 'id' }, ctx()).catch((e: unknown) => e);
    await exec(`DROP TABLE ${q(loose)}`);
    expect(err).toMatchObject({ code: 'SINK_KEY_NOT_UNIQUE', details: { key: ['id'], uniqueKeys: [['id', 'other']] } });
    expect((err as Error).message).toContain("no primary key or unique index on exactly the sink's key (id); its unique keys are (id, other)");
    expect((err as Error).message).toContain('shopsync init --orders-pull');
  });
}
