/**
 * The watermark of a SQL source: the start of the oldest transaction still open in the ERP's
 * database, which the cursor never passes. Held while a transaction is open, released when it
 * commits or rolls back; a user the database will not tell gets "lookback only" and why.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSource } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { capOf } from '../../src/pipeline/sourceWatermark.js';
import { requireService } from '../support/services.js';

const postgres = await requireService('postgres');

describe.skipIf(!postgres.available)('the PostgreSQL watermark', () => {
  // A database of its own: other test files' transactions in `test` would hold the watermark too.
  const database = `shopsync_wm_${process.pid}`;
  const role = `shopsync_wm_nostats_${process.pid}`;
  let admin: pg.Client;
  const connect = (user = postgres.user) => new pg.Client({ host: postgres.host, port: postgres.port, user, database });
  const source = (user = postgres.user) =>
    createSource({ kind: 'postgres', host: postgres.host, port: postgres.port, user, database }, { query: 'SELECT * FROM art', cursor: 'changed', key: 'sku' } as never, { logger: silentLogger, baseDir: '/', env: {} });

  beforeAll(async () => {
    admin = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${database}"`);
    await admin.query(`CREATE DATABASE "${database}"`);
    await admin.query(`DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE "${role}" LOGIN; END IF; END $$`);
    const setup = connect();
    await setup.connect();
    await setup.query('CREATE TABLE art (sku TEXT PRIMARY KEY, changed TIMESTAMPTZ NOT NULL DEFAULT now())');
    await setup.query(`GRANT SELECT ON art TO "${role}"`);
    await setup.end();
  });
  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS "${role}"`);
    await admin.end();
  });

  for (const end of ['COMMIT', 'ROLLBACK'] as const) {
    it(`holds the bound at an open transaction's start and releases it after ${end}`, async () => {
      const src = await source();
      const clerk = connect();
      await clerk.connect();
      try {
        await clerk.query('BEGIN');
        const started = String((await clerk.query<{ s: string }>("SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') AS s")).rows[0]?.s);
        await clerk.query("INSERT INTO art (sku) VALUES ('L-1') ON CONFLICT (sku) DO UPDATE SET changed = now()");
        await new Promise((r) => setTimeout(r, 1200));
        const held = await src.watermark!();
        expect(held.by).toBe('transactions');
        expect(Date.parse(held.openSince!)).toBe(Date.parse(started));
        expect(held.bound?.zoned).toBe(held.openSince);
        // A row stamped after the clerk began (read and delivered now) does not move the cursor past the clerk's start.
        const cap = capOf(held)!;
        // Written like the row's value: milliseconds, the bound's microseconds cut (earlier, never later).
        expect(cap({ value: new Date(Date.parse(started) + 500).toISOString(), key: 'L-2' })).toEqual({ value: new Date(Date.parse(held.bound!.zoned)).toISOString(), key: null });
        expect(cap({ value: new Date(Date.parse(started) - 500).toISOString(), key: 'L-0' })).toEqual({ value: new Date(Date.parse(started) - 500).toISOString(), key: 'L-0' });
        await clerk.query(end);
        const released = await src.watermark!();
        expect(released.openSince).toBeUndefined();
        expect(Date.parse(released.bound!.zoned)).toBeGreaterThan(Date.parse(started));
      } finally {
        await clerk.end();
        await src.close();
      }
    });
  }

  it('says "lookback only" and which grant is missing to a user without pg_read_all_stats', async () => {
    const src = await source(role);
    try {
      const wm = await src.watermark!();
      expect(wm).toMatchObject({ by: 'lookback' });
      expect(wm.reason).toMatch(/GRANT pg_read_all_stats TO/);
      expect(capOf(wm)).toBeUndefined();
    } finally {
      await src.close();
    }
  });
});
