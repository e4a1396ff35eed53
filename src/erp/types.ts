/**
 * The contract between pipelines and ERP connectors.
 *
 * A *source* streams ERP records in cursor order; a *sink* writes records durably.
 * Pipelines never look inside a connector: they read items, settle them, and tell the
 * source when everything up to a position is durable (so a file source can archive a file).
 */
import type { Logger } from '../log.js';

/** One ERP record: a plain JSON object (nested arrays allowed for child rows). */
export type ErpRecord = Record<string, unknown>;

/** JSON scalar a cursor can hold. */
export type CursorValue = string | number | null;

/**
 * A position in a source's order: the cursor column's value and the record key.
 * Keyset order is (value, key), so records sharing a cursor value are neither skipped nor repeated.
 */
export interface CursorPosition {
  readonly value: CursorValue;
  readonly key: string | null;
}

/** What a pipeline asks a source for. */
export interface ReadOptions {
  /** Read strictly after this position (keyset); absent = from the start. */
  readonly after?: CursorPosition;
  /** When the run began (epoch ms, `performance.timeOrigin + performance.now()`): a SQL source may hand it rows of an identical read of another pipeline that started after this (src/erp/sql/sharedReads.ts). */
  readonly since?: number;
  /** Read up to and including this cursor value (backfill ranges); absent = to the end. */
  readonly until?: CursorValue;
  /** Records per page the source fetches at once. @default 500 */
  readonly pageSize?: number;
  /** Aborts the read between pages. */
  readonly signal?: AbortSignal;
  /**
   * Look without touching: a dry run or preview reads, and no file moves (a file source otherwise
   * archives empty files and moves files refused whole while it reads). @default false
   */
  readonly readOnly?: boolean;
  /**
   * `after` is the pipeline's stored incremental cursor: a source with a lookback starts that far
   * before it (rows committed late), and the pipeline settles the rows read again without a request.
   * Backfill ranges and explicit starts never look back. @default false
   */
  readonly lookBack?: boolean;
}

/** Where a record came from, for the person who has to fix it: file and line (or element), or a query row. */
export interface RecordOrigin {
  readonly file?: string;
  /** 1-based line of the file where the record starts (CSV, NDJSON). */
  readonly line?: number;
  /** 1-based position of the element (JSON array element, XML record element, SQL/HTTP row). */
  readonly element?: number;
  /** The record's text as it was in the source (cut to a few hundred characters). */
  readonly raw?: string;
}

/** Why a source could not use a record (or a whole file): it becomes a dead letter of its own. */
export interface RefusedRecord {
  /** A stable code: SOURCE_BAD_ROW, SOURCE_KEY_MISSING, SOURCE_BAD_JSON, SOURCE_BAD_XML, FILE_UNREADABLE… */
  readonly code: string;
  readonly message: string;
}

/** One record read from a source, with its key and position. */
export interface SourceItem {
  readonly record: ErpRecord;
  /** The record's ERP key (as a string: numbers are stringified); for a keyless refused row, its place (`file#line 5`). */
  readonly key: string;
  /** Where this record stands in the source's order. */
  readonly position: CursorPosition;
  /** Set when the source could not use the record: the pipeline dead-letters it and reads on. */
  readonly refused?: RefusedRecord;
  readonly origin?: RecordOrigin;
}

/** The codes of records a source refused, so a run, its metrics and its letters can tell them apart. */
export const SOURCE_CODES = {
  badRow: 'SOURCE_BAD_ROW',
  keyMissing: 'SOURCE_KEY_MISSING',
  badJson: 'SOURCE_BAD_JSON',
  badXml: 'SOURCE_BAD_XML',
  notAnObject: 'SOURCE_NOT_AN_OBJECT',
  fileUnreadable: 'FILE_UNREADABLE',
  fileRejected: 'FILE_REJECTED',
  /** A delivery that was a link (or swapped for another file) when it was to be read: nothing of it was read. */
  fileUnsafe: 'FILE_UNSAFE',
  /** A record larger than the source's `maxRecordBytes`: refused, its text cut to an excerpt. */
  recordTooLarge: 'SOURCE_RECORD_TOO_LARGE',
} as const;

/** Whether a code is one a source gives a record it could not use (as opposed to a failure of the shop, the mapping or a sink). */
export function isSourceRefusal(code: string): boolean {
  return (Object.values(SOURCE_CODES) as string[]).includes(code);
}

/** Cut a raw text for a letter or a log line. */
export function rawExcerpt(text: string, max = 500): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A file that settled whole with a commit: letters about earlier deliveries of it may close. */
export interface SettledFile {
  /** The name it arrived under. */
  readonly file: string;
}

/** What a commit settled. */
export interface SourceCommit {
  readonly settledFiles?: readonly SettledFile[];
}

/** An ERP source: streams records in (cursor, key) order. */
export interface Source {
  /** Connector kind, for logs: postgres, mysql, sqlite, csv, json, ndjson, xml, http. */
  readonly kind: string;
  /**
   * A read without `after` returns every record the ERP holds (SQL queries, HTTP lists), so what it
   * does not return has left the ERP (`onMissing`). A file inbox holds only what was dropped: absent.
   */
  readonly readsAll?: boolean;
  /** Stream records after `options.after` in ascending (cursor, key) order, with bounded memory. */
  read(options: ReadOptions): AsyncIterable<SourceItem>;
  /**
   * How far an incremental read may move its cursor: asked just before the rows are read. Absent:
   * the source cannot tell (files, HTTP), and the lookback alone covers rows committed late.
   */
  watermark?(): Promise<SourceWatermark>;
  /**
   * The newest cursor value the source holds, as it reads it (null: no row): what a stored cursor or
   * a backfill bound is compared with, so it is written as the column writes its values
   * (src/pipeline/cursorForm.ts). Absent: the source cannot sample its cursor (files, HTTP, a query
   * that pages itself).
   */
  newestCursor?(): Promise<CursorValue>;
  /**
   * Every row the source holds now under each of these keys (child rows attached only when `whole`), whatever its
   * cursor: what tells two live rows of one key apart from one row read twice because it changed
   * while it was read (src/pipeline/push/duplicates.ts). Keys without a row are absent from the map.
   * Absent: the source cannot look rows up by key (files, HTTP, a query that pages itself, grouped rows).
   */
  rowsOf?(keys: readonly string[], options?: RowsOfOptions): Promise<ReadonlyMap<string, readonly ErpRecord[]>>;
  /** Everything up to and including `position` is durably settled (files may be archived now); says which files settled cleanly. */
  commit?(position: CursorPosition): Promise<SourceCommit | void>;
  /** Release connections and handles. */
  close(): Promise<void>;
}

/** Options of `Source.rowsOf`. */
export interface RowsOfOptions {
  /** With their child rows (the records as a read delivers them). */
  readonly whole?: boolean;
  /** Only the keys the source holds more than one row of: the duplicate screen of a read needs no other row (one counting query; rows fetched for those keys alone). */
  readonly twinsOnly?: boolean;
}

/**
 * What a database says about its open transactions. `transactions`: the cursor never moves past
 * `bound` (the oldest open transaction's start, or the database's clock when none is open);
 * `single-writer`: one writer at a time (SQLite), nothing can commit behind a later row;
 * `lookback`: the database would not tell (`reason` says which privilege is missing).
 */
export interface SourceWatermark {
  readonly by: 'transactions' | 'single-writer' | 'lookback';
  /** When the database was asked (its clock, ISO). */
  readonly checkedAt: string;
  /** Start of the oldest transaction still open (ISO), when one is. */
  readonly openSince?: string;
  /** The bound as cursor values are written: a zoned ISO instant and the database's local time without zone. */
  readonly bound?: { readonly zoned: string; readonly naive: string };
  readonly reason?: string;
}

/** One batch for a sink; `id` is deterministic for the same records so repeats do not duplicate. */
export interface SinkBatch {
  readonly id: string;
  readonly records: readonly ErpRecord[];
  /**
   * Per record (same order as `records`): the pipeline can prove a row under its key is its own
   * (the state delivered the key, a write of it may have landed unacknowledged, or the user accepted
   * a restore). A sink that refuses foreign rows updates a held row it cannot tell by a mark of its
   * own only where this is true. Absent: nothing is proven.
   */
  readonly owned?: readonly boolean[];
}

/**
 * What a sink did with one record of a batch it accepted. `refused`: nothing of that record was
 * written (a foreign row under its key, a per-record error of a batch call); the pipeline
 * dead-letters it with `code` and `message`, and the other records of the batch stand.
 */
export type SinkOutcome =
  | { readonly kind: 'created' }
  | { readonly kind: 'updated' }
  /**
   * The target already holds the record (found by its reference) and the sink left it as it is:
   * counted `unchanged`; when the state had delivered another version, the change did not reach the
   * ERP, so it is also a warning of the run with `message`.
   */
  | { readonly kind: 'kept'; readonly message: string; readonly details?: Readonly<Record<string, unknown>> }
  /** Written, but the sink cannot tell an insert from an update (an HTTP answer): the pipeline counts it from what the state knows. */
  | { readonly kind: 'written' }
  | { readonly kind: 'refused'; readonly code: string; readonly message: string; readonly details?: Readonly<Record<string, unknown>> };

/**
 * What a sink says about a batch it accepted, one outcome per record (same order as
 * `batch.records`). A sink that resolves without it wrote every record, and the pipeline counts
 * each as created or updated from what the state knows.
 */
export interface SinkResult {
  readonly outcomes: readonly SinkOutcome[];
}

/** An ERP sink: writes a batch atomically (one transaction, one renamed file, one request). */
export interface Sink {
  readonly kind: string;
  /**
   * Resolve only once the batch is durable; reject (with a ConnectorError) when nothing was written.
   * A sink that can write some records of a batch and refuse others (per-record results of a batch
   * call, a foreign row) resolves with a SinkResult saying which.
   */
  write(batch: SinkBatch): Promise<void | SinkResult>;
  /** What it writes into, for messages (`sqlite table erp_orders`). */
  readonly target?: string;
  /**
   * Which of `records` the sink holds as rows this pipeline wrote (its owner mark), looked up by
   * the sink's key (indexes into `records`): a pull asks before delivering records its state does
   * not know, so rows written by a state it no longer has (a restore, a deleted state) are noticed.
   * Absent: the sink cannot tell its own rows from others' (a file outbox the ERP empties, an HTTP
   * endpoint, a SQL sink without an owner column, which refuses per record what `owned` does not prove).
   */
  holding?(records: readonly ErpRecord[]): Promise<ReadonlySet<number>>;
  close(): Promise<void>;
}

/** What every connector factory receives besides its own validated config. */
export interface ConnectorContext {
  readonly logger: Logger;
  /** Base folder for relative paths in the config (the config file's folder). */
  readonly baseDir: string;
  /** Environment for connection settings (defaults to process.env). */
  readonly env?: NodeJS.ProcessEnv;
  /** Where the connection was configured, so its errors can point there. */
  readonly origin?: ConnectionOrigin;
  /** The pipeline the connector serves: what a SQL sink marks its rows with (`ownerColumn`). */
  readonly pipeline?: string;
}

/** Where a connection was configured: what its errors name besides host and database. */
export interface ConnectionOrigin {
  /** Its name under `connections:`. */
  readonly name: string;
  /** `/etc/shopsync/shopsync.yaml:8`, or how it was given (`--db-url`). */
  readonly where?: string;
  /** Each field written in the connection (`password`): its line, and the `${…}` that set it. */
  readonly fields?: Readonly<Record<string, FieldOrigin>>;
  /** Given by `shopsync init`'s options (--db-url, --db-schema), not by a config file. */
  readonly init?: boolean;
  /** The pipeline block that uses it: `pipelines[1].source` with its line. */
  readonly part?: { readonly key: string; readonly where?: string };
}

/** One field of a connection as written. */
export interface FieldOrigin {
  /** `line 12`. */
  readonly where: string;
  /** The variables that gave it its value (`ERP_DB_PASSWORD`, `ERP_DB_PASSWORD_FILE`), as the config reads them. */
  readonly variables: readonly string[];
  /** The `${…}` references as written (`${ERP_DB_PASSWORD}`); empty when the value is written inline. */
  readonly references: readonly string[];
  /** Every reference fell back to its `:-default`. */
  readonly defaulted?: boolean;
}
