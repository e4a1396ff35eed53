/**
 * Events as lists show them (a run's page, a record's history, `/api/runs/:id`): a payload or diff
 * longer than EVENT_EXCERPT_MAX characters is replaced, in SQL, by the marker a too-large one is
 * stored as (`{"truncated":true,"bytes":N}`, util/bytes.ts), so a page of 200 events never pulls
 * 200 × 512 KiB out of the state (issue 42 item 9). One event's own page (`events.get`) is whole.
 */

/** Longest payload or diff JSON a listed event carries (characters). */
export const EVENT_EXCERPT_MAX = 16 * 1024;

/** The SELECT list of an event list: every column, payload and diff replaced by a marker when long. */
export function listedEventColumns(dialect: 'sqlite' | 'postgres'): string {
  const n = EVENT_EXCERPT_MAX;
  const bytes = (col: string) => (dialect === 'sqlite' ? `length(CAST(${col} AS BLOB))` : `octet_length(${col})::text`);
  const cut = (col: string) => `CASE WHEN length(${col}) > ${n} THEN '{"truncated":true,"bytes":' || ${bytes(col)} || '}' ELSE ${col} END AS ${col}`;
  return `id, run_id, pipeline, shop, resource, erp_key, shop_id, outcome, codes, warnings, error, payload_hash, ${cut('payload')}, ${cut('diff')}, at`;
}

/** Whether a payload or diff is the marker of one too long to keep or to list. */
export function isCutMarker(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { truncated?: unknown }).truncated === true && typeof (value as { bytes?: unknown }).bytes === 'number';
}
