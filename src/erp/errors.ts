/**
 * Error helpers shared by every ERP connector: typed ConnectorErrors with stable codes,
 * and zod failures turned into ConfigErrors whose messages name the path, what was expected and what came.
 */
import type { z } from 'zod';
import { ConfigError, ConnectorError } from '../errors.js';
import { scrubSecrets } from '../log.js';
import { valueAt } from '../util/paths.js';

/** Stable codes every connector reports; the pipeline branches on these, never on messages. */
export const CONNECTOR_CODES = {
  unreachable: 'CONNECTOR_UNREACHABLE',
  authFailed: 'CONNECTOR_AUTH_FAILED',
  queryFailed: 'CONNECTOR_QUERY_FAILED',
  invalidRecord: 'CONNECTOR_INVALID_RECORD',
  /** The ERP table refused a row's data (too long, a constraint, a wrong type): a letter of that record, not a failed run. */
  rowRefused: 'SINK_ROW_REFUSED',
  orderViolation: 'CONNECTOR_ORDER_VIOLATION',
  /** A stored cursor or backfill bound that does not compare like the cursor column's values (src/pipeline/cursorForm.ts). */
  cursorFormat: 'CONNECTOR_CURSOR_FORMAT',
  httpError: 'CONNECTOR_HTTP_ERROR',
  /** An HTTP answer above the connection's maxResponseBytes: refused while read, not retried. */
  responseTooLarge: 'CONNECTOR_RESPONSE_TOO_LARGE',
  fileUnreadable: 'FILE_UNREADABLE',
  folderMissing: 'FILE_FOLDER_MISSING',
  fileTooLarge: 'FILE_TOO_LARGE',
  fileWriteFailed: 'FILE_WRITE_FAILED',
  fileRejected: 'FILE_REJECTED',
  /** A link, a foreign-owned folder or a swapped file where shopsync reads or writes inbox files: refused, never followed. */
  fileUnsafe: 'FILE_UNSAFE',
} as const;

/** One of the stable connector error codes. */
export type ConnectorCode = (typeof CONNECTOR_CODES)[keyof typeof CONNECTOR_CODES];

/** Build a ConnectorError; `secrets` are scrubbed from the message so passwords never reach logs. */
export function connectorError(
  connector: string,
  code: ConnectorCode,
  message: string,
  options: { cause?: unknown; details?: Record<string, unknown>; secrets?: readonly (string | undefined)[]; erpKey?: string } = {},
): ConnectorError {
  return new ConnectorError(code, scrubSecrets(message, options.secrets), {
    connector,
    cause: options.cause,
    details: options.details,
    record: options.erpKey === undefined ? undefined : { erpKey: options.erpKey },
  });
}

/** The message of anything thrown, for embedding in a ConnectorError message. */
export function causeText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
  }
  return String(err);
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const type = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  const text = JSON.stringify(value);
  return text === undefined ? type : `\`${text.length > 60 ? `${text.slice(0, 57)}...` : text}\` (${type})`;
}

/** Parse `input` with `schema`; on failure throw a ConfigError listing every issue as `path: message, got X`. */
export function parseConfig<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    return `${what}.${path}: ${issue.message}, got ${describeValue(valueAt(input, issue.path))}`;
  });
  const first = result.error.issues[0];
  throw new ConfigError(`Invalid ${what}:\n  ${lines.join('\n  ')}`, {
    key: first ? first.path.map(String).join('.') : undefined,
    details: { issues: lines },
  });
}
