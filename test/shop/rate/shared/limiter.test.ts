/**
 * The shared limiter on a real PostgreSQL state schema: two handles with pools of their own stand
 * for two replicas (the multi-process behaviour is in replicas.test.ts).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSharedRateLimits, sharedBudget, StoreRateLimiter, type SharedRateLimits } from '../../../../src/shop/rate/index.js';
import { requireService } from '../../../support/services.js';

const service = await requireService('postgres');
const url = `postgres://${service.user}@${service.host}:${service.port}/${service.database}`;
const schema = `shopsync_limiter_${randomBytes(5).toString('hex')}`;
const opened: SharedRateLimits[] = [];

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** One replica's handle on the shared budgets. */
async function replica(): Promise<SharedRateLimits> {
  const limits = await openSharedRateLimits({ url, schema });
  opened.push(limits);
  return limits;
}

let shopNo = 0;
/** A shop name of its own per test (the key of its budget). */
const freshShop = () => `shop${++shopNo}`;

describe.skipIf(!service.available)('shared rate limiter on PostgreSQL', () => {
  beforeAll(async () => {
    await admin((c) => c.query(`CREATE SCHEMA ${pg.escapeIdentifier(schema)}`));
  });
  afterAll(async () => {
    for (const limits of opened) await limits.close();
    await admin((c) => c.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`));
  });

  it('keeps its budgets in a table of the state schema, one row per shop', async () => {
    const limits = await replica();
    const shop = freshShop();
    const limiter = await limits.forShop(shop, { requests: 5, intervalMs: 1000 });
    await limiter.acquire();
    const rows = await admin((c) => c.query(`SELECT key, points FROM ${pg.escapeIdentifier(schema)}.shop_rate_limits WHERE key = $1`, [`shop:${shop}`]));
    expect(rows.rows).toEqual([{ key: `shop:${shop}`, points: 1 }]);
  });

  it('makes a second replica wait for the slot the first one took', async () => {
    const shop = freshShop();
    const caps = { requests: 2, intervalMs: 1000 };
    const [one, two] = [await (await replica()).forShop(shop, caps), await (await replica()).forShop(shop, caps)];
    expect(await one.acquire()).toMatchObject({ refusals: 0 });
    const second = await two.acquire();
    expect(second.refusals).toBeGreaterThan(0);
    expect(second.waitedMs).toBeGreaterThanOrEqual(sharedBudget(2, 1000).slotMs - 50);
  });

  it('stops waiting when the request is aborted, and lets the next request of the process have its turn', async () => {
    const limiter = await (await replica()).forShop(freshShop(), { requests: 1, intervalMs: 1000 });
    await limiter.acquire();
    const stop = new AbortController();
    const waiting = limiter.acquire({ signal: stop.signal });
    setTimeout(() => stop.abort(new Error('stopped by the test')), 100);
    const started = Date.now();
    await expect(waiting).rejects.toThrow('stopped by the test');
    expect(Date.now() - started).toBeLessThan(800);
    const next = await limiter.acquire();
    expect(next.refusals).toBeGreaterThan(0);
  });

  it('tells another replica about a 429 pause once, and not the replica that wrote it', async () => {
    const shop = freshShop();
    const caps = { requests: 50, intervalMs: 1000 };
    const [one, two] = [await (await replica()).forShop(shop, caps), await (await replica()).forShop(shop, caps)];
    await one.pause(600);
    const heardByTwo: number[] = [];
    const heardByOne: number[] = [];
    const started = Date.now();
    const [resultTwo] = await Promise.all([two.acquire({ onPause: (ms) => heardByTwo.push(ms) }), two.acquire({ onPause: (ms) => heardByTwo.push(ms) }), one.acquire({ onPause: (ms) => heardByOne.push(ms) })]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
    expect(resultTwo.refusals).toBeGreaterThan(0);
    expect(heardByTwo).toHaveLength(1);
    expect(heardByTwo[0]).toBeGreaterThan(400);
    expect(heardByTwo[0]).toBeLessThanOrEqual(600);
    expect(heardByOne).toEqual([]);
  });

  it('never shortens a longer pause with a shorter one', async () => {
    const shop = freshShop();
    const caps = { requests: 50, intervalMs: 1000 };
    const [one, two] = [await (await replica()).forShop(shop, caps), await (await replica()).forShop(shop, caps)];
    await one.pause(900);
    await two.pause(100);
    const started = Date.now();
    await two.acquire();
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
  });

  it('fails a request with RATE_LIMITER_UNAVAILABLE when the store cannot be reached', async () => {
    // A pool on a port nothing listens on: every consume fails like a state database that went away.
    const pool = new pg.Pool({ connectionString: `postgres://${service.user}@127.0.0.1:9/${service.database}`, connectionTimeoutMillis: 500 });
    try {
      const store = new RateLimiterPostgres({ storeClient: pool, storeType: 'pool', schemaName: schema, tableName: 'shop_rate_limits', tableCreated: true, keyPrefix: 'shop', points: 1, duration: 1, clearExpiredByTimeout: false });
      const limiter = new StoreRateLimiter(store, 'gone', sharedBudget(1, 1000));
      await expect(limiter.acquire()).rejects.toMatchObject({ code: 'RATE_LIMITER_UNAVAILABLE', retryable: true });
    } finally {
      await pool.end();
    }
  });
});
