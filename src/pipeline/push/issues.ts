/** Turning errors and shop messages into the stored `{code, message, field?, details?}` shape. */
import { SyncError } from '../../errors.js';
import type { MessageEntry } from '../../shop/schema/envelopes.js';
import type { StoredIssue } from '../../state/index.js';

/** A thrown or returned error as a stored issue. */
export function issueOf(err: unknown): StoredIssue {
  if (err instanceof SyncError) {
    const field = (err as { field?: unknown }).field;
    return {
      code: err.code,
      message: err.message,
      ...(typeof field === 'string' ? { field } : {}),
      ...(err.details ? { details: { ...err.details } } : {}),
    };
  }
  return { code: 'INTERNAL', message: err instanceof Error ? err.message : String(err) };
}

/** A shop warning entry as a stored issue. */
export function warningOf(entry: MessageEntry): StoredIssue {
  return {
    code: entry.code ?? entry.error ?? 'WARNING',
    message: entry.message ?? entry.error ?? entry.code ?? 'warning',
    ...(entry.field !== undefined ? { field: entry.field } : {}),
  };
}
