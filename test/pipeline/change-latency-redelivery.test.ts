/**
 * Change latency measures changes (issue 40, item 6): only the first delivery of a source version
 * is a change latency. A row delivered within a second and read again by the lookback minutes
 * later, then sent again (here because the mapping gained a field meanwhile; in the issue because
 * two rows shared a key), is no late change: the dashboard's p95 stays at the first delivery's. On
 * SQLite, PostgreSQL and MariaDB sources, whose timestamp cursors differ (text, timestamptz,
 * DATETIME(6)).
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSource } from '../../src/erp/index.js';
import type { Source } from '../../src/erp/types.js';
import { silentLogger } from '../../src/log.js';
import { runPipeline, SyncEvents } from '../../src/pipeline/index.js';
import { recentLatency } from '../../src/pipeline/latency.js';
import { requireService } from '../support/services.js';
import { mappingFile, pushFixture, PRODUCT_MAPPING, type PushFixture } from './support.js';

const postgres = await requireService('postgres');
const mariadb = await requireService('mariadb');

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
});
afterEach(async () => {
  vi.useRealTimers();
  await f.close();
});

/** An ERP table of articles whose change column its database (or the test, for SQLite) stamps. */
interface Erp {
  /** Write an article changed long before the lookback window (the catalog the first sync takes). */
  old(sku: string): Promise<void>;
  /** Write an article changed now, by the database's clock. */
  changeNow(sku: string): Promise<void>;
  source(): () => Promise<Source>;
}

const WITH_SORT_ORDER = PRODUCT_MAPPING.replace('  products_status: { value: 1 }\n', '  products_status: { value: 1 }\n  products_sort_order: { value: 3 }\n');

async function redelivery(erp: Erp, name: string) {
  const def = { name, direction: 'push' as const, source: { connection: 'erp' }, mapping: 'p.yaml', resource: 'products' };
  const events = new SyncEvents();
  const observed: number[] = [];
  events.on('changes-delivered', (e) => observed.push(...e.seconds));
  const deps = { state: f.state, shop: f.shop, source: erp.source(), events };
  await erp.old('R-0');
  const first = await runPipeline(def, { ...deps, mapping: await mappingFile(f.dir, 'p', PRODUCT_MAPPING) });
  expect(first.counts.created).toBe(1);
  await erp.changeNow('R-1');
  const second = await runPipeline(def, { ...deps, mapping: await mappingFile(f.dir, 'p', PRODUCT_MAPPING) });
  expect(second.counts.created).toBe(1);
  const atFirst = (await recentLatency(f.state)).get(name);

  // Four minutes later the mapping sends one field more; the lookback reads R-1 again, and it goes out again.
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(Date.now() + 240_000);
  const third = await runPipeline(def, { ...deps, mapping: await mappingFile(f.dir, 'p', WITH_SORT_ORDER) });
  const later = (await recentLatency(f.state)).get(name);
  return { observed, atFirst, third, later };
}

function expectOnlyTheFirstDelivery(r: Awaited<ReturnType<typeof redelivery>>): void {
  expect(r.atFirst?.changes).toBe(1);
  expect(r.atFirst!.p95Seconds).toBeLessThan(60);
  // R-1 was sent again (its payload changed), unchanged in the ERP since its first delivery.
  expect(r.third.counts.updated).toBe(1);
  expect(r.observed).toHaveLength(1);
  expect(r.later).toEqual(r.atFirst);
}

describe('change latency of a row delivered again from a SQLite source', () => {
  it('counts only the first delivery of the version, so p95 stays at its latency', async () => {
    const file = join(f.dir, 'latency.sqlite');
    const db = new Database(file);
    db.exec('CREATE TABLE art (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty INTEGER, updated_at TEXT)');
    const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 23).replace('T', ' ');
    const put = (sku: string, at: string) => db.prepare("INSERT OR REPLACE INTO art VALUES (?, ?, '5.00', 1, ?)").run(sku, sku, at);
    const erp: Erp = {
      old: async (sku) => void put(sku, stamp(Date.now() - 7_200_000)),
      changeNow: async (sku) => void put(sku, stamp(Date.now())),
      source: () => () => createSource({ kind: 'sqlite', path: file }, { query: 'SELECT * FROM art', cursor: 'updated_at', key: 'sku', lookback: '30m' } as never, { logger: silentLogger, baseDir: '/' }),
    };
    try {
      expectOnlyTheFirstDelivery(await redelivery(erp, 'lat-sqlite'));
    } finally {
      db.close();
    }
  });
});

describe.skipIf(!postgres.available)('change latency of a row delivered again from a PostgreSQL source', () => {
  let admin: pg.Client;
  const table = `lat_art_${process.pid}`;
  beforeAll(async () => {
    admin = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database });
    await admin.connect();
    await admin.query(`DROP TABLE IF EXISTS "${table}"`);
    await admin.query(`CREATE TABLE "${table}" (sku TEXT PRIMARY KEY, name TEXT, price NUMERIC(10,2), qty INT, updated_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
  });
  afterAll(async () => {
    await admin.query(`DROP TABLE IF EXISTS "${table}"`);
    await admin.end();
  });

  it('counts only the first delivery of the version, so p95 stays at its latency', async () => {
    const erp: Erp = {
      old: async (sku) => void (await admin.query(`INSERT INTO "${table}" VALUES ($1, $1, 5, 1, now() - interval '2 hours')`, [sku])),
      changeNow: async (sku) => void (await admin.query(`INSERT INTO "${table}" VALUES ($1, $1, 5, 1, now())`, [sku])),
      source: () => () =>
        createSource({ kind: 'postgres', host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database }, { query: `SELECT * FROM "${table}"`, cursor: 'updated_at', key: 'sku', lookback: '30m' } as never, { logger: silentLogger, baseDir: '/', env: {} }),
    };
    expectOnlyTheFirstDelivery(await redelivery(erp, 'lat-pg'));
  });
});

describe.skipIf(!mariadb.available)('change latency of a row delivered again from a MariaDB source', () => {
  let admin: mysql.Connection;
  const table = `lat_art_${process.pid}`;
  beforeAll(async () => {
    admin = await mysql.createConnection({ host: mariadb.host, port: mariadb.port, user: mariadb.user, database: mariadb.database });
    await admin.query(`DROP TABLE IF EXISTS \`${table}\``);
    await admin.query(`CREATE TABLE \`${table}\` (sku VARCHAR(20) PRIMARY KEY, name TEXT, price DECIMAL(10,2), qty INT, updated_at DATETIME(6) NOT NULL)`);
  });
  afterAll(async () => {
    await admin.query(`DROP TABLE IF EXISTS \`${table}\``);
    await admin.end();
  });

  it('counts only the first delivery of the version, so p95 stays at its latency', async () => {
    const erp: Erp = {
      old: async (sku) => void (await admin.query(`INSERT INTO \`${table}\` VALUES (?, ?, 5, 1, NOW(6) - INTERVAL 2 HOUR)`, [sku, sku])),
      changeNow: async (sku) => void (await admin.query(`INSERT INTO \`${table}\` VALUES (?, ?, 5, 1, NOW(6))`, [sku, sku])),
      source: () => () =>
        createSource({ kind: 'mysql', host: mariadb.host, port: mariadb.port, user: mariadb.user, database: mariadb.database }, { query: `SELECT * FROM \`${table}\``, cursor: 'updated_at', key: 'sku', lookback: '30m' } as never, { logger: silentLogger, baseDir: '/', env: {} }),
    };
    expectOnlyTheFirstDelivery(await redelivery(erp, 'lat-maria'));
  });
});
