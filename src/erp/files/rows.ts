/** What a file reader yields per record: the record with where it stood, or why it is unusable. */
import type { RefusedRecord } from '../types.js';

/** One row of a file: `record` when the parser could read it, `bad` when it could not. */
export interface FileRow {
  readonly record?: unknown;
  readonly bad?: RefusedRecord;
  /** 1-based line where the row starts (CSV, NDJSON). */
  readonly line?: number;
  /** 1-based position of the element (JSON array element, XML record element). */
  readonly element?: number;
  readonly raw?: string;
  /** Line formats: line breaks inside the record (quoted values), so the lines it spans are `line`..`line + span`. */
  readonly span?: number;
}
