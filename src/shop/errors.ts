/**
 * Typed errors of the Shop API client, one class per family. Each carries the HTTP status, the
 * shop's own code (`apiCode`: INVALID_PAYLOAD, DUPLICATE_EXTERNAL_REFERENCE, `Already exists`…),
 * the shop's details, and the record it concerns. Pipelines branch on the class or `code`.
 */
import { SyncError, type SyncErrorOptions } from '../errors.js';

/** Options of every shop error. */
export interface ShopErrorOptions extends SyncErrorOptions {
  readonly status?: number;
  /** The shop's code as it answered (e.g. `Already exists`, `TOTAL_DRIFT`). */
  readonly apiCode?: string;
  /** Milliseconds the shop asked us to wait (Retry-After). */
  readonly retryAfterMs?: number;
}

/** Base of every error the shop (or the way to it) produced. */
export class ShopApiError extends SyncError {
  readonly status?: number;
  readonly apiCode?: string;
  readonly retryAfterMs?: number;

  constructor(code: string, message: string, options: ShopErrorOptions = {}) {
    super(code, message, options);
    this.status = options.status;
    this.apiCode = options.apiCode;
    this.retryAfterMs = options.retryAfterMs;
  }

  /** Whether trying the same request later may succeed. */
  get retryable(): boolean {
    return false;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), status: this.status, apiCode: this.apiCode };
  }
}

/** The network failed or the shop answered 5xx/429 beyond the retry budget. */
export class TransportError extends ShopApiError {
  override get retryable(): boolean {
    return true;
  }
}

/**
 * The shop could not be reached at all (connection refused, host unknown, no route): nothing was
 * sent. A pipeline stops its run at once instead of re-sending batch after batch into a closed port.
 */
export class ShopUnreachableError extends TransportError {}

/**
 * SHOP_CIRCUIT_OPEN: the shop's circuit breaker is open after many attempts in a row found it down
 * (client/breaker.ts); nothing was sent. An unreachable shop to the pipelines: the run stops, its
 * records stay for the next run. `details.probeAt` says when the breaker tries the shop again.
 */
export class ShopCircuitOpenError extends ShopUnreachableError {
  constructor(message: string, options: ShopErrorOptions = {}) {
    super('SHOP_CIRCUIT_OPEN', message, options);
  }
}

/**
 * Codes of a run that failed because of the shop, not the ERP or a record: no answer, 5xx, an open
 * circuit breaker, 429 beyond the retries, refused credentials. Runs failing with these count
 * towards a shop's failure streak (src/ops/shopStreaks.ts).
 */
export const SHOP_FAILURE_CODES: ReadonlySet<string> = new Set(['NETWORK_ERROR', 'SHOP_UNAVAILABLE', 'SHOP_CIRCUIT_OPEN', 'RATE_LIMITED', 'UNAUTHORIZED', 'INSUFFICIENT_SCOPE', 'TOKEN_UNAVAILABLE', 'OUTCOME_UNKNOWN']);

/** A write whose answer was lost: it may or may not have taken effect; the caller must reconcile. */
export class OutcomeUnknownError extends TransportError {}

/** The shop kept answering 429 beyond the retry budget. */
export class RateLimitedError extends TransportError {}

/**
 * The shop answered more than `maxResponseBytes` (SHOP_RESPONSE_TOO_LARGE): the answer was not read.
 * Not a transport failure and not retried, since asking again brings the same answer; a write whose
 * answer was this large is an OutcomeUnknownError instead (the shop may have processed it).
 */
export class ResponseTooLargeError extends ShopApiError {
  constructor(message: string, options: ShopErrorOptions = {}) {
    super('SHOP_RESPONSE_TOO_LARGE', message, options);
  }
}

/** 401: token missing, invalid or expired (after one refresh). */
export class AuthenticationError extends ShopApiError {}

/** 403: the token lacks the scope the endpoint needs. */
export class ScopeError extends ShopApiError {}

/** 400-class: the payload was refused (INVALID_PAYLOAD, MISSING_ID, TOTAL_DRIFT, STOCK_INSUFFICIENT…), or the answer did not match its schema. */
export class ValidationError extends ShopApiError {}

/** The record (or a record it refers to) does not exist: Not found, CUSTOMER_NOT_FOUND, PRODUCT_NOT_FOUND, 404. */
export class NotFoundError extends ShopApiError {}

/** 409-class: Already exists, DUPLICATE_EXTERNAL_REFERENCE, LOCKED, HAS_SENT_ENTRIES. */
export class ConflictError extends ShopApiError {}

/** 501 Method not found: the resource or operation does not exist in this shop. */
export class MethodNotFoundError extends ShopApiError {}

/** 503 TICKET_CLAIMS_UNAVAILABLE and other "not yet available" answers. */
export class UnavailableError extends ShopApiError {
  override get retryable(): boolean {
    return true;
  }
}

/** Stable shopsync codes for the shop's codes (the shop's own spelling stays in `apiCode`). */
const FAMILY_BY_API_CODE: Readonly<Record<string, { readonly code: string; readonly family: new (code: string, message: string, options?: ShopErrorOptions) => ShopApiError }>> = {
  INVALID_PAYLOAD: { code: 'INVALID_PAYLOAD', family: ValidationError },
  MISSING_ID: { code: 'MISSING_ID', family: ValidationError },
  TOTAL_DRIFT: { code: 'TOTAL_DRIFT', family: ValidationError },
  STOCK_INSUFFICIENT: { code: 'STOCK_INSUFFICIENT', family: ValidationError },
  CUSTOMER_NOT_FOUND: { code: 'CUSTOMER_NOT_FOUND', family: NotFoundError },
  PRODUCT_NOT_FOUND: { code: 'PRODUCT_NOT_FOUND', family: NotFoundError },
  'Not found': { code: 'NOT_FOUND', family: NotFoundError },
  NOT_FOUND: { code: 'NOT_FOUND', family: NotFoundError },
  DUPLICATE_EXTERNAL_REFERENCE: { code: 'DUPLICATE_EXTERNAL_REFERENCE', family: ConflictError },
  'Already exists': { code: 'ALREADY_EXISTS', family: ConflictError },
  ALREADY_EXISTS: { code: 'ALREADY_EXISTS', family: ConflictError },
  LOCKED: { code: 'LOCKED', family: ConflictError },
  HAS_SENT_ENTRIES: { code: 'HAS_SENT_ENTRIES', family: ConflictError },
  'Method not found': { code: 'METHOD_NOT_FOUND', family: MethodNotFoundError },
  METHOD_NOT_FOUND: { code: 'METHOD_NOT_FOUND', family: MethodNotFoundError },
  TICKET_CLAIMS_UNAVAILABLE: { code: 'TICKET_CLAIMS_UNAVAILABLE', family: UnavailableError },
  UNAUTHORIZED: { code: 'UNAUTHORIZED', family: AuthenticationError },
  INVALID_TOKEN: { code: 'UNAUTHORIZED', family: AuthenticationError },
  INSUFFICIENT_SCOPE: { code: 'INSUFFICIENT_SCOPE', family: ScopeError },
};

/** Build the typed error for a shop answer from its HTTP status and the shop's code. */
export function shopError(status: number | undefined, apiCode: string | undefined, message: string, options: ShopErrorOptions = {}): ShopApiError {
  const known = apiCode ? FAMILY_BY_API_CODE[apiCode] : undefined;
  const opts = { ...options, status, apiCode };
  if (known) return new known.family(known.code, message, opts);
  switch (status) {
    case 400:
    case 422:
      return new ValidationError('INVALID_PAYLOAD', message, opts);
    case 401:
      return new AuthenticationError('UNAUTHORIZED', message, opts);
    case 403:
      return new ScopeError('INSUFFICIENT_SCOPE', message, opts);
    case 404:
      return new NotFoundError('NOT_FOUND', message, opts);
    case 409:
      return new ConflictError('CONFLICT', message, opts);
    case 429:
      return new RateLimitedError('RATE_LIMITED', message, opts);
    case 501:
      return new MethodNotFoundError('METHOD_NOT_FOUND', message, opts);
    default:
      if (status !== undefined && status >= 500) return new TransportError('SHOP_UNAVAILABLE', message, opts);
      return new ShopApiError(apiCode ? 'SHOP_ERROR' : 'SHOP_ERROR', message, opts);
  }
}
