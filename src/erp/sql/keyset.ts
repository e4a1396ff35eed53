/**
 * The SQL source: reads an incremental query in keyset pages on (cursor, key), so records sharing a
 * cursor value are neither skipped nor repeated, memory stays bounded by the page size, and a restart
 * from the last position seen continues exactly where it stopped.
 */
import { AbortedError } from '../../errors.js';
import { DEFAULT_LOOKBACK_MS, lookedBack } from './lookback.js';
import type { Logger } from '../../log.js';
import { CONNECTOR_CODES, connectorError } from '../errors.js';
import { rawExcerpt, SOURCE_CODES, type CursorPosition, type CursorValue, type ErpRecord, type ReadOptions, type RowsOfOptions, type Source, type SourceItem } from '../types.js';
import { compareCursorValues } from '../cursorFormat.js';
import { jsonSafeRow, toCursorValue } from '../values.js';
import { keyList, type SqlSourceConfig } from './config.js';
import { keyParts, keyString } from './keys.js';
import type { SqlDriver } from './driver.js';
import { attachChildren, groupRows } from './nested.js';
import { textOver, tooLargeRow } from './rowSize.js';
import { compileNamed, paramNames } from './params.js';
import { openTransactions } from './openTransactions.js';
import { sharedReader, type ShareSettings } from './sharedReads.js';

/** How a source shares its page reads: the connection as resolved (identity), its name for the metric, its settings. */
export interface SourceShare {
  readonly identity: string;
  readonly label: string;
  readonly settings: ShareSettings;
}

const DEFAULT_PAGE_SIZE = 500;
/** A page query slower than this scanned rather than walked an index: fewer, larger pages then cost less. */
const SLOW_PAGE_MS = 10;
/** How far a slow source's pages may grow beyond the configured size (memory stays bounded). */
const MAX_PAGE_GROWTH = 4;
/** Keys asked for in one `rowsOf` query. */
const ROWS_OF_KEYS = 500;

/**
 * The key as a bound value. SQLite compares an integer with a text value as "integer is smaller" when
 * the column has no affinity (computed keys), which would skip rows: integer-looking keys bind as numbers.
 */
export function keyParam(driver: SqlDriver, key: string): string | number {
  return driver.kind === 'sqlite' && /^-?(0|[1-9]\d{0,14})$/.test(key) ? Number(key) : key;
}

/** The page query: the user's own paging query, or the user's SELECT wrapped with the keyset predicate. */
function pageQuery(driver: SqlDriver, cfg: SqlSourceConfig, after: CursorPosition | undefined, until: CursorValue | undefined, limit: number) {
  const used = paramNames(cfg.query);
  if (used.has('cursor')) {
    return compileNamed(cfg.query, {
      ...cfg.params,
      cursor: after?.value ?? cfg.initialCursor,
      cursor_key: after?.key != null ? keyParam(driver, after.key) : (cfg.initialKey ?? null),
      limit,
      until: until ?? null,
    }, driver.style);
  }
  const c = `shopsync_q.${driver.quote(cfg.cursor)}`;
  const columns = keyList(cfg.key);
  const ks = columns.map((k) => `shopsync_q.${driver.quote(k)}`);
  const conditions: string[] = [];
  const values: Record<string, unknown> = { ...cfg.params, limit };
  if (after && after.value !== null) {
    values.cursor = after.value;
    if (after.key === null) {
      // Only the cursor value is known: re-read its ties rather than risk skipping one.
      conditions.push(`${c} >= :cursor`);
    } else {
      keyParts(after.key, columns).forEach((part, i) => {
        values[`cursor_key_${i}`] = keyParam(driver, part);
      });
      // One row value (cursor, key…) > (:cursor, :k0…): the same order as `c > :cursor OR (c = :cursor AND key > :k)`, but an
      // index on (cursor, key) serves it as a range, where the OR form walks every tie of the cursor value from the start each page.
      // `c >= :cursor`, implied by the row value, is what MariaDB needs to make it a range too (alone it scans the whole index).
      const rowValue = `(${c}, ${ks.join(', ')}) > (:cursor, ${ks.map((_, i) => `:cursor_key_${i}`).join(', ')})`;
      conditions.push(driver.leadingCursorBound === false ? rowValue : `${c} >= :cursor AND ${rowValue}`);
    }
  }
  if (until !== undefined && until !== null) {
    values.until = until;
    conditions.push(`${c} <= :until`);
  }
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
  const base = cfg.query.trim().replace(/;+$/, '');
  const sql = `SELECT * FROM (${base}) shopsync_q${where} ORDER BY ${c}, ${ks.join(', ')} LIMIT :limit`;
  return compileNamed(sql, values, driver.style);
}

/** Turn a page of rows into records (grouped if configured); drops a possibly cut-off last group of a full page. */
function pageRecords(cfg: SqlSourceConfig, rows: readonly ErpRecord[], full: boolean): { records: ErpRecord[]; complete: boolean } {
  if (cfg.groupBy.length === 0) return { records: [...rows], complete: true };
  const records = groupRows(rows, keyList(cfg.key), cfg.groupBy);
  if (!full) return { records, complete: true };
  // The LIMIT may have cut the last key's rows: hold it back and start the next page before it.
  if (records.length <= 1) return { records: [], complete: false };
  return { records: records.slice(0, -1), complete: true };
}

/** Create the keyset source over an open driver (which it owns and closes). */
export function keysetSource(driver: SqlDriver, cfg: SqlSourceConfig, logger: Logger, share?: SourceShare): Source {
  const connector = driver.kind;
  // Identical page reads of other pipelines (other shops) that began no earlier than this source are shared (sharedReads.ts).
  const reader = sharedReader(driver, share?.identity ?? '', share?.label ?? connector, share?.settings ?? { enabled: false, windowMs: 0 });
  const used = paramNames(cfg.query);
  const untilInClient = used.has('cursor') && !used.has('until');
  const keyColumns = keyList(cfg.key);

  /**
   * A row as an item. A row without a key or cursor value cannot take part in keyset paging: it is
   * handed out refused (a dead letter of its own, under its key when it has one) at the last good
   * position, and the page goes on.
   */
  function item(record: ErpRecord, at: CursorPosition | undefined, row: number): SourceItem {
    const value = toCursorValue(record[cfg.cursor]);
    const key = keyString(record, keyColumns);
    if (value === null || key === undefined) {
      const missing = key === undefined ? `key (${keyColumns.join(', ')})` : `cursor (${cfg.cursor})`;
      return {
        record,
        key: key ?? `${keyColumns.join('+')}=NULL@${cfg.cursor}=${value ?? 'NULL'}`,
        position: at ?? { value: null, key: null },
        refused: { code: SOURCE_CODES.keyMissing, message: `row has no ${missing} value; keyset paging needs both. Fix the row in the ERP, or select them (e.g. COALESCE(${cfg.cursor}, created_at)) or filter such rows out` },
        origin: { element: row, raw: rawExcerpt(JSON.stringify(record)) },
      };
    }
    return { record, key, position: { value, key } };
  }

  async function* read(options: ReadOptions): AsyncGenerator<SourceItem> {
    const pageSize = options.pageSize ?? cfg.pageSize ?? DEFAULT_PAGE_SIZE;
    let after = options.after && options.after.value !== null ? options.after : undefined;
    // A query that pages itself binds (:cursor, :cursor_key) as it likes: no lookback is added to it.
    const back = after && options.lookBack === true && !used.has('cursor') ? lookedBack(after, cfg.lookback ?? DEFAULT_LOOKBACK_MS) : undefined;
    if (back) {
      logger.debug({ cursor: after, from: back.value }, 'reading from before the cursor (lookback), so rows committed late are not skipped');
      after = back;
    }
    // Pages grow while their query is slow (no index on the cursor: every page scans and sorts the whole query).
    // Readers of one query agree on the page size, so their pages stay identical and can be shared.
    let size = reader.agree(cfg.query, pageSize, pageSize * MAX_PAGE_GROWTH);
    let limit = size;
    for (;;) {
      if (options.signal?.aborted) throw new AbortedError();
      const compiled = pageQuery(driver, cfg, after, options.until, limit);
      const page = await reader.read(compiled.sql, compiled.params, options.since);
      const rows = page.rows.map(jsonSafeRow);
      const full = rows.length >= limit;
      if (full && page.queryMs > SLOW_PAGE_MS) size = reader.agree(cfg.query, Math.min(size * 2, pageSize * MAX_PAGE_GROWTH), pageSize * MAX_PAGE_GROWTH);
      const { records, complete } = pageRecords(cfg, rows, full);
      if (!complete) {
        limit *= 2; // one key has more joined rows than the page holds
        logger.debug({ limit }, 'grouped rows exceed the page; widening it');
        continue;
      }
      // No per-row record check: jsonSafeRow built each row as a plain object with string keys.
      await attachChildren(driver, cfg, records);
      let last: CursorPosition | undefined;
      let row = 0;
      for (const record of records) {
        row++;
        const it = item(record, last ?? after, row);
        if (it.refused) {
          yield it;
          continue;
        }
        // A query that pages itself without :until gets the bound enforced here (ascending order: stop).
        if (untilInClient && options.until !== undefined && options.until !== null && compareCursorValues(it.position.value, options.until) > 0) return;
        // Its key and cursor are good, so paging goes past it; the row is read again once it changes.
        yield textOver(record, cfg.maxRecordBytes) ? tooLargeRow(record, [...keyColumns, cfg.cursor], it.key, it.position, cfg.maxRecordBytes, row) : it;
        last = it.position;
      }
      if (!full) return;
      if (!last || (after && last.value === after.value && last.key === after.key)) {
        throw connectorError(connector, CONNECTOR_CODES.queryFailed, `keyset query made no progress after ${JSON.stringify(after ?? null)}: a query that pages itself must filter (cursor, key) > (:cursor, :cursor_key) and ORDER BY ${cfg.cursor}, ${cfg.key}.`);
      }
      after = last;
      limit = size;
    }
  }

  /** One row, the newest by the cursor column: an index on (cursor, key) answers it from its end. */
  async function newestCursor(): Promise<CursorValue> {
    const c = `shopsync_q.${driver.quote(cfg.cursor)}`;
    const base = cfg.query.trim().replace(/;+$/, '');
    const compiled = compileNamed(`SELECT ${c} AS shopsync_newest FROM (${base}) shopsync_q WHERE ${c} IS NOT NULL ORDER BY ${c} DESC LIMIT 1`, { ...cfg.params }, driver.style);
    const [row] = await driver.query(compiled.sql, compiled.params);
    return row === undefined ? null : toCursorValue(jsonSafeRow(row).shopsync_newest);
  }

  const keyCols = keyColumns.map((k) => `shopsync_q.${driver.quote(k)}`);

  /** The predicate on the key column(s) naming these keys; their values are added to `values`. */
  function keyPredicate(part: readonly string[], values: Record<string, unknown>): string {
    if (keyColumns.length === 1) {
      values.shopsync_keys = part.map((k) => keyParam(driver, k));
      return `${keyCols[0]} IN (:shopsync_keys)`;
    }
    return part
      .map((key, i) => `(${keyParts(key, keyColumns).map((v, j) => {
        values[`shopsync_k${i}_${j}`] = keyParam(driver, v);
        return `${keyCols[j]} = :shopsync_k${i}_${j}`;
      }).join(' AND ')})`)
      .join(' OR ');
  }

  /** Of these keys, those the query holds more than one row of: counted by the database, no row fetched. */
  async function keysWithTwins(keys: readonly string[]): Promise<string[]> {
    const base = cfg.query.trim().replace(/;+$/, '');
    const out: string[] = [];
    for (let at = 0; at < keys.length; at += ROWS_OF_KEYS) {
      const values: Record<string, unknown> = { ...cfg.params };
      const where = keyPredicate(keys.slice(at, at + ROWS_OF_KEYS), values);
      const compiled = compileNamed(`SELECT ${keyCols.join(', ')} FROM (${base}) shopsync_q WHERE ${where} GROUP BY ${keyCols.join(', ')} HAVING COUNT(*) > 1`, values, driver.style);
      for (const row of await driver.query(compiled.sql, compiled.params)) {
        const key = keyString(jsonSafeRow(row), keyColumns);
        if (key !== undefined) out.push(key);
      }
    }
    return out;
  }

  /** The rows of the query under these keys, found by a predicate on the key column(s), a few hundred keys a query. */
  async function rowsOf(keys: readonly string[], options: RowsOfOptions = {}): Promise<ReadonlyMap<string, readonly ErpRecord[]>> {
    const found = new Map<string, ErpRecord[]>();
    if (options.twinsOnly === true) {
      const twins = await keysWithTwins(keys);
      return twins.length === 0 ? found : rowsOf(twins, { ...(options.whole === true ? { whole: true } : {}) });
    }
    const base = cfg.query.trim().replace(/;+$/, '');
    for (let at = 0; at < keys.length; at += ROWS_OF_KEYS) {
      const part = keys.slice(at, at + ROWS_OF_KEYS);
      const values: Record<string, unknown> = { ...cfg.params };
      const compiled = compileNamed(`SELECT * FROM (${base}) shopsync_q WHERE ${keyPredicate(part, values)}`, values, driver.style);
      const records = (await driver.query(compiled.sql, compiled.params)).map(jsonSafeRow);
      if (options.whole === true) await attachChildren(driver, cfg, records);
      for (const record of records) {
        const key = keyString(record, keyColumns);
        if (key === undefined) continue;
        const list = found.get(key);
        if (list) list.push(record);
        else found.set(key, [record]);
      }
    }
    return found;
  }

  return {
    kind: connector,
    readsAll: true,
    read,
    // A query that pages itself cannot be asked for other rows; grouped rows are one record per key by construction.
    ...(used.has('cursor') || cfg.groupBy.length > 0 ? {} : { rowsOf }),
    watermark: () => openTransactions(driver),
    // A query that pages itself needs its :cursor bound to mean anything: it is not sampled.
    ...(used.has('cursor') ? {} : { newestCursor }),
    async commit() {
      // SQL sources have nothing to release: the pipeline's stored cursor is the whole truth.
    },
    close: () => driver.close(),
  };
}
