/**
 * The real system a history drives: a temporary folder with a SQLite ERP (products to push, an
 * order import table to pull into, with its lines and, appended, the changes the orders pull's
 * follow finds after checkout: issue 44), the mappings and a generated shopsync.yaml, a state (SQLite
 * file, or a PostgreSQL schema of its own), the in-process runtime the CLI itself uses
 * (`openRuntime`), and the sandbox shop over HTTP, shared by the histories of one process and
 * emptied between them. The CLI steps spawn `bin/shopsync.js` on the same config and state.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { openRuntime, type Runtime } from '../../src/ops/runtime.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { createShopClient } from '../../src/shop/index.js';
import type { ShopClient } from '../../src/shop/client/types.js';
import type { RunRecord } from '../../src/state/index.js';
import { InfraFaults, useFaults } from './faults.js';
import { MAPPING_VERSIONS } from './model.js';
import { stepWallClock } from './clock.js';
import { FOLLOW } from './follow.js';

/** The PostgreSQL server of the `--state postgres` profile (trust auth, as in the test suite). */
export const SIM_POSTGRES = process.env.SIM_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Sandbox fault settings (see src/sandbox/faults.ts); every field is set, so a profile replaces the last one. */
export interface FaultSettings {
  readonly latency_ms: number;
  readonly latency_jitter_ms: number;
  readonly error_rate: number;
  readonly error_status: number;
  readonly rate_limit_per_second: number;
  readonly reset_rate: number;
  readonly reset_after_write_rate: number;
}

export const NO_FAULTS: FaultSettings = { latency_ms: 0, latency_jitter_ms: 0, error_rate: 0, error_status: 503, rate_limit_per_second: 0, reset_rate: 0, reset_after_write_rate: 0 };

/**
 * The products mapping at a version: the repo's test mapping (PRODUCT_MAPPING) with the name rule
 * of that version, and its stock choice (issue 43): `reserved` for the ERP's products (the
 * pipeline subtracts the shop's unbooked orders), `available` for the file deliveries (no shop
 * order takes their articles; the figure is sent as it is).
 */
export function productsMappingYaml(version: number, stock: 'reserved' | 'available' = 'reserved'): string {
  return `name: sim-products
direction: erp-to-shop
stock: ${stock}
target: { resource: products, operation: upsert }
key: sku
shop_key: products_model
fields:
  products_model: sku
  products_price: { from: price, type: decimal, locale: point }
  products_quantity: { from: qty, type: decimal, locale: point }
  products_status: { value: 1 }
  languages.de.products_name: ${MAPPING_VERSIONS[version]}
`;
}

const ORDERS_MAPPING = `name: sim-orders
direction: shop-to-erp
source: { resource: orders }
target: { erp: shop_orders }
key: orders_id
fields:
  orders_id: { from: orders_id, type: integer }
  name: { template: "{billing.firstname} {billing.lastname}", trim: true }
  lines:
    each: products
    fields:
      orders_id: { from: $root.orders_id, type: integer }
      pos: { from: $index, type: integer }
      model: products_model
      qty: { from: quantity, type: decimal, locale: point }
  status: { from: orders_status, type: integer }
  changes:
    each: _changes
    fields:
      orders_id: { from: $root.orders_id, type: integer }
      seq: { from: seq, type: integer }
      kind: kind
      status: { from: status, type: integer }
      previous: { from: previous_status, type: integer }
      comment: comment
      code: tracking_code
      provider: service_provider
      field: field
      detected_at: detected_at
`;

/** The longest billing name the ERP's import table takes: a longer one is a row it refuses. */
export const IMPORT_NAME_LIMIT = 24;

/** What varies between worlds. */
export interface WorldOptions {
  readonly sandbox: SandboxHandle;
  /** Where the state lives. @default 'sqlite' */
  readonly state?: 'sqlite' | 'postgres';
  /** The products source's `lookback` (the mutation "no lookback" sets 0). @default the engine's default */
  readonly lookback?: string;
}

/** One history's real system. */
export class World {
  readonly dir: string;
  readonly erpFile: string;
  readonly configFile: string;
  /** Where the ERP drops its files for the `files` pipeline. */
  readonly inbox: string;
  /** The simulation's own connection to the ERP: it writes products and reads the import table. */
  readonly erp: Database.Database;
  /** A client of its own for the customers and shop staff of the simulation (not the pipelines' client). */
  readonly staff: ShopClient;
  runtime!: Runtime;
  private faults: FaultSettings = NO_FAULTS;
  private mappingVersion = 0;
  private rateMode: 'adaptive' | 'fixed' = 'adaptive';
  private schema: string | undefined;
  /** Shop requests of in-process runs that failed on the network (resets and lost answers). */
  networkFailures = 0;
  /** Infrastructure faults of the in-process runtime (test/sim/faults.ts). */
  readonly infra: InfraFaults;
  /** How far the wall clock of this process has been stepped (ClockStep), in ms. */
  clockOffsetMs = 0;

  private constructor(
    readonly sandbox: SandboxHandle,
    readonly options: WorldOptions,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), 'shopsync-sim-'));
    this.erpFile = join(this.dir, 'erp.sqlite');
    this.inbox = join(this.dir, 'exchange', 'in');
    mkdirSync(this.inbox, { recursive: true });
    this.configFile = join(this.dir, 'shopsync.yaml');
    this.erp = new Database(this.erpFile);
    this.erp.pragma('journal_mode = WAL');
    this.erp.pragma('busy_timeout = 5000');
    this.infra = new InfraFaults(this.erpFile, options.state === 'postgres' ? undefined : join(this.dir, 'state.db'), new Set([this.erp]));
    this.staff = createShopClient({ baseUrl: sandbox.url, auth: { kind: 'token', token: sandbox.token }, rateLimit: { mode: 'fixed', concurrency: 4, intervalCap: 10_000, intervalMs: 1000 }, retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
  }

  /** Set up a fresh world on an emptied sandbox. */
  static async open(options: WorldOptions): Promise<World> {
    const w = new World(options.sandbox, options);
    await w.control('POST', '/sandbox/reset', { seed: 'empty' });
    await w.control('PUT', '/sandbox/faults', NO_FAULTS);
    await w.control('DELETE', '/sandbox/traffic');
    w.erp.exec(`
      CREATE TABLE products (id INTEGER PRIMARY KEY, sku TEXT UNIQUE, name TEXT, price TEXT, qty TEXT, updated_at TEXT);
      CREATE TABLE shop_orders (orders_id INTEGER PRIMARY KEY, name TEXT CHECK (length(name) <= ${IMPORT_NAME_LIMIT}), status INTEGER);
      CREATE TABLE shop_order_lines (orders_id INTEGER NOT NULL, pos INTEGER NOT NULL, model TEXT, qty TEXT, PRIMARY KEY (orders_id, pos));
      -- What the import table received, row by row: the pull's counts are held to it.
      -- The ERP's own bookings of shop orders (issue 43): written with the stock drop, read by the pipeline's booked.query.
      CREATE TABLE erp_bookings (orders_id INTEGER PRIMARY KEY, booked_at TEXT NOT NULL);
      CREATE TABLE receipts (seq INTEGER PRIMARY KEY AUTOINCREMENT, orders_id INTEGER, op TEXT, status INTEGER);
      CREATE TRIGGER receipt_insert AFTER INSERT ON shop_orders BEGIN INSERT INTO receipts (orders_id, op, status) VALUES (new.orders_id, 'insert', new.status); END;
      CREATE TRIGGER receipt_update AFTER UPDATE ON shop_orders BEGIN INSERT INTO receipts (orders_id, op, status) VALUES (new.orders_id, 'update', new.status); END;
      -- What changed in the shop after checkout (issue 44), one row per change, appended by the orders pull; the ERP marks
      -- a row processed when it acted on it. A row once written is never rewritten or deleted by the pull: change_receipts says if it was.
      CREATE TABLE shop_order_changes (orders_id INTEGER NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, status INTEGER, previous INTEGER, comment TEXT, code TEXT, provider TEXT, field TEXT, detected_at TEXT, processed INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (orders_id, seq));
      CREATE TABLE change_receipts (seq INTEGER PRIMARY KEY AUTOINCREMENT, orders_id INTEGER, nr INTEGER, op TEXT);
      CREATE TRIGGER change_rewrite AFTER UPDATE ON shop_order_changes WHEN new.processed IS old.processed BEGIN INSERT INTO change_receipts (orders_id, nr, op) VALUES (old.orders_id, old.seq, 'rewritten'); END;
      CREATE TRIGGER change_delete AFTER DELETE ON shop_order_changes BEGIN INSERT INTO change_receipts (orders_id, nr, op) VALUES (old.orders_id, old.seq, 'deleted (processed ' || old.processed || ')'); END;
    `);
    if (options.state === 'postgres') {
      w.schema = `sim_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    }
    w.writeFiles();
    useFaults(w.infra);
    await w.openRuntime();
    return w;
  }

  private writeFiles(): void {
    writeFileSync(join(this.dir, 'products.yaml'), productsMappingYaml(this.mappingVersion));
    writeFileSync(join(this.dir, 'files.yaml'), productsMappingYaml(this.mappingVersion, 'available'));
    writeFileSync(join(this.dir, 'orders.yaml'), ORDERS_MAPPING);
    const lookback = this.options.lookback !== undefined ? `, lookback: ${this.options.lookback}` : '';
    const state = this.schema ? `  kind: postgres\n  url: ${this.stateUrl()}\n  schema: ${this.schema}\n` : '  path: state.db\n';
    writeFileSync(
      this.configFile,
      `# written by test/sim/world.ts
shop:
  baseUrl: \${SHOP_URL}
  token: \${SHOP_TOKEN}
  rateLimit: { requests: 1000, intervalMs: 1000, mode: ${this.rateMode} }
  concurrency: 4
  batchSize: 4
  retry: { retries: 8, baseDelayMs: 5, maxDelayMs: 200 }
connections:
  erp: { kind: sqlite, path: erp.sqlite }
  drop: { kind: files, folder: exchange }
pipelines:
  - name: products
    direction: push
    resource: products
    mapping: products.yaml
    batchSize: 4
    source: { connection: erp, query: "SELECT sku, name, price, qty, updated_at FROM products", cursor: updated_at, key: sku${lookback} }
    options: { pageSize: 6, concurrency: 3 }
    reservations:
      booked: { query: "SELECT orders_id FROM erp_bookings WHERE orders_id IN (:orders)" }
      alertAfter: 24h
  - name: files
    direction: push
    resource: products
    mapping: files.yaml
    batchSize: 4
    source: { connection: drop, folder: in, format: csv, key: sku }
    options: { pageSize: 6, concurrency: 3 }
  - name: orders
    direction: pull
    resource: orders
    mapping: orders.yaml
    sink:
      connection: erp
      table: shop_orders
      key: orders_id
      children:
        - { field: lines, table: shop_order_lines, key: [orders_id, pos], parentKey: orders_id }
        - { field: changes, table: shop_order_changes, key: [orders_id, seq], parentKey: orders_id, append: true }
    follow: { every: ${FOLLOW.every}, until: [${FOLLOW.until.join(', ')}], cancelled: [${FOLLOW.cancelled.join(', ')}], returned: [${FOLLOW.returned.join(', ')}], maxAgeDays: ${FOLLOW.maxAgeDays} }
    options: { sinkBatchSize: 3, shopTimeZone: UTC }
state:
${state}`,
    );
  }

  /** The state's URL, its sessions named after the world (application_name), so a restart can end exactly those. */
  private stateUrl(): string {
    const url = new URL(SIM_POSTGRES);
    url.searchParams.set('application_name', this.schema!);
    return url.toString();
  }

  /**
   * The PostgreSQL state server restarts, as the clients see it: every session of this world (the
   * in-process runtime's and any CLI process's) is ended by the server (`pg_terminate_backend`, the
   * same FATAL 57P01 a shutdown sends), and new connections are taken at once. Resolves with the
   * number of sessions ended; 0 on a SQLite state.
   */
  async restartState(): Promise<number> {
    if (!this.schema) return 0;
    const client = new pg.Client({ connectionString: SIM_POSTGRES });
    await client.connect();
    try {
      const r = await client.query<{ n: string }>('SELECT count(pg_terminate_backend(pid))::text AS n FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()', [this.schema]);
      return Number(r.rows[0]?.n ?? 0);
    } finally {
      await client.end();
    }
  }

  private async openRuntime(): Promise<void> {
    const loaded = await loadConfig(this.configFile, { env: this.env });
    this.runtime = await openRuntime(loaded, {
      logger: silentLogger,
      onClientEvent: (e) => {
        if (e.type === 'request' && e.status === 'network') this.networkFailures++;
      },
    });
  }

  /** The environment the config reads (the shop's token, as a secret is given). */
  get env(): Record<string, string> {
    return { SHOP_TOKEN: this.sandbox.token, SHOP_URL: this.sandbox.url };
  }

  /** Switch the products mapping or the rate limit's mode (the in-process runtime opens again, as a restarted daemon would). */
  async reconfigure(change: { readonly mappingVersion?: number; readonly rateMode?: 'adaptive' | 'fixed' }): Promise<void> {
    this.mappingVersion = change.mappingVersion ?? this.mappingVersion;
    this.rateMode = change.rateMode ?? this.rateMode;
    await this.runtime.close();
    this.writeFiles();
    await this.openRuntime();
  }

  /**
   * The ERP delivers a finished CSV file into the inbox, written a minute ago (settled: the inbox
   * takes it at once); returns whether it replaced a delivery of that name nobody had picked up.
   */
  dropFile(name: string, rows: readonly { sku: string; name: string; price: string; qty: string }[]): boolean {
    const file = join(this.inbox, name);
    const replaced = existsSync(file);
    writeFileSync(file, `sku,name,price,qty\n${rows.map((r) => `${r.sku},${r.name},${r.price},${r.qty}`).join('\n')}\n`);
    const at = new Date(Date.now() - 60_000);
    utimesSync(file, at, at);
    return replaced;
  }

  /** Whether a delivery of that name is still waiting in the inbox (not yet claimed by a run). */
  waiting(name: string): boolean {
    return existsSync(join(this.inbox, name));
  }

  /** A request to the sandbox's control endpoints (never faulted). */
  async control(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${this.sandbox.url}${path}`, { method, headers: { authorization: `Bearer ${this.sandbox.token}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    if (!res.ok) throw new Error(`sandbox ${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  }

  /** Put a fault profile in force until the next one. */
  async setFaults(faults: FaultSettings): Promise<void> {
    this.faults = faults;
    await this.control('PUT', '/sandbox/faults', faults);
  }

  get faultsOn(): boolean {
    const f = this.faults;
    return f.error_rate > 0 || f.rate_limit_per_second > 0 || f.reset_rate > 0 || f.reset_after_write_rate > 0;
  }

  /**
   * Do something at the shop as its staff or customers, or look at it to check: faults are
   * lifted for that moment and put back after (the fault counters start again, which a replay repeats).
   */
  async unfaulted<T>(fn: () => Promise<T>): Promise<T> {
    const restore = this.faultsOn || this.faults.latency_ms > 0;
    if (restore) await this.control('PUT', '/sandbox/faults', NO_FAULTS);
    try {
      return await fn();
    } finally {
      if (restore) await this.control('PUT', '/sandbox/faults', this.faults);
    }
  }

  /** The shop's products (every page), faults lifted. */
  async shopProducts(): Promise<Record<string, unknown>[]> {
    return this.unfaulted(async () => {
      const out: Record<string, unknown>[] = [];
      for await (const p of this.staff.exportAll('products')) out.push(p);
      return out;
    });
  }

  /** The shop's orders (every page), faults lifted. */
  async shopOrders(): Promise<Record<string, unknown>[]> {
    return this.unfaulted(async () => {
      const out: Record<string, unknown>[] = [];
      for await (const o of this.staff.exportAll('orders')) out.push(o);
      return out;
    });
  }

  /** The sandbox's traffic counts. */
  async traffic(): Promise<{ requests: number; rate_limited: number }> {
    return (await this.control('GET', '/sandbox/traffic')) as { requests: number; rate_limited: number };
  }

  /** Every run row of this world's state, oldest first. */
  async runs(): Promise<RunRecord[]> {
    return (await this.runtime.state.runs.list({ limit: 100_000 })).sort((a, b) => a.id - b.id);
  }

  /**
   * The wall clock of this process jumps by `ms` (NTP stepping it, a VM resumed): Date moves, the
   * monotonic clock (timers, performance.now) does not, as on a real host. The sandbox runs in
   * this process but stands for a shop elsewhere, so its clock is moved back by as much.
   */
  async stepClock(ms: number): Promise<void> {
    this.clockOffsetMs += ms;
    stepWallClock(ms);
    await this.control('PUT', '/sandbox/clock', { advance_seconds: -ms / 1000 });
  }

  /**
   * Time passes for everyone (the shop and this process): both clocks move on together, so orders
   * placed before are that much older when the next pull starts. Never undone: time only goes on.
   */
  elapse(ms: number): void {
    stepWallClock(ms);
  }

  async close(): Promise<void> {
    this.infra.clear();
    await this.runtime.close().catch(() => undefined);
    await this.staff.close().catch(() => undefined);
    // The shop catches up instead of this process going back: Date never runs backwards between
    // histories (the sandbox, shared by them, keeps windows and pauses on it), and the next world
    // starts with its clock and the shop's agreeing again.
    if (this.clockOffsetMs !== 0) await this.control('PUT', '/sandbox/clock', { advance_seconds: this.clockOffsetMs / 1000 }).catch(() => undefined);
    this.erp.close();
    if (this.schema) {
      const client = new pg.Client({ connectionString: SIM_POSTGRES });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`);
        await client.query(`DROP SCHEMA IF EXISTS "${this.schema}_jobs" CASCADE`);
      } finally {
        await client.end();
      }
    }
    useFaults(undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
