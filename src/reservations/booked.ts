/**
 * How the ERP says it booked a shop order. `query`: SQL on the pipeline's ERP connection answering
 * the booked ones among the candidates (`:orders`). `changedAfter`: for ERPs that cannot say, an
 * order counts as booked once the stock record of one of its articles changed in the ERP (its
 * cursor column) after the orders pull delivered the order there (`delivered`).
 */
import { SyncError } from '../errors.js';
import { compileNamed } from '../erp/sql/params.js';
import type { SqlDriver } from '../erp/sql/driver.js';
import type { BookedConfig } from './schema.js';
import type { ReservationLine, ReservationStore } from './types.js';

/** Candidates per query: bound parameters stay well under every driver's limit. */
const CHUNK = 500;

/** Ask the ERP which unbooked orders it booked, and mark them; returns the ids marked. */
export async function bookedByQuery(
  deps: { readonly driver: SqlDriver; readonly reservations: ReservationStore; readonly shopName: string; readonly now?: () => Date },
  booked: Extract<BookedConfig, { query: string }>,
): Promise<number[]> {
  const open = await deps.reservations.unbooked(deps.shopName);
  const candidates = [...new Set(open.map((l) => l.ordersId))];
  const marked: number[] = [];
  for (let i = 0; i < candidates.length; i += CHUNK) {
    const part = candidates.slice(i, i + CHUNK);
    const { sql, params } = compileNamed(booked.query, { orders: part }, deps.driver.style);
    let rows: Record<string, unknown>[];
    try {
      rows = await deps.driver.query(sql, params);
    } catch (err) {
      throw new SyncError('RESERVATIONS_BOOKED_QUERY_FAILED', `the reservations' booked query failed in the ERP (${err instanceof Error ? err.message : String(err)}); fix \`reservations.booked.query\` of the pipeline. Nothing was pushed: without it the push could raise stock the shop has sold`, { cause: err, details: { query: booked.query } });
    }
    const wanted = new Set(part);
    for (const r of rows) {
      const value = booked.column !== undefined ? r[booked.column] : Object.values(r)[0];
      if (booked.column !== undefined && !(booked.column in r)) {
        throw new SyncError('RESERVATIONS_BOOKED_QUERY_FAILED', `the booked query answers the columns ${Object.keys(r).join(', ')}, not \`column: ${booked.column}\`; fix \`reservations.booked\``);
      }
      const id = Number(value);
      if (wanted.has(id)) marked.push(id);
    }
  }
  if (marked.length > 0) await deps.reservations.markBooked(deps.shopName, marked, (deps.now ?? (() => new Date()))().toISOString());
  return marked;
}

/**
 * `changedAfter`: the lines of an article the ERP booked, judged by the stock record's change time.
 * A line counts as booked when the order reached the ERP (deliveredAt) before the record changed.
 * A change time without zone is read in this process's time zone (docs/catalog.md).
 */
export function bookedByChange(lines: readonly ReservationLine[], changedAt: unknown): ReservationLine[] {
  const changed = timeOf(changedAt);
  if (changed === undefined) return [];
  return lines.filter((l) => l.deliveredAt !== undefined && Date.parse(l.deliveredAt) < changed);
}

function timeOf(v: unknown): number | undefined {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v !== 'string' || v === '') return undefined;
  const t = Date.parse(/^\d{4}-\d{2}-\d{2} \d/.test(v) ? v.replace(' ', 'T') : v);
  return Number.isNaN(t) ? undefined : t;
}
