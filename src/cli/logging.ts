/**
 * The CLI's root logger: JSON lines by default, pino-pretty on a terminal or with `--pretty`.
 * Two layers keep secrets out: pino redaction by key (Authorization, token, password…) from
 * `src/log.ts`, and a final pass over every line that replaces each secret value the config
 * holds, wherever it appears (an error message, a URL, a payload).
 */
import { createRequire } from 'node:module';
import { pino, type DestinationStream } from 'pino';
import type { prettyFactory as PrettyFactory } from 'pino-pretty';
import { errorSerializer, redactPaths, scrubSecrets, showsStacks, type Logger } from '../log.js';
import { UsageError } from './exit.js';

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/**
 * pino-pretty, loaded only for pretty output: it is about 40 ms of start-up, and JSON lines (cron,
 * systemd, a pipe) never use it. Synchronous, since a logger is made synchronously.
 */
function loadPrettyFactory(): typeof PrettyFactory {
  return (createRequire(import.meta.url)('pino-pretty') as { prettyFactory: typeof PrettyFactory }).prettyFactory;
}

/**
 * The level LOG_LEVEL asks for (any case), or undefined when unset. A value pino does not know
 * is a usage error naming the variable, not pino's "default level:… must be included in custom levels".
 */
export function envLogLevel(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.LOG_LEVEL?.trim();
  if (!raw) return undefined;
  const level = raw.toLowerCase();
  if (!(LEVELS as readonly string[]).includes(level)) throw new UsageError(`LOG_LEVEL=${raw} is not a log level; use one of ${LEVELS.join(', ')}`);
  return level;
}

/** Options of `createCliLogger`. */
export interface CliLoggerOptions {
  /** @default LOG_LEVEL or info */
  readonly level?: string;
  /** true/false force; undefined = pretty when the destination is a TTY. */
  readonly pretty?: boolean;
  /** Where lines go. @default process.stdout */
  readonly destination?: NodeJS.WritableStream & { isTTY?: boolean };
}

/** A logger plus the secret values its lines are scrubbed of. */
export interface CliLogger {
  readonly logger: Logger;
  /** Add values (tokens, passwords) that must never appear in a line. */
  addSecrets(values: Iterable<string>): void;
  /** Whether output is pretty (then progress bars may share the terminal). */
  readonly pretty: boolean;
}

/** Create the process's root logger. */
export function createCliLogger(options: CliLoggerOptions = {}): CliLogger {
  const target = options.destination ?? process.stdout;
  const pretty = options.pretty ?? Boolean(target.isTTY);
  const secrets = new Set<string>();
  const format = pretty ? loadPrettyFactory()({ colorize: Boolean(target.isTTY), translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,app' }) : undefined;
  const destination: DestinationStream = {
    write(line: string) {
      const clean = secrets.size > 0 ? scrubSecrets(line, [...secrets]) : scrubSecrets(line);
      target.write(format ? format(clean) : clean);
    },
  };
  const level = options.level ?? envLogLevel(process.env) ?? 'info';
  const logger = pino(
    {
      level,
      redact: { paths: redactPaths(), censor: '[redacted]' },
      base: { app: 'shopsync' },
      serializers: { err: errorSerializer(showsStacks(level)) },
    },
    destination,
  );
  return {
    logger,
    pretty,
    addSecrets(values) {
      for (const v of values) if (v && v.length >= 4) secrets.add(v);
    },
  };
}
