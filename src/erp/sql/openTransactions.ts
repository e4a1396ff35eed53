/**
 * The oldest transaction still open in the ERP database: a row it writes carries a cursor value
 * from when it began (PostgreSQL's now() is the transaction's start) or from its first statement
 * (MariaDB/MySQL's NOW()), and becomes visible only at commit. An incremental read must never move
 * its cursor past that time, or the row commits behind the cursor and is skipped for good.
 *
 * PostgreSQL: `pg_stat_activity.xact_start` of every other session of this database with an open
 * transaction. Chosen over `xmin` because it works with any query (joins, views) where `xmin >= …`
 * needs the table's own system column in the query; it needs `pg_read_all_stats` (or superuser),
 * without which PostgreSQL hides other roles' sessions' times. Sessions without a write yet count
 * too: they still stamp rows with their start time when they write later.
 * MariaDB/MySQL: `information_schema.innodb_trx.trx_started`, which needs the PROCESS privilege.
 * SQLite has one writer at a time: a row cannot commit behind a later-stamped one unless the clock
 * that stamped it was off, which the lookback covers.
 */
import { causeText } from '../errors.js';
import type { SourceWatermark } from '../types.js';
import type { SqlDriver } from './driver.js';
import { lookedBack } from './lookback.js';

/**
 * The bound stays this far behind the database's clock even when no transaction shows: InnoDB
 * refreshes information_schema.innodb_trx at most every 100 ms (a transaction that began just now
 * may not be listed yet: seen in our tests), and PostgreSQL publishes a session's start a moment
 * after the transaction began. Costs a second of rows read again.
 */
const UNSEEN_MS = 1000;

/** The bound: the oldest open transaction's start, but never later than the clock minus UNSEEN_MS. */
function boundOf(now: { zoned: string; naive: string }, oldest: { zoned: string; naive: string } | undefined): { zoned: string; naive: string } {
  const latest = { zoned: String(lookedBack({ value: now.zoned, key: null }, UNSEEN_MS)?.value ?? now.zoned), naive: String(lookedBack({ value: now.naive, key: null }, UNSEEN_MS)?.value ?? now.naive) };
  return oldest !== undefined && Date.parse(oldest.zoned) < Date.parse(latest.zoned) ? oldest : latest;
}

/** `2026-11-26 12:00:00.5+00` → the PostgreSQL driver's ISO form (`…T12:00:00.5Z`). */
function isoOf(text: string): string {
  return text.replace(' ', 'T').replace(/\+00$/, 'Z').replace(/([+-]\d\d)$/, '$1:00');
}

const POSTGRES = `
SELECT
  COALESCE((SELECT rolsuper FROM pg_roles WHERE rolname = current_user), false)
    OR pg_has_role(current_user, 'pg_read_all_stats', 'MEMBER') AS privileged,
  (SELECT min(xact_start) FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL AND backend_type = 'client backend')::text AS oldest,
  ((SELECT min(xact_start) FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL AND backend_type = 'client backend')
    AT TIME ZONE current_setting('log_timezone'))::text AS oldest_local,
  statement_timestamp()::text AS now,
  (statement_timestamp() AT TIME ZONE current_setting('log_timezone'))::text AS now_local`;

const MYSQL = `
SELECT MIN(trx_started) AS oldest, NOW(6) AS now, TIMESTAMPDIFF(SECOND, UTC_TIMESTAMP(), NOW()) AS offset_s
FROM information_schema.innodb_trx WHERE trx_mysql_thread_id <> CONNECTION_ID()`;

/** A naive `YYYY-MM-DD[T ]HH:MM:SS[.f]` in a zone `offsetS` seconds east of UTC → ISO instant. */
function zonedOf(naive: string, offsetS: number): string {
  const ms = Date.parse(`${naive.replace(' ', 'T').slice(0, 23)}Z`) - offsetS * 1000;
  return new Date(ms).toISOString();
}

/** Whether a failure is the database refusing the statistics to this user (a privilege, not an outage). */
function refusedPrivilege(err: unknown): boolean {
  return /PROCESS privilege|access denied|permission denied|ER_SPECIFIC_ACCESS_DENIED|ER_TABLEACCESS_DENIED/i.test(causeText(err));
}

/** What the ERP database says about its open transactions, read just before the rows. */
export async function openTransactions(driver: SqlDriver): Promise<SourceWatermark> {
  if (driver.kind === 'sqlite') return { by: 'single-writer', checkedAt: new Date().toISOString() };
  if (driver.kind === 'postgres') {
    const [row] = await driver.query(POSTGRES, []);
    const now = String(row?.now);
    if (row?.privileged !== true) {
      return {
        by: 'lookback',
        checkedAt: isoOf(now),
        reason: 'PostgreSQL shows other roles\' transactions only to members of pg_read_all_stats: `GRANT pg_read_all_stats TO <shopsync user>` lets the cursor wait for open transactions; until then only the lookback covers late commits',
      };
    }
    const oldest = row.oldest === null || row.oldest === undefined ? undefined : String(row.oldest);
    const bound = boundOf({ zoned: isoOf(now), naive: String(row.now_local).replace(' ', 'T') }, oldest === undefined ? undefined : { zoned: isoOf(oldest), naive: String(row.oldest_local).replace(' ', 'T') });
    return { by: 'transactions', checkedAt: isoOf(now), ...(oldest !== undefined ? { openSince: isoOf(oldest) } : {}), bound };
  }
  let row;
  try {
    [row] = await driver.query(MYSQL, []);
  } catch (err) {
    if (!refusedPrivilege(err)) throw err;
    return {
      by: 'lookback',
      checkedAt: new Date().toISOString(),
      reason: 'MariaDB/MySQL shows open transactions (information_schema.innodb_trx) only with the PROCESS privilege: `GRANT PROCESS ON *.* TO <shopsync user>` lets the cursor wait for open transactions; until then only the lookback covers late commits',
    };
  }
  const offset = Number(row?.offset_s ?? 0);
  const now = String(row?.now).replace(' ', 'T');
  const oldest = row?.oldest === null || row?.oldest === undefined ? undefined : String(row.oldest).replace(' ', 'T');
  return {
    by: 'transactions',
    checkedAt: zonedOf(now, offset),
    ...(oldest !== undefined ? { openSince: zonedOf(oldest, offset) } : {}),
    bound: boundOf({ zoned: zonedOf(now, offset), naive: now }, oldest === undefined ? undefined : { zoned: zonedOf(oldest, offset), naive: oldest }),
  };
}
