import { pino, type Logger, type LoggerOptions } from 'pino';
import { SyncError } from './errors.js';

export type { Logger } from 'pino';

/**
 * Keys whose values never reach a log line, wherever they are nested. pino's redaction
 * needs explicit paths, so we list the shapes that occur: top level, one and two levels down,
 * and HTTP header objects.
 */
const SECRET_KEYS = [
  'authorization',
  'Authorization',
  'token',
  'accessToken',
  'access_token',
  'refreshToken',
  'password',
  'clientSecret',
  'client_secret',
  'secret',
  'apiKey',
  'dashboardToken',
];

/** Redaction paths covering the secret keys at the depths where shopsync logs objects. */
export function redactPaths(): string[] {
  const paths: string[] = [];
  for (const key of SECRET_KEYS) {
    paths.push(key, `*.${key}`, `*.*.${key}`, `*.*.*.${key}`, `headers.${key}`, `*.headers.${key}`);
  }
  return paths;
}

/**
 * The message of an error with the text of its causes, each text once: shopsync's errors already
 * say what their cause said (a connector's "PostgreSQL unreachable at …: connect ECONNREFUSED …"),
 * and pino's own serializer appended it a second time.
 */
function messageOnce(err: Error): string {
  let text = err.message;
  const seen = new Set<unknown>([err]);
  for (let cause = err.cause; cause instanceof Error && !seen.has(cause); cause = cause.cause) {
    seen.add(cause);
    if (cause.message && !text.includes(cause.message)) text += `: ${cause.message}`;
  }
  return text;
}

/**
 * The `err` serializer of every shopsync logger. A shopsync error (SyncError) is a failure
 * expected in operation, written for a person: its code and message say it all, so the line
 * carries the message once and no stack, unless `stacks` (debug and trace levels). Anything else
 * is a bug: pino's serialization with the stack.
 */
export function errorSerializer(stacks: boolean): (err: unknown) => unknown {
  return (err) => {
    if (!(err instanceof Error)) return err;
    const out: Record<string, unknown> = { ...pino.stdSerializers.err(err), message: messageOnce(err) };
    if (err instanceof SyncError && !stacks) delete out.stack;
    return out;
  };
}

/** Whether a level shows stacks of shopsync errors (debug and more verbose). */
export function showsStacks(level: string): boolean {
  return level === 'debug' || level === 'trace';
}

/** Options for the root logger. */
export interface LogOptions {
  /** pino level name. @default 'info' (or LOG_LEVEL) */
  readonly level?: string;
  /** Human-readable output (pino-pretty) instead of JSON. @default false */
  readonly pretty?: boolean;
  /** Where lines go. @default stdout */
  readonly destination?: NodeJS.WritableStream;
}

/** Create the root logger; library code takes a logger (or child) from its caller. */
export function createLogger(options: LogOptions = {}): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? 'info';
  const base: LoggerOptions = {
    level,
    redact: { paths: redactPaths(), censor: '[redacted]' },
    base: { app: 'shopsync' },
    serializers: { err: errorSerializer(showsStacks(level)) },
  };
  if (options.pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,app' } } });
  }
  return options.destination ? pino(base, options.destination as pino.DestinationStream) : pino(base);
}

/** A logger that drops everything, for library callers that pass none. */
export const silentLogger: Logger = pino({ level: 'silent' });

/** Replace every secret in a string (tokens in URLs, bearer headers) with [redacted]. */
export function scrubSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  // A credential after "Bearer" is at least 8 characters; shorter words ("bearer token") are prose.
  // Known secrets of any length from 4 are replaced below, whatever precedes them.
  let out = text.replace(/(Bearer\s+)(?=[A-Za-z0-9._~+/=-]{8,})[A-Za-z0-9._~+/=-]+/gi, '$1[redacted]');
  out = out.replace(/((?:client_secret|access_token|token|password)=)[^&\s"]+/gi, '$1[redacted]');
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  return out;
}
