/**
 * Shared budgets on the PostgreSQL state: rate-limiter-flexible's table (`shop_rate_limits`: key,
 * points, expire) in the state's schema, worked by a store of our own (pgStore.ts) whose slots
 * open and expire on the database's clock, never a replica's: a replica whose clock is behind or
 * ahead waits exactly as long as the others. On a small pool of its own (the named statements and
 * short upserts stay off the state's connections).
 */
import pg from 'pg';
import { ConfigError } from '../../../errors.js';
import { silentLogger, type Logger } from '../../../log.js';
import { sharedBudget } from './budget.js';
import { StoreRateLimiter, type SharedRateLimiter } from './limiter.js';
import { PgBudgetStore } from './pgStore.js';
import { translatePg } from '../../../state/postgres/faults.js';
import { redactUrl } from '../../../util/net.js';

/** The table of the shared budgets, in the state's schema. */
export const RATE_LIMIT_TABLE = 'shop_rate_limits';

/** A PostgreSQL database and the schema the budgets' table goes into (the state's). */
export interface PostgresBudgetLocation {
  readonly url: string;
  readonly schema: string;
}

/** A shop's configured rate: the budget of all processes together. */
export interface SharedRateCaps {
  /** Requests per `intervalMs` for every process together. */
  readonly requests: number;
  readonly intervalMs: number;
}

/** The shared budgets of one deployment's shops; `close()` ends its connections. */
export interface SharedRateLimits {
  /** The shared limiter of one shop (creates the table on first use). */
  forShop(shop: string, caps: SharedRateCaps): Promise<SharedRateLimiter>;
  close(): Promise<void>;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Open the shared budgets on a PostgreSQL database (the state's). */
export function openPostgresRateLimits(location: PostgresBudgetLocation, options: { readonly logger?: Logger } = {}): SharedRateLimits {
  // rate-limiter-flexible quotes the schema but does not escape it: only plain identifiers (as the state requires too).
  if (!IDENTIFIER.test(location.schema)) throw new ConfigError(`state schema \`${location.schema}\` is not a plain identifier; use letters, digits and _`, { key: 'state.schema' });
  const logger = (options.logger ?? silentLogger).child({ component: 'shared-rate' });
  // One statement at a time per shop and process (limiter.ts), plus a pause now and then. One
  // connection stays open: a consume that has to connect first is stamped long before its request
  // leaves, and that unevenness is what budget.ts has to absorb.
  const pool = new pg.Pool({ connectionString: location.url, application_name: 'shopsync-rate', min: 1, max: 4, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 30_000, keepAlive: true });
  // An idle connection the server dropped must not take the process down; the next query reconnects.
  pool.on('error', (err) => logger.warn({ err: err.message }, 'a shared rate limit connection failed'));
  let table: Promise<void> | undefined;
  const limiters = new Map<string, Promise<SharedRateLimiter>>();

  const create = async (shop: string, caps: SharedRateCaps): Promise<SharedRateLimiter> => {
    const budget = sharedBudget(caps.requests, caps.intervalMs);
    // The first limiter creates the table when it is missing (IF NOT EXISTS; a replica racing to do the
    // same may meet a unique violation of the catalog, and tries once more). Looked up first: even
    // CREATE TABLE IF NOT EXISTS is refused by a read-only server, and commands that only read
    // (`status`) must still open a state whose table is there.
    table ??= (async () => {
      const name = `${pg.escapeIdentifier(location.schema)}.${pg.escapeIdentifier(RATE_LIMIT_TABLE)}`;
      const found = await pool.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [name]);
      if (found.rows[0]?.t) return;
      await pool.query(PgBudgetStore.createTableSql(location.schema, RATE_LIMIT_TABLE)).catch(() => pool.query(PgBudgetStore.createTableSql(location.schema, RATE_LIMIT_TABLE)));
    })();
    try {
      await table;
    } catch (err) {
      table = undefined;
      // A server that takes no writes (read-only, disk full) is said by name, as the state's own errors are.
      throw translatePg(err, { url: location.url, schema: location.schema, location: `${redactUrl(location.url)}#${location.schema}` });
    }
    const store = new PgBudgetStore({ pool, schema: location.schema, table: RATE_LIMIT_TABLE, keyPrefix: 'shop', points: budget.pointsPerSlot, slotMs: budget.slotMs });
    // Connect (and prepare) now rather than on the first request.
    await store.get(shop);
    logger.debug({ shop, ...budget }, 'shared rate limit ready');
    return new StoreRateLimiter(store, shop, budget, logger.child({ shop }));
  };

  return {
    forShop(shop, caps) {
      let limiter = limiters.get(shop);
      if (!limiter) {
        limiter = create(shop, caps);
        limiter.catch(() => limiters.delete(shop));
        limiters.set(shop, limiter);
      }
      return limiter;
    },
    async close() {
      await pool.end();
    },
  };
}
