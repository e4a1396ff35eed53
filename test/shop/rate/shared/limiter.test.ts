/**
 * The shared limiter on a real PostgreSQL state schema: two handles with pools of their own stand
 * for two replicas (the multi-process behaviour is in replicas.test.ts).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSharedRateLimits, sharedBudget, StoreRateLimiter, type BudgetStore, type SharedRateLimits } from '../../../../src/shop/rate/index.js';
import { PgBudgetStore } from '../../../../src/shop/rate/shared/pgStore.js';
import { RATE_LIMIT_TABLE } from '../../../../src/shop/rate/shared/postgres.js';
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

/** `store`, calling `onRefused` each time a consume is refused (the slot is full): the test's latch on "it is waiting now". */
function watched(store: BudgetStore, onRefused: () => void): BudgetStore {
  return {
    consume: async (key, points) => {
      try {
        return await store.consume(key, points);
      } catch (err) {
        if (err instanceof RateLimiterRes) onRefused();
        throw err;
      }
    },
    get: (key) => store.get(key),
    set: (key, points, secDuration) => store.set(key, points, secDuration),
  };
}

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
    // Measured from before the first point: "two held its point no sooner than one slot after one's" holds at any
    // speed (two may ask late and find a new slot; it can never get into the slot one filled).
    const before = performance.now();
    expect(await one.acquire()).toMatchObject({ refusals: 0 });
    const second = await two.acquire();
    expect(performance.now() - before).toBeGreaterThanOrEqual(sharedBudget(2, 1000).slotMs - 50);
    if (process.env.SHOW_FIGURES) console.info(`second replica: ${second.refusals} refusals, waited ${Math.round(second.waitedMs)} ms`);
  });

  it('stops waiting when the request is aborted, and lets the next request of the process have its turn', async () => {
    // A slot of a minute (beyond the test's timeout): a wait that ignored the abort could not end in time, so no clock is
    // read. The aborts come on refusals the store reported (the request is waiting), not after a guessed delay.
    await replica(); // the budget table
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    try {
      const budget = sharedBudget(1, 60_000);
      let refused = () => {};
      const store = watched(new PgBudgetStore({ pool, schema, table: RATE_LIMIT_TABLE, keyPrefix: 'shop', points: budget.pointsPerSlot, slotMs: budget.slotMs }), () => refused());
      const limiter = new StoreRateLimiter(store, freshShop(), budget);
      await limiter.acquire();
      const stop = new AbortController();
      refused = () => stop.abort(new Error('stopped by the test'));
      await expect(limiter.acquire({ signal: stop.signal })).rejects.toThrow('stopped by the test');
      // The next request asks the store itself (refused: the minute's slot is still full), not behind the aborted one.
      const stopNext = new AbortController();
      let asked = 0;
      refused = () => {
        asked++;
        stopNext.abort(new Error('next stopped by the test'));
      };
      await expect(limiter.acquire({ signal: stopNext.signal })).rejects.toThrow('next stopped by the test');
      expect(asked).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it('tells another replica about a 429 pause once, and not the replica that wrote it', async () => {
    const shop = freshShop();
    const caps = { requests: 50, intervalMs: 1000 };
    const [one, two] = [await (await replica()).forShop(shop, caps), await (await replica()).forShop(shop, caps)];
    // Clocks read before the pause is written: the bounds below then hold however long each step takes.
    const started = performance.now();
    await one.pause(600);
    const heardByTwo: number[] = [];
    const heardByOne: number[] = [];
    let heardAt = 0;
    const onPauseTwo = (ms: number) => {
      heardAt = performance.now();
      heardByTwo.push(ms);
    };
    const [resultTwo] = await Promise.all([two.acquire({ onPause: onPauseTwo }), two.acquire({ onPause: onPauseTwo }), one.acquire({ onPause: (ms) => heardByOne.push(ms) })]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(550);
    expect(resultTwo.refusals).toBeGreaterThan(0);
    expect(heardByTwo).toHaveLength(1);
    // What was left of the pause when two met it: at most the 600 ms, at least what remained of them by then.
    expect(heardByTwo[0]).toBeLessThanOrEqual(600);
    expect(heardByTwo[0]).toBeGreaterThanOrEqual(600 - (heardAt - started) - 50);
    expect(heardByOne).toEqual([]);
  });

  it('never shortens a longer pause with a shorter one', async () => {
    const shop = freshShop();
    const caps = { requests: 50, intervalMs: 1000 };
    const [one, two] = [await (await replica()).forShop(shop, caps), await (await replica()).forShop(shop, caps)];
    // From before the longer pause was written: two waits for its end however slow the writes were.
    const started = performance.now();
    await one.pause(900);
    await two.pause(100);
    await two.acquire();
    expect(performance.now() - started).toBeGreaterThanOrEqual(850);
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
