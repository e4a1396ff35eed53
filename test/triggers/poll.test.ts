import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { startDaemon, type Daemon } from '../../src/ops/daemon.js';
import { productsMapping } from '../support/mappings.js';
import { useSandbox } from '../support/sandbox.js';
import { requireService } from '../support/services.js';
import { tempDir } from '../support/tmp.js';
import { sleep, until } from '../support/wait.js';

const service = await requireService('mariadb');
const sandbox = useSandbox();
const table = `poll_items_${process.pid}`;

async function shopModels(prefix: string): Promise<string[]> {
  const res = await fetch(`${sandbox.url}/export/json/products?limit=250`, { headers: { authorization: `Bearer ${sandbox.token}` } });
  const body = (await res.json()) as { data: { products_model: string }[] };
  return body.data.map((p) => p.products_model).filter((m) => m.startsWith(prefix));
}

/** Shop requests the daemon's client made so far (every resource, method and status). */
async function shopRequests(daemon: Daemon): Promise<number> {
  const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
  return [...metrics.matchAll(/^shopsync_shop_request_duration_seconds_count\{[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
}

describe.skipIf(!service.available)('short polling of a MariaDB source (trigger.poll)', () => {
  let admin: mysql.Connection;
  beforeAll(async () => {
    admin = await mysql.createConnection({ host: service.host, port: service.port, user: service.user, database: service.database });
    await admin.query(`DROP TABLE IF EXISTS \`${table}\``);
    await admin.query(`CREATE TABLE \`${table}\` (sku VARCHAR(40) PRIMARY KEY, name VARCHAR(100), price DECIMAL(10,2), qty INT, updated_at DATETIME(6) NOT NULL, INDEX by_change (updated_at, sku))`);
    await admin.query(`INSERT INTO \`${table}\` VALUES ('POLL-1', 'Eins', 1.50, 3, NOW(6)), ('POLL-2', 'Zwei', 2.50, 4, NOW(6))`);
  });
  afterAll(async () => {
    await admin?.query(`DROP TABLE IF EXISTS \`${table}\``);
    await admin?.end();
  });

  it('brings an INSERT to the shop without a schedule, and while nothing changes starts no run and sends no shop request', async () => {
    const dir = tempDir('shopsync-poll-');
    writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
    const text = `shop: { baseUrl: "${sandbox.url}", token: "\${T}", retry: { baseDelayMs: 5 } }
connections: { erp: { kind: mysql, host: ${service.host}, port: ${service.port}, user: ${service.user}, database: ${service.database} } }
pipelines:
  - name: products
    direction: push
    resource: products
    mapping: p.yaml
    source: { connection: erp, query: "SELECT sku, name, price, qty, updated_at FROM ${table}", cursor: updated_at, key: sku }
    trigger: { poll: 500ms, debounce: 50ms }
state: { path: state.db }
dashboard: { port: 0 }
`;
    const daemon = await startDaemon(parseConfigText(text, join(dir, 'shopsync.yaml'), { env: { T: sandbox.token } }), { logger: silentLogger });
    try {
      // No cursor yet: the first probe finds rows and wakes the first run.
      await until(async () => (await shopModels('POLL-')).length === 2, 15_000);
      await until(async () => (await daemon.runtime.state.runs.list({ pipeline: 'products', status: 'running' })).length === 0, 10_000);
      await sleep(600);

      const runsBefore = (await daemon.runtime.state.runs.list({ pipeline: 'products' })).length;
      const requestsBefore = await shopRequests(daemon);
      await sleep(3000); // six probes
      // Another test file's transaction open on the shared MariaDB server holds the cursor back (the
      // watermark, key null), so the probe may see the held rows once; the hold then spaces its
      // wake-ups (5 s and up). Six probes, at most one run, and never a shop request.
      expect((await daemon.runtime.state.runs.list({ pipeline: 'products' })).length).toBeLessThanOrEqual(runsBefore + 1);
      expect(await shopRequests(daemon)).toBe(requestsBefore);
      expect(daemon.triggers()?.status()).toEqual([expect.objectContaining({ pipeline: 'products', kind: 'poll', state: 'polling' })]);

      await admin.query(`INSERT INTO \`${table}\` VALUES ('POLL-3', 'Drei', 3.50, 5, NOW(6))`);
      await until(async () => (await shopModels('POLL-')).length === 3, 10_000);
      const runs = await daemon.runtime.state.runs.list({ pipeline: 'products' });
      expect(runs.length).toBeGreaterThan(runsBefore);
      expect(runs.some((r) => r.counts.created === 1)).toBe(true);
    } finally {
      await daemon.close();
    }
  });
});

describe('short polling while runs cannot move the cursor', () => {
  it('does not wake the pipeline at every probe when the shop is down, but holds back while the cursor stays', async () => {
    const dir = tempDir('shopsync-poll-hold-');
    const erp = new Database(join(dir, 'erp.sqlite'));
    erp.exec("CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty TEXT, updated_at TEXT); INSERT INTO products VALUES ('HOLD-1','Eins','1.00','3','2026-01-01T00:00:00')");
    erp.close();
    writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
    // Port 9 (discard) answers nothing here: every run fails before it can move the cursor.
    const text = `shop: { baseUrl: "http://127.0.0.1:9/api", token: "t0123456789", retry: { retries: 0, baseDelayMs: 5 } }
connections: { erp: { kind: sqlite, path: erp.sqlite } }
pipelines:
  - { name: products, direction: push, resource: products, mapping: p.yaml, source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku }, trigger: { poll: 200ms, debounce: 10ms } }
state: { path: state.db }
dashboard: { port: 0 }
daemon: { readyNeedsShop: false }
`;
    const daemon = await startDaemon(parseConfigText(text, join(dir, 'shopsync.yaml'), { env: {} }), { logger: silentLogger });
    try {
      await until(async () => (await daemon.runtime.state.runs.list({ pipeline: 'products' })).some((r) => r.status !== 'running'), 10_000);
      await sleep(3000); // fifteen probes, each finding the row after the (absent) cursor
      const runs = await daemon.runtime.state.runs.list({ pipeline: 'products' });
      expect(runs.every((r) => r.status !== 'succeeded')).toBe(true);
      expect(await daemon.runtime.state.cursors.get('products')).toBeUndefined();
      // The first run, and at most the follow-up of a probe during it; the next wake-up waits 5 s.
      expect(runs.length).toBeLessThanOrEqual(2);
    } finally {
      await daemon.close();
    }
  });
});
