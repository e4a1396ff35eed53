/**
 * "Anything newer than the cursor?" for short polling (src/triggers/poll.ts): one row of the
 * source query strictly after a position, in the keyset reader's order, and nothing of it but
 * `1`. No ORDER BY: any row after the position answers the question, so the database stops at the
 * first one its index on the cursor column finds.
 *
 * Strictly after, not from the lookback: a row committed late with a cursor value older than the
 * stored cursor is never "newer", so polling does not see it; the next run's lookback (woken by
 * anything, or the safety-net schedule) does.
 */
import type { CursorPosition } from '../types.js';
import { keyList, type SqlSourceConfig } from './config.js';
import type { SqlDriver } from './driver.js';
import { keyParts } from './keys.js';
import { keyParam } from './keyset.js';
import { compileNamed, paramNames } from './params.js';

/** The probe statement for a position (none yet: any row at all). */
export function probeQuery(driver: SqlDriver, cfg: SqlSourceConfig, after: CursorPosition | undefined): { sql: string; params: unknown[] } {
  const at = after && after.value !== null ? after : undefined;
  if (paramNames(cfg.query).has('cursor')) {
    // A query that pages itself: its own first page after the position, one row long.
    return compileNamed(cfg.query, {
      ...cfg.params,
      cursor: at?.value ?? cfg.initialCursor,
      cursor_key: at?.key != null ? keyParam(driver, at.key) : (cfg.initialKey ?? null),
      limit: 1,
      until: null,
    }, driver.style);
  }
  const c = `shopsync_q.${driver.quote(cfg.cursor)}`;
  const columns = keyList(cfg.key);
  const values: Record<string, unknown> = { ...cfg.params };
  let where = '';
  if (at && at.key === null) {
    values.cursor = at.value;
    where = ` WHERE ${c} > :cursor`;
  } else if (at && at.key !== null) {
    values.cursor = at.value;
    keyParts(at.key, columns).forEach((part, i) => {
      values[`cursor_key_${i}`] = keyParam(driver, part);
    });
    const ks = columns.map((k) => `shopsync_q.${driver.quote(k)}`);
    // `c >= :cursor` lets MariaDB/MySQL walk the cursor index as a range (they do not for a row
    // comparison alone); the row comparison then drops the ties at or before the position.
    where = ` WHERE ${c} >= :cursor AND (${c}, ${ks.join(', ')}) > (:cursor, ${ks.map((_, i) => `:cursor_key_${i}`).join(', ')})`;
  }
  const base = cfg.query.trim().replace(/;+$/, '');
  return compileNamed(`SELECT 1 AS newer FROM (${base}) shopsync_q${where} LIMIT 1`, values, driver.style);
}

/** Whether the source holds a row after `after` (any row when there is no position yet). */
export async function hasNewer(driver: SqlDriver, cfg: SqlSourceConfig, after: CursorPosition | undefined): Promise<boolean> {
  const { sql, params } = probeQuery(driver, cfg, after);
  return (await driver.query(sql, params)).length > 0;
}
