/** Shared fixtures of the pipeline tests: a real sandbox over HTTP, an ERP SQLite file, real mappings and a state file. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createSource } from '../../src/erp/index.js';
import type { Source } from '../../src/erp/types.js';
import { silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { createShopClient } from '../../src/shop/index.js';
import type { ShopClient, ShopClientOptions } from '../../src/shop/client/types.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { productsMapping } from '../support/mappings.js';

export const PRODUCT_MAPPING = productsMapping('erp-products');

/** A temp folder removed by `cleanup`. */
export function tempDir(prefix = 'shopsync-pipe-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Create the ERP database with a products table. */
export function createErp(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE IF NOT EXISTS products (sku TEXT PRIMARY KEY, name TEXT NOT NULL, price TEXT NOT NULL, qty INTEGER NOT NULL, updated_at TEXT NOT NULL)`);
  return db;
}

/** Insert or replace products `from..to` (1-based) with a version tag in the name. */
export function upsertProducts(db: Database.Database, from: number, to: number, version = 1, updatedAt = '2026-01-01 00:00:00'): void {
  const stmt = db.prepare('INSERT OR REPLACE INTO products (sku, name, price, qty, updated_at) VALUES (?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = from; i <= to; i++) stmt.run(sku(i), `Product ${i} v${version}`, (10 + (i % 90) + version / 100).toFixed(2), i % 50, updatedAt);
  })();
}

/** The SKU of product n. */
export function sku(n: number): string {
  return `SKU-${String(n).padStart(6, '0')}`;
}

/** Write a mapping file into `dir` and compile it. */
export async function mappingFile(dir: string, name: string, yaml: string): Promise<CompiledMapping> {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, yaml);
  return loadMapping(file);
}

/** A source factory reading the ERP SQLite file (products unless another source config is given). */
export function sqliteSource(erpFile: string, config: Record<string, unknown> = { query: 'SELECT * FROM products', cursor: 'updated_at', key: 'sku' }): () => Promise<Source> {
  return () => createSource({ kind: 'sqlite', path: erpFile }, config as never, { logger: silentLogger, baseDir: '/' });
}

/** Source config of the ERP orders with their lines. */
export const ORDER_SOURCE = {
  query: 'SELECT * FROM orders',
  cursor: 'updated_at',
  key: 'order_no',
  children: [{ field: 'lines', query: 'SELECT * FROM order_lines WHERE order_no IN (:keys) ORDER BY line', parentKey: 'order_no' }],
};

export const ORDER_MAPPING = `
name: erp-orders
direction: erp-to-shop
target: { resource: orders, operation: create }
key: order_no
fields:
  customers_id: { from: customer_id, type: integer }
  external_reference:
    fields:
      source: { value: erp }
      external_id: order_no
  auto_stock: { value: false }
  tax_flag: { value: 0 }
  billing:
    fields:
      firstname: firstname
      lastname: lastname
      street_address: { value: Hauptstr. 1 }
      postcode: { value: '10115' }
      city: { value: Berlin }
      country_iso_code_2: { value: DE }
  products:
    each: lines
    fields:
      products_model: sku
      quantity: { from: qty, type: decimal, locale: point }
      products_price: { from: price, type: decimal, locale: point }
`;

/** Create the ERP order tables. */
export function createOrderTables(db: Database.Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS orders (order_no TEXT PRIMARY KEY, customer_id INTEGER NOT NULL, firstname TEXT, lastname TEXT, updated_at TEXT NOT NULL);
           CREATE TABLE IF NOT EXISTS order_lines (order_no TEXT NOT NULL, line INTEGER NOT NULL, sku TEXT NOT NULL, qty TEXT NOT NULL, price TEXT NOT NULL, PRIMARY KEY (order_no, line))`);
}

/** The ERP number of order n. */
export function orderNo(n: number): string {
  return `A-${String(n).padStart(6, '0')}`;
}

/** Insert orders \`from..to\` with two lines each, referring to products 1..productCount. */
export function insertOrders(db: Database.Database, from: number, to: number, productCount: number, updatedAt = '2026-01-01 00:00:00'): void {
  const order = db.prepare('INSERT OR REPLACE INTO orders (order_no, customer_id, firstname, lastname, updated_at) VALUES (?, 0, ?, ?, ?)');
  const line = db.prepare('INSERT OR REPLACE INTO order_lines (order_no, line, sku, qty, price) VALUES (?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = from; i <= to; i++) {
      order.run(orderNo(i), 'Erika', `Kundin ${i}`, updatedAt);
      line.run(orderNo(i), 1, sku(1 + (i % productCount)), '1', '10.00');
      line.run(orderNo(i), 2, sku(1 + ((i * 7) % productCount)), '2', '5.50');
    }
  })();
}

/** A client for a sandbox. */
export function clientFor(sandbox: { url: string; token: string }, extra: Partial<ShopClientOptions> = {}): ShopClient {
  return createShopClient({ baseUrl: sandbox.url, auth: { kind: 'token', token: sandbox.token }, rateLimit: { concurrency: 8, intervalCap: 10_000, intervalMs: 1000 }, retry: { baseDelayMs: 5, maxDelayMs: 200 }, ...extra });
}

/** Everything a push test needs. */
export interface PushFixture {
  readonly dir: string;
  readonly erpFile: string;
  readonly erp: Database.Database;
  readonly sandbox: SandboxHandle;
  readonly shop: ShopClient;
  readonly state: StateStore;
  close(): Promise<void>;
}

/** Sandbox (empty shop), ERP file and state file in a temp folder. */
export async function pushFixture(clientOptions: Partial<ShopClientOptions> = {}): Promise<PushFixture> {
  const dir = tempDir();
  const erpFile = join(dir, 'erp.sqlite');
  const erp = createErp(erpFile);
  const sandbox = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
  const shop = clientFor(sandbox, clientOptions);
  const state = await openState(join(dir, 'state.db'));
  return {
    dir,
    erpFile,
    erp,
    sandbox,
    shop,
    state,
    async close() {
      await shop.close();
      await state.close();
      await sandbox.close();
      erp.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Set sandbox faults through its control endpoint. */
export async function setFaults(sandbox: { url: string; token: string }, faults: Record<string, number>): Promise<void> {
  const res = await fetch(`${sandbox.url}/sandbox/faults`, { method: 'PUT', headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' }, body: JSON.stringify(faults) });
  if (!res.ok) throw new Error(`setting faults failed: ${res.status} ${await res.text()}`);
}

/** Every record of a resource in the shop (export, all pages). */
export async function shopRecords(shop: ShopClient, resource: 'products' | 'orders' | 'customers'): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const r of shop.exportAll(resource)) out.push(r);
  return out;
}
