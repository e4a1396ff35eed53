/**
 * Before a push reads, the cursor values it starts from are compared with the newest value of the
 * cursor column (`Source.newestCursor`): the stored cursor and a backfill's `from`/`to`. A value
 * the column does not write alike compares wrongly (`column > :cursor` as text: `' '` sorts before
 * `'T'`, `+00` before `Z`), and the read skips rows without a word. Such a value is rewritten in
 * the column's form where that is exact (the same instant or wall time, cursorFormat.ts); where it
 * is not (a value with a zone against a column without, text that is no timestamp against one
 * that is), the run fails with CONNECTOR_CURSOR_FORMAT and says how to repair it.
 * Stored cursors written by shopsync before 2026-12 (the watermark's ISO cap on a TEXT column) are
 * the case this repairs.
 */
import { CONNECTOR_CODES, connectorError } from '../erp/errors.js';
import { formatText, isNumberCursor, parseTimestamp, sameTextOrder, writeLike, type Timestamp } from '../erp/cursorFormat.js';
import type { CursorPosition, CursorValue, Source } from '../erp/types.js';
import type { Logger } from '../log.js';

/** Pipelines whose start values were found written like their column, per stored form (asked once per process). */
const agreed = new Set<string>();

/** What a run starts from, written like its column. */
export interface AlignedStart {
  /** The position to read after (the stored cursor, or a backfill's `from`). */
  readonly after?: CursorPosition;
  readonly until?: CursorValue;
  /** Set when the stored cursor was rewritten: store it (the read after it now compares as the column does). */
  readonly rewritten?: CursorPosition;
}

/** What to check, and how to name it in an error. */
export interface StartValues {
  readonly pipeline: string;
  readonly cursorColumn?: string;
  /** The stored incremental cursor (undefined: none, or a complete read that ignores it). */
  readonly stored?: CursorPosition;
  /** A backfill's bounds as given (`--from`, `--to`). */
  readonly from?: CursorValue;
  readonly until?: CursorValue;
}

const textual = (v: CursorValue | undefined): v is string => typeof v === 'string' && !isNumberCursor(v);

function formOf(v: string): string {
  const t = parseTimestamp(v);
  return t ? formatText(t.format) : 'text';
}

/** The column's form applied to a value: exact, or why it cannot be. */
function rewrite(v: string, column: Timestamp | undefined, keepPrecision: boolean): { value: string } | { why: string } {
  const t = parseTimestamp(v);
  if (!column) return t ? { why: 'the column holds text that is no timestamp' } : { value: v };
  if (!t) return { why: 'it is no timestamp, and the column holds timestamps' };
  if (sameTextOrder(t.format, column.format)) return { value: v };
  if ((t.format.zone === undefined) !== (column.format.zone === undefined)) return { why: t.format.zone ? 'it has a zone and the column has none' : 'the column has a zone and it has none' };
  // Our own cursor takes the column's digits (cut digits move it earlier: only re-reads); a person's bound keeps the precision written.
  const form = keepPrecision ? { ...column.format, seconds: t.format.seconds, digits: t.format.digits } : column.format;
  return { value: writeLike(t, form) };
}

/**
 * The run's start values written like the cursor column's newest value. Sampled once per process
 * while they agree; a source that cannot sample (files, HTTP, a query that pages itself) or holds no
 * row is taken as it is.
 */
export async function alignStart(source: Source, v: StartValues, logger: Logger): Promise<AlignedStart> {
  const asGiven: AlignedStart = { ...(v.stored ? { after: v.stored } : v.from !== undefined && v.from !== null ? { after: { value: v.from, key: null } } : {}), ...(v.until !== undefined ? { until: v.until } : {}) };
  const checked = [v.stored?.value, v.stored ? undefined : v.from, v.until].filter(textual);
  if (checked.length === 0 || !source.newestCursor) return asGiven;
  const key = `${v.pipeline}\u0000${checked.map(formOf).join('\u0000')}`;
  if (agreed.has(key)) return asGiven;
  let sample: CursorValue;
  try {
    sample = await source.newestCursor();
  } catch (err) {
    // The read that follows reports an unreachable database; an unusual query only goes unchecked.
    logger.debug({ err }, 'the cursor column could not be sampled; the start values are used as they are');
    return asGiven;
  }
  if (sample === null) return asGiven;
  const column = typeof sample === 'string' && !isNumberCursor(sample) ? parseTimestamp(sample) : undefined;
  if (isNumberCursor(sample)) {
    for (const value of checked) fail(source.kind, v, value, sample, 'the column holds numbers');
  }
  const fix = (value: string, keep: boolean): string => {
    const r = rewrite(value, column, keep);
    if ('why' in r) fail(source.kind, v, value, sample, r.why);
    return (r as { value: string }).value;
  };
  let after = asGiven.after;
  let rewritten: CursorPosition | undefined;
  if (textual(v.stored?.value)) {
    const value = fix(v.stored.value, false);
    if (value !== v.stored.value) {
      // The same instant in the column's form, its ties read again: nothing is skipped, a few rows are read twice.
      rewritten = { value, key: null };
      after = rewritten;
      logger.warn({ stored: v.stored.value, rewritten: value, column: sample }, 'the stored cursor was not written like the values of its column (compared as text it skipped rows); it is rewritten in the column\'s form');
    }
  } else if (!v.stored && textual(v.from)) {
    after = { value: fix(v.from, true), key: null };
  }
  const until = textual(v.until) ? fix(v.until, true) : asGiven.until;
  if (!rewritten && after?.value === asGiven.after?.value && until === asGiven.until) agreed.add(key);
  return { ...(after ? { after } : {}), ...(until !== undefined ? { until } : {}), ...(rewritten ? { rewritten } : {}) };
}

function fail(connector: string, v: StartValues, value: string, sample: CursorValue, why: string): never {
  const which = v.stored?.value === value ? `the stored cursor of pipeline ${v.pipeline}` : `the backfill bound ${JSON.stringify(value)} of pipeline ${v.pipeline}`;
  const repair = v.stored?.value === value
    ? `Run \`shopsync sync ${v.pipeline} --complete\` once: it reads from the start and stores the cursor from the column's own values`
    : `Write --from and --to as the column writes its values, e.g. ${JSON.stringify(sample)}`;
  throw connectorError(
    connector,
    CONNECTOR_CODES.cursorFormat,
    `${which} (${JSON.stringify(value)}, ${formOf(value)}) does not compare like the values of its cursor column${v.cursorColumn ? ` ${v.cursorColumn}` : ''} (newest ${JSON.stringify(sample)}${typeof sample === 'string' ? `, ${formOf(sample)}` : ''}): ${why}, so \`column > cursor\` would skip rows or read them in the wrong order. ${repair}.`,
    { details: { pipeline: v.pipeline, value, column: sample } },
  );
}
