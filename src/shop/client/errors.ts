/** Errors the client itself raises on top of the shop's families (src/shop/errors.ts). */
import { ShopApiError, ValidationError, type ShopErrorOptions } from '../errors.js';
import type { z } from 'zod';
import { formatPath } from '../../util/paths.js';

/**
 * A record that did nothing wrong but was refused because another record of the same
 * all-or-nothing request (orders) failed. Sending it again, in a smaller batch, may succeed.
 */
export class BatchRejectedError extends ShopApiError {
  constructor(message: string, options: ShopErrorOptions = {}) {
    super('BATCH_REJECTED', message, options);
  }

  override get retryable(): boolean {
    return true;
  }
}

/** A record of a write that was stopped (abort signal) before its request was sent. */
export class NotSentError extends ShopApiError {
  constructor(message: string, options: ShopErrorOptions = {}) {
    super('NOT_SENT', message, options);
  }

  override get retryable(): boolean {
    return true;
  }
}

/** The shop's answer did not have the shape the API promises; names the first mismatching paths. */
export function invalidResponse(what: string, error: z.ZodError, options: ShopErrorOptions = {}): ValidationError {
  const issues = error.issues.slice(0, 3).map((issue) => `${formatPath(issue.path, '(root)')}: ${issue.message}`);
  const more = error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : '';
  return new ValidationError('INVALID_RESPONSE', `The shop's answer to ${what} did not match the API: ${issues.join('; ')}${more}`, {
    ...options,
    details: { ...options.details, paths: error.issues.map((i) => formatPath(i.path, '(root)')) },
  });
}
