/**
 * The public contract of the Shop API client. Everything that talks to a shop (pipelines,
 * CLI, dashboard, tests against the sandbox) uses this interface; `createShopClient` implements it.
 */
import type { Logger } from '../../log.js';
import type { ResourceName } from '../registry/index.js';
import type { MessageEntry, ClaimsResponse, AttachmentListing, DeleteResponse } from '../schema/envelopes.js';
import type { ShopApiError } from '../errors.js';
import type { RateSnapshot, SharedRateLimiter } from '../rate/index.js';
import type { MediaFile, MediaUploadResult } from './media.js';
import type { BreakerOptions, BreakerSnapshot } from './breaker.js';

/** How the client authenticates. */
export type ShopAuth =
  | { readonly kind: 'token'; readonly token: string }
  | {
      readonly kind: 'oauth';
      /** Token endpoint. @default `${baseUrl}/oauth/token` */
      readonly tokenUrl?: string;
      readonly clientId: string;
      readonly clientSecret: string;
      readonly scopes?: readonly string[];
    };

/** Rate limit of the request queue. */
export interface RateLimitOptions {
  /**
   * `adaptive`: start at a polite floor and find the shop's pace (AIMD); `concurrency` and
   * `intervalCap`/`intervalMs` are hard caps it never exceeds. `fixed`: exactly the configured
   * rate (for shops that publish theirs), halved for a while after a 429. @default 'adaptive'
   */
  readonly mode?: 'adaptive' | 'fixed';
  /** Requests in flight at once (adaptive: the most). @default 16 adaptive, 4 fixed */
  readonly concurrency?: number;
  /** Requests allowed per `intervalMs` (adaptive: the most). @default 500 adaptive, 10 fixed */
  readonly intervalCap?: number;
  /** Window of `intervalCap`. @default 1000 */
  readonly intervalMs?: number;
}

/** Retry policy for network errors, 429, 502, 503, 504. */
export interface RetryOptions {
  /** Attempts after the first. @default 5 */
  readonly retries?: number;
  /** First backoff ceiling (full jitter: a random wait up to this, doubling each attempt). @default 250 */
  readonly baseDelayMs?: number;
  /** Largest wait between attempts, also caps Retry-After. @default 30000 */
  readonly maxDelayMs?: number;
}

/** Options of `createShopClient`. */
export interface ShopClientOptions {
  /** The API's base URL; paths from the registry are appended (`{base}/export/json/products`). */
  readonly baseUrl: string;
  readonly auth: ShopAuth;
  readonly rateLimit?: RateLimitOptions;
  readonly retry?: RetryOptions;
  /** Records per write request. @default 100 */
  readonly batchSize?: number;
  /**
   * One deadline per attempt over connecting, the headers and the whole body; an attempt past it is
   * a timeout (ETIMEDOUT): a read is retried, a write not safe to repeat is OUTCOME_UNKNOWN. @default 30000
   */
  readonly timeoutMs?: number;
  /** Largest answer body read (bytes, after decompression); a larger one is SHOP_RESPONSE_TOO_LARGE. @default 64 MiB */
  readonly maxResponseBytes?: number;
  readonly logger?: Logger;
  /** Observer for metrics and the event stream (request finished, throttled…). */
  readonly onEvent?: (event: ClientEvent) => void;
  /**
   * The shop's request budget shared by every process on the same state (`openSharedRateLimits`):
   * each attempt takes a point of it before it goes out, and a 429 pauses every process. The
   * client does not close it. @default none: this process's limits only
   */
  readonly sharedLimiter?: SharedRateLimiter;
  /** The shop's circuit breaker (client/breaker.ts). @default 10 failures, first probe after 30 s, at most every 10 min */
  readonly breaker?: Partial<BreakerOptions>;
}

/** Something the client saw, for metrics and logs. */
export type ClientEvent =
  /** `shopDate`: the answer's `Date` header, the shop's clock (whole seconds), for the skew gauge. */
  | { readonly type: 'request'; readonly resource: string; readonly method: string; readonly status: number | 'network'; readonly durationMs: number; readonly attempt: number; readonly shopDate?: string }
  | { readonly type: 'throttled'; readonly resource: string; readonly retryAfterMs: number }
  | { readonly type: 'queue'; readonly size: number; readonly pending: number }
  /** The queue's limits changed (adaptive controller, or a fixed rate braking after 429). */
  | ({ readonly type: 'rate' } & RateSnapshot)
  /** An attempt waited for the budget shared with other replicas (it was used up, or the shop paused). */
  | { readonly type: 'shared-wait'; readonly waitedMs: number }
  /** Another replica met a 429: this client pauses and slows down as if it had. */
  | { readonly type: 'shared-pause'; readonly retryAfterMs: number }
  /** The circuit breaker opened (the shop kept failing) or closed (a probe was answered). */
  | ({ readonly type: 'circuit'; readonly reason: string } & BreakerSnapshot);

/** What happened to one record of a write. */
export interface RecordOutcome {
  /** Index of the record in the array the caller passed. */
  readonly index: number;
  readonly ok: boolean;
  /** The shop's `data[]` entry for this record (ids the shop assigned…). */
  readonly data?: Readonly<Record<string, unknown>>;
  readonly warnings: readonly MessageEntry[];
  /** Why the record failed (absent when ok). */
  readonly error?: ShopApiError;
}

/** Result of a (possibly multi-request) write. */
export interface WriteResult {
  readonly outcomes: readonly RecordOutcome[];
  /** HTTP requests the write took, retries included. */
  readonly requests: number;
}

/** Options of list exports. */
export interface ExportOptions {
  /** Export filters (query parameters), validated against the registry. */
  readonly filters?: Readonly<Record<string, string | number>>;
  /** Records per page; clamped to the resource's maximum. @default the resource's maximum */
  readonly pageSize?: number;
  /** Start offset. @default 0 */
  readonly offset?: number;
  readonly signal?: AbortSignal;
}

/** One page of an export. */
export interface ExportPageResult {
  readonly records: readonly Record<string, unknown>[];
  readonly offset: number;
  readonly total?: number;
}

/** Options of writes. */
export interface WriteOptions {
  /** Records per request. @default the client's batchSize */
  readonly batchSize?: number;
  readonly signal?: AbortSignal;
}

/** A binary file downloaded from the shop. */
export interface DownloadedFile {
  readonly contentType: string;
  readonly fileName: string;
  readonly data: Buffer;
}

export type { MediaFile, MediaUploadResult } from './media.js';

/** The typed Shop API client. */
export interface ShopClient {
  /** Every page of a list export, in order, until the last page. */
  exportPages(resource: ResourceName, options?: ExportOptions): AsyncIterable<ExportPageResult>;
  /** Every record of a list export, page after page. */
  exportAll(resource: ResourceName, options?: ExportOptions): AsyncIterable<Record<string, unknown>>;
  /** One record by id (`/export/json/<singular>/{id}`, or the list filtered by id where the resource has no single route). */
  exportOne(resource: ResourceName, id: number | string): Promise<Record<string, unknown> | undefined>;
  /** Records with ids in `start..end` (`{START}:{END}` routes). */
  exportRange(resource: ResourceName, start: number, end: number): Promise<Record<string, unknown>[]>;
  /** Create records (POST), several per request. */
  create(resource: ResourceName, records: readonly Record<string, unknown>[], options?: WriteOptions): Promise<WriteResult>;
  /** Update records (PUT), several per request. */
  update(resource: ResourceName, records: readonly Record<string, unknown>[], options?: WriteOptions): Promise<WriteResult>;
  /** Delete one record the way the resource takes its id (path, query or body). */
  delete(resource: ResourceName, id: number | string | Readonly<Record<string, string | number>>): Promise<DeleteResponse>;
  /** Bulk delete (contracts ids, subscribers by id or e-mail, SEO history by ids / expired / type+base_id). */
  bulkDelete(resource: ResourceName, selector: Readonly<Record<string, unknown>>): Promise<DeleteResponse>;
  /** Change only a contract's status, with an optional comment. */
  setContractStatus(contractId: number, status: number, comment?: string): Promise<Record<string, unknown>>;
  /** Set, extend, take over or release ticket claims. */
  claimTickets(claims: readonly ClaimRequest[]): Promise<ClaimsResponse>;
  /** List a ticket's attachments. */
  listTicketAttachments(ticketId: number): Promise<AttachmentListing>;
  /** Download one ticket attachment as binary. */
  downloadTicketAttachment(ticketId: number, fileName: string): Promise<DownloadedFile>;
  /** Upload files with `POST /media` in the shape shopsync ASSUMES (the spec does not show it; docs/catalog.md). */
  uploadMedia(entityType: string, files: readonly MediaFile[]): Promise<MediaUploadResult>;
  /** Every record of a resource-specific GET list route of the registry's `extra` operations (news `all` = /export/json/newsdesks), page after page. */
  exportExtra(resource: ResourceName, operation: string, options?: ExportOptions): AsyncIterable<Record<string, unknown>>;
  /** The category-to-product mapping (productlist). */
  categoryProductList(params?: Readonly<Record<string, string | number>>): AsyncIterable<Record<string, unknown>>;
  /** Requests waiting in and running through the queue. */
  queueDepth(): { readonly size: number; readonly pending: number };
  /** The queue's current limits (requests per second, in flight, adaptive phase). */
  rate(): RateSnapshot;
  /** Where the shop's circuit breaker stands. */
  circuit(): BreakerSnapshot;
  /** Stop the queue and drop cached tokens. */
  close(): Promise<void>;
}

/** One ticket claim request (spec: Claims request body). */
export interface ClaimRequest {
  readonly ticket_id: number;
  readonly admin_id: number;
  readonly state: 'claimed' | 'released';
  readonly ttl_minutes?: number;
  readonly label?: string;
  readonly force?: boolean;
}
