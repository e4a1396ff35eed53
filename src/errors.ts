/**
 * shopsync's error hierarchy.
 *
 * Every error has a stable `code` that code branches on (never the message text), and
 * carries the record it concerns so that a log line or a dashboard row can say *which*
 * product, order or file failed. Messages say how to fix the problem where we know it.
 */
import { describeError } from './util/describeError.js';

/** The record an error concerns: where it came from and how it is known on either side. */
export interface RecordRef {
  /** ERP key of the record (the pipeline's source key), when known. */
  readonly erpKey?: string;
  /** Shop id of the record, when known. */
  readonly shopId?: string | number;
  /** Index of the record inside the batch that was sent, when the error came from a batch. */
  readonly index?: number;
  /** Shop resource name from the registry (products, orders…). */
  readonly resource?: string;
}

/** Options common to every shopsync error. */
export interface SyncErrorOptions {
  readonly record?: RecordRef;
  readonly cause?: unknown;
  readonly details?: Readonly<Record<string, unknown>>;
}

/** Base class: a stable code, the record concerned, and details safe to log. */
export class SyncError extends Error {
  readonly code: string;
  readonly record?: RecordRef;
  readonly details?: Readonly<Record<string, unknown>>;

  constructor(code: string, message: string, options: SyncErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.record = options.record;
    this.details = options.details;
  }

  /** A copy of this error that names the record it concerns. */
  withRecord(record: RecordRef): this {
    const copy = Object.create(Object.getPrototypeOf(this) as object) as this;
    Object.assign(copy, this, { record: { ...this.record, ...record } });
    copy.message = this.message;
    copy.stack = this.stack;
    return copy;
  }

  /** One readable line for logs and the dashboard: `[CODE] message (resource erpKey → shopId)`. */
  toLine(): string {
    const r = this.record;
    const where = r
      ? [r.resource, r.erpKey !== undefined ? `erp ${r.erpKey}` : undefined, r.shopId !== undefined ? `shop ${r.shopId}` : undefined, r.index !== undefined ? `#${r.index}` : undefined]
          .filter(Boolean)
          .join(' ')
      : '';
    return `[${this.code}] ${this.message}${where ? ` (${where})` : ''}`;
  }

  /** A plain object for pino and for the state's event rows. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.message, record: this.record, details: this.details };
  }
}

/** Configuration is invalid: names the file, line and key. */
export class ConfigError extends SyncError {
  readonly file?: string;
  readonly line?: number;
  readonly key?: string;

  /** `code` defaults to CONFIG_INVALID; a more specific one (CONFIG_PATH_OUTSIDE) where callers branch on it. */
  constructor(message: string, options: SyncErrorOptions & { file?: string; line?: number; key?: string; code?: string } = {}) {
    super(options.code ?? 'CONFIG_INVALID', message, options);
    this.file = options.file;
    this.line = options.line;
    this.key = options.key;
  }
}

/** A mapping file is invalid, or applying it to a record failed. */
export class MappingError extends SyncError {
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  readonly field?: string;
  readonly sourceValue?: unknown;
  readonly rule?: string;

  constructor(
    code: string,
    message: string,
    options: SyncErrorOptions & {
      file?: string;
      line?: number;
      column?: number;
      field?: string;
      sourceValue?: unknown;
      rule?: string;
    } = {},
  ) {
    super(code, message, options);
    this.file = options.file;
    this.line = options.line;
    this.column = options.column;
    this.field = options.field;
    this.sourceValue = options.sourceValue;
    this.rule = options.rule;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), file: this.file, line: this.line, column: this.column, field: this.field, sourceValue: this.sourceValue, rule: this.rule };
  }
}

/** A guard rail refused a payload that would silently destroy data in the shop. */
export class GuardRailError extends MappingError {}

/** An ERP connector (SQL, files, HTTP) failed to connect, read or write. */
export class ConnectorError extends SyncError {
  readonly connector: string;

  constructor(code: string, message: string, options: SyncErrorOptions & { connector: string }) {
    super(code, message, options);
    this.connector = options.connector;
  }
}

/** The state database refused an operation (newer schema, lock held…). */
export class StateError extends SyncError {}

/**
 * The state is older than what shopsync already delivered (a restored backup, a deleted state):
 * a pull refuses to deliver again until the user says so. Codes: STATE_RESTORED (the state came
 * from `shopsync state restore`), STATE_BEHIND_SINK (the sink holds rows of ours the state does
 * not know). `details` name the pipeline, the sink and the keys found.
 */
export class StateBehindError extends StateError {}

/** The run was asked to stop (SIGTERM, dashboard); not a failure of any record. */
export class AbortedError extends SyncError {
  constructor(message = 'run was stopped before it finished') {
    super('ABORTED', message);
  }
}

/**
 * The process had nothing left to wait on while this work was still open (a wait that holds no
 * handle: an unref'd timer, a promise nobody settles). Node would end it quietly with exit 0;
 * instead the work is closed as failed with RUN_ABANDONED (see src/drain).
 */
export class AbandonedError extends SyncError {
  constructor(what: string, waitingFor: string) {
    super(
      'RUN_ABANDONED',
      `${what} was still open when the process had nothing left to wait on (${waitingFor}); it was closed as failed instead of ending quietly. Nothing after its last checkpoint counts as done: the next run continues from there. This is a bug in shopsync or a connector: please report it with this log`,
      { details: { waitingFor } },
    );
  }
}

/** Render anything thrown as one log-safe line; a foreign error says what its causes said (fetch's "fetch failed: connect ECONNREFUSED …"). */
export function errorLine(err: unknown): string {
  if (err instanceof SyncError) return err.toLine();
  return describeError(err);
}

/** The stable code of anything thrown (`INTERNAL` for foreign errors). */
export function errorCode(err: unknown): string {
  return err instanceof SyncError ? err.code : 'INTERNAL';
}
