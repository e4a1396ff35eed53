/**
 * The plug-in interface of the sandbox: one `ResourceHandler` per registry resource.
 *
 * How a request reaches a handler:
 * 1. The server matches method + path (case-insensitive) against the registry's `ops` of every
 *    resource (`src/shop/registry`), checks the bearer token's scope named there, applies faults.
 * 2. It looks the resource up in `handlers` (`src/sandbox/handlers/index.ts`, resource name ->
 *    handler) and calls the method named after the matched operation: `export`, `exportOne`,
 *    `range`, `create`, `update`, `delete`, `bulkDelete`, or `extra[<name>]` for `ops.extra`.
 *    A resource without a handler, or a handler without that method, answers 501 `Method not found`.
 * 3. The call runs inside one SQLite transaction (handlers are synchronous); a thrown error rolls
 *    it back and answers 500, a `SandboxHttpError` answers its status with the request-level
 *    error envelope.
 *
 * To add a resource: write `src/sandbox/handlers/<name>.ts` exporting a `ResourceHandler`, list it
 * in `src/sandbox/handlers/index.ts`. Helpers that do the common work (envelopes, paging, filters
 * from the registry, per-record write loops) are in `src/sandbox/kit.ts`; the products handler
 * (`src/sandbox/handlers/products/`) and `manufacturers.ts` are worked examples.
 */
import type Database from 'better-sqlite3';
import type { Logger } from '../log.js';
import type { ResourceDef } from '../shop/registry/index.js';
import type { RecordStore } from './store.js';
import type { ReferenceData, Settings } from './reference.js';

/** A file that goes out with a mail. */
export interface OutboxAttachment {
  /** The stored file name (as the resource's attachment listing shows it). */
  readonly name: string;
  /** Size in bytes. */
  readonly size: number;
  readonly mime_type: string;
}

/** A mail the shop would send, recorded in the outbox (`GET /sandbox/outbox`). */
export interface OutboxMail {
  /** What kind of mail: `order_confirmation`, `newsletter_double_opt_in`, `ticket_reply`… */
  readonly kind: string;
  readonly to: readonly string[];
  readonly subject: string;
  readonly body?: string;
  /** Resource and id the mail concerns. */
  readonly resource?: string;
  readonly recordId?: number | string;
  /** Files sent with the mail. */
  readonly attachments?: readonly OutboxAttachment[];
  /** Anything else worth asserting (language, ids…). */
  readonly data?: Readonly<Record<string, unknown>>;
}

/** A privacy-log entry (`GET /sandbox/privacy-log`). */
export interface PrivacyEntry {
  /** `subscriber_import`, `subscriber_delete`… */
  readonly event: string;
  readonly resource?: string;
  readonly recordId?: number | string;
  readonly email?: string;
  readonly data?: Readonly<Record<string, unknown>>;
}

/** What a handler can use. One context per sandbox; valid inside the request's transaction. */
export interface SandboxContext {
  /** Generic record storage (JSON per record and resource). */
  readonly store: RecordStore;
  /** The raw database, for auxiliary tables (create them with `CREATE TABLE IF NOT EXISTS` in `init`). */
  readonly db: Database.Database;
  /** A prepared statement for this SQL text, prepared once per sandbox and reused by every request. */
  sql<P extends unknown[] = unknown[], R = unknown>(text: string): Database.Statement<P, R>;
  /** Current reference data (languages, groups, tax classes, admins, statuses, storages…). */
  reference(): ReferenceData;
  /** Current shop settings. */
  settings(): Settings;
  /** A setting read as a boolean ('true', '1', 'yes' count as on). */
  flag(key: string): boolean;
  /** Record a mail the shop would send. */
  sendMail(mail: OutboxMail): void;
  /** Record a privacy-log entry. */
  logPrivacy(entry: PrivacyEntry): void;
  /** The sandbox clock (tests may advance it with `PUT /sandbox/clock`). */
  now(): Date;
  /** `now()` as the shop writes datetimes: 'YYYY-MM-DD HH:MM:SS' (UTC). */
  timestamp(): string;
  /** A folder for files the shop keeps on disk (ticket attachments, media), created on demand. */
  filesDir(area: string): string;
  readonly logger: Logger;
}

/** A request as a handler sees it. */
export interface SandboxRequest {
  readonly method: string;
  /** The registry resource the path belongs to. */
  readonly resource: ResourceDef;
  /** The matched operation: export, exportOne, range, create, update, delete, bulkDelete or an extra name. */
  readonly operation: string;
  /** Path parameters of the template: `id`, `start`, `end` (as sent). */
  readonly params: Readonly<Record<string, string>>;
  /** Query parameters (first value of each). */
  readonly query: Readonly<Record<string, string>>;
  /** Parsed body (JSON or form), undefined when none. */
  readonly body: unknown;
  /** The scopes of the caller's token. */
  readonly scopes: readonly string[];
}

/** What a handler answers. `body` is sent as JSON unless it is a Buffer (then sent as is). */
export interface SandboxReply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** One operation of a handler. Synchronous: it runs inside the request's SQLite transaction. */
export type OperationHandler = (ctx: SandboxContext, req: SandboxRequest) => SandboxReply;

/** Which seed `POST /sandbox/reset` (or startup) loads. */
export type SeedKind = 'demo' | 'empty';

/**
 * A resource's implementation in the sandbox. Every method is optional: a missing one answers 501.
 * Method names equal the registry's `ops` keys; `extra` keys equal `ops.extra` keys.
 */
export interface ResourceHandler {
  /** Record fields indexed for `ctx.store.findIds` (natural keys: products_model, e-mail…). */
  readonly indexes?: readonly string[];
  /** Called once when the sandbox starts (inside a transaction): create auxiliary tables here. */
  init?(ctx: SandboxContext): void;
  /** Load this resource's seed records (called after reference data and earlier handlers' seeds). */
  seed?(ctx: SandboxContext, kind: SeedKind): void;
  readonly export?: OperationHandler;
  readonly exportOne?: OperationHandler;
  readonly range?: OperationHandler;
  readonly create?: OperationHandler;
  readonly update?: OperationHandler;
  readonly delete?: OperationHandler;
  readonly bulkDelete?: OperationHandler;
  readonly extra?: Readonly<Record<string, OperationHandler>>;
}

/** Thrown by a handler to answer with the request-level error envelope `{success:false, api_version, error}`. */
export class SandboxHttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details?: Readonly<Record<string, unknown>>;
  readonly headers?: Readonly<Record<string, string>>;

  constructor(status: number, code: string, message: string, details?: Readonly<Record<string, unknown>>, headers?: Readonly<Record<string, string>>) {
    super(message);
    this.name = 'SandboxHttpError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}
