/** The follow tests' world: a sandbox shop over HTTP, the shipped orders mapping, an ERP SQLite file with its import tables. */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { parse } from 'yaml';
import { expect } from 'vitest';
import { createSink } from '../../src/erp/index.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { postgresLocation } from '../state/backends.js';
import type { RunSummary } from '../../src/pipeline/types.js';
import { pushFixture, type PushFixture } from '../pipeline/support.js';

const MAPPING = resolve('mappings/orders-to-erp.yaml');
const shipped = parse(readFileSync(MAPPING, 'utf8')) as { fields: Record<string, { each?: string; fields?: Record<string, unknown> }> };
const nested = Object.keys(shipped.fields).filter((f) => shipped.fields[f]?.each !== undefined);
const columns = (fields: Record<string, unknown>) => Object.keys(fields).map((c) => `"${c}"`);

/** The ERP's import tables of the shipped mapping; columns without a type keep values as written (SQLite). */
function createImportTables(db: Database.Database): void {
  const top = Object.fromEntries(Object.entries(shipped.fields).filter(([f]) => !nested.includes(f)));
  db.exec(`CREATE TABLE erp_orders (${columns(top).map((c) => (c === '"Shop_BestellNr"' ? `${c} INTEGER PRIMARY KEY` : c)).join(', ')})`);
  db.exec(`CREATE TABLE erp_order_lines (${columns(shipped.fields.Positionen!.fields!).join(', ')}, PRIMARY KEY ("Shop_BestellNr", "Pos"))`);
  // The ERP's own column: what it did with a change.
  db.exec(`CREATE TABLE erp_order_changes (${columns(shipped.fields.Aenderungen!.fields!).join(', ')}, "Verarbeitet" TEXT, PRIMARY KEY ("Shop_BestellNr", "Nr"))`);
}

/** The follow block of the tests: every run passes. */
export const FOLLOW = { every: '0s', until: [4, 5], cancelled: [4], returned: [5], maxAgeDays: 14 };

/** A shop date `days` ago (UTC, as the sandbox writes them). */
export function shopDate(daysAgo: number, at = new Date()): string {
  return new Date(at.getTime() - daysAgo * 86_400_000).toISOString().slice(0, 19).replace('T', ' ');
}

export interface FollowWorld {
  readonly f: PushFixture;
  /** The state the runs use (the fixture's SQLite file, or a PostgreSQL schema). */
  readonly state: StateStore;
  readonly erp: Database.Database;
  /** JSON log lines of every run. */
  readonly logs: Record<string, unknown>[];
  /** Run the orders pull (with the tests' `follow:` unless told otherwise, or with these follow settings). */
  run(follow?: boolean | Partial<typeof FOLLOW>): Promise<RunSummary>;
  /** Place an order `daysAgo` days ago; answers its id. */
  place(ext: string, daysAgo: number, extra?: Record<string, unknown>): Promise<number>;
  /** Update an order in the shop. */
  update(id: number, fields: Record<string, unknown>): Promise<void>;
  /** API requests the sandbox received since the last call (and start counting afresh). */
  traffic(): Promise<number>;
  changes(id?: number): Record<string, unknown>[];
  order(id: number): Record<string, unknown> | undefined;
  close(): Promise<void>;
}

/** Open a fresh world, its state on SQLite or PostgreSQL. */
export async function followWorld(backend: 'sqlite' | 'postgres' = 'sqlite'): Promise<FollowWorld> {
  const f = await pushFixture();
  const state = backend === 'sqlite' ? f.state : await openState(postgresLocation());
  const sinkFile = join(f.dir, 'erp-in.sqlite');
  const erp = new Database(sinkFile);
  createImportTables(erp);
  const mapping = await loadMapping(MAPPING);
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'info', destination: new Writable({ write: (chunk: Buffer, _e, done) => void (logs.push(...chunk.toString().split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, unknown>)), done()) }) });
  const sink = () =>
    createSink({ kind: 'sqlite', path: sinkFile }, {
      table: 'erp_orders',
      key: 'Shop_BestellNr',
      children: [
        { field: 'Positionen', table: 'erp_order_lines', key: ['Shop_BestellNr', 'Pos'], parentKey: 'Shop_BestellNr' },
        { field: 'Aenderungen', table: 'erp_order_changes', key: ['Shop_BestellNr', 'Nr'], parentKey: 'Shop_BestellNr', append: true },
      ],
    }, { logger: silentLogger, baseDir: '/' });
  const control = async (method: string, path: string) => {
    const res = await fetch(`${f.sandbox.url}${path}`, { method, headers: { authorization: `Bearer ${f.sandbox.token}` } });
    expect(res.ok).toBe(true);
    return (await res.json()) as Record<string, unknown>;
  };
  return {
    f,
    state,
    erp,
    logs,
    run: (follow = true) =>
      runPipeline({ name: 'orders-in', direction: 'pull', resource: 'orders', mapping: 'orders-to-erp.yaml', sink: { connection: 'erp' }, options: { shopTimeZone: 'UTC' }, ...(follow ? { follow: { ...FOLLOW, ...(follow === true ? {} : follow) } } : {}) }, { state, shop: f.shop, mapping, sink, logger }),
    async place(ext, daysAgo, extra = {}) {
      const result = await f.shop.create('orders', [{
        customers_id: 0,
        auto_stock: false,
        date_purchased: shopDate(daysAgo),
        billing: { firstname: 'Erika', lastname: ext, street_address: 'Hauptstr. 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE' },
        products: [{ products_model: 'X-1', products_name: 'Tasse', quantity: 1, products_price: 10 }],
        external_reference: { source: 'test', external_id: ext },
        ...extra,
      }]);
      expect(result.outcomes[0]?.ok, JSON.stringify(result.outcomes[0]?.error)).toBe(true);
      return Number(result.outcomes[0]!.data!.orders_id);
    },
    async update(id, fields) {
      const result = await f.shop.update('orders', [{ orders_id: id, ...fields }]);
      expect(result.outcomes[0]?.ok, JSON.stringify(result.outcomes[0]?.error)).toBe(true);
    },
    async traffic() {
      const seen = Number((await control('GET', '/sandbox/traffic')).requests);
      await control('DELETE', '/sandbox/traffic');
      return seen;
    },
    changes: (id) => erp.prepare(`SELECT * FROM erp_order_changes ${id === undefined ? '' : 'WHERE "Shop_BestellNr" = ?'} ORDER BY "Shop_BestellNr", "Nr"`).all(...(id === undefined ? [] : [id])) as Record<string, unknown>[],
    order: (id) => erp.prepare('SELECT * FROM erp_orders WHERE "Shop_BestellNr" = ?').get(id) as Record<string, unknown> | undefined,
    async close() {
      erp.close();
      if (state !== f.state) await state.close();
      await f.close();
    },
  };
}
