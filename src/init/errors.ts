/** Errors of `shopsync init`: each says which answer is wrong and how to fix it. */
import { SyncError, type SyncErrorOptions } from '../errors.js';

/** Stable codes of init failures. */
export const INIT_CODES = {
  /** An answer is missing or invalid (a flag, or a prompt without a terminal). */
  input: 'INIT_INPUT',
  /** A file init would write exists and `--force` was not given. */
  exists: 'INIT_FILE_EXISTS',
  /** The shop did not accept the URL or the credentials. */
  shop: 'INIT_SHOP',
  /** The source could not be read or holds no rows to learn from. */
  source: 'INIT_SOURCE',
  /** The orders pull's staging tables exist without a column of the layout (an older shopsync's, or made by hand). */
  staging: 'INIT_STAGING',
} as const;

export type InitCode = (typeof INIT_CODES)[keyof typeof INIT_CODES];

/** A failure of `shopsync init`. */
export class InitError extends SyncError {
  constructor(code: InitCode, message: string, options: SyncErrorOptions = {}) {
    super(code, message, options);
  }
}
