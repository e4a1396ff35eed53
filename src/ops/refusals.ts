/**
 * The log of refused requests (foreign Host, missing or wrong token, unsigned wake-up). Anyone who
 * can reach the port can make refusals as fast as the network carries them, each with a URL of
 * up to 16 KiB: logged one by one, that is tens of MB of log a second from one client. So a
 * logged URL and Host value are cut, and per source and reason only the first refusal of an
 * interval gets a line of its own; the others are counted, and said with their count in one line
 * when the interval ends (or the server closes).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from '../log.js';

/** Longest URL kept in a log line (characters). */
export const LOGGED_URL_CHARS = 200;
/** Longest Host value kept in a log line (characters). */
export const LOGGED_HOST_CHARS = 100;

/** `text` cut to `max` characters, saying how much was cut. */
export function cutForLog(text: string | undefined, max: number): string | undefined {
  if (text === undefined) return undefined;
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** Options of `createRefusalLog`. */
export interface RefusalLogOptions {
  /** One line per source and reason per interval. @default 60000 */
  readonly intervalMs?: number;
  /** Sources told apart in one interval; refusals from further sources are counted together. @default 1000 */
  readonly maxSources?: number;
}

/** Counts and logs refusals (see the module comment). */
export interface RefusalLog {
  /** Log a refused request: in full (cut) when it is the first of its source and reason this interval, else counted. */
  note(request: FastifyRequest, reason: string, message: string, fields?: Record<string, unknown>): void;
  /** Say what was counted and start a new interval. */
  flush(): void;
  /** Flush and stop the interval timer. */
  close(): void;
}

interface Tally {
  readonly remote: string;
  readonly reason: string;
  readonly message: string;
  count: number;
  lastUrl: string | undefined;
}

const OTHER = 'other sources';

/** A refusal log writing to `logger`. */
export function createRefusalLog(logger: Logger, options: RefusalLogOptions = {}): RefusalLog {
  const intervalMs = options.intervalMs ?? 60_000;
  const maxSources = options.maxSources ?? 1000;
  let tallies = new Map<string, Tally>();
  let sources = new Set<string>();
  const flush = (): void => {
    const done = tallies;
    tallies = new Map();
    sources = new Set();
    for (const t of done.values()) {
      // The first refusal of each source and reason had its own line; only what was held back is said here.
      const held = t.remote === OTHER ? t.count : t.count - 1;
      if (held <= 0) continue;
      logger.warn(
        { remote: t.remote, reason: t.reason, refused: held, intervalSeconds: Math.round(intervalMs / 1000), lastUrl: t.lastUrl },
        `${held} more request(s) refused from ${t.remote} (${t.reason}) in the last ${Math.round(intervalMs / 1000)} s: ${t.message}`,
      );
    }
  };
  const timer = setInterval(flush, intervalMs);
  // Housekeeping: the server keeps the process alive, not this.
  timer.unref();
  return {
    note(request, reason, message, fields = {}) {
      const ip = request.ip || 'unknown';
      const known = sources.has(ip) || sources.size < maxSources;
      if (known) sources.add(ip);
      const remote = known ? ip : OTHER;
      const key = `${remote}\u0000${reason}`;
      const url = cutForLog(request.url, LOGGED_URL_CHARS);
      const tally = tallies.get(key);
      if (tally) {
        tally.count += 1;
        tally.lastUrl = url;
        return;
      }
      tallies.set(key, { remote, reason, message, count: 1, lastUrl: url });
      if (remote === OTHER) return;
      logger.warn({ ...fields, remote, reason, method: request.method, url, host: cutForLog(request.headers.host, LOGGED_HOST_CHARS) }, `${message} (further refusals from ${remote} for this reason are counted for ${Math.round(intervalMs / 1000)} s)`);
    },
    flush,
    close() {
      clearInterval(timer);
      flush();
    },
  };
}

const logs = new WeakMap<FastifyInstance, RefusalLog>();

/** Attach the refusal log every route of `app` reports to (the ops server does, at construction). */
export function attachRefusalLog(app: FastifyInstance, log: RefusalLog): void {
  logs.set(app, log);
}

/**
 * The refusal log of the server `app` belongs to; a fastify app without an ops server (a test of
 * the dashboard alone) gets one of its own on its logger, closed with it.
 */
export function refusalLogOf(app: FastifyInstance, logger: Logger): RefusalLog {
  const known = logs.get(app);
  if (known) return known;
  const log = createRefusalLog(logger);
  logs.set(app, log);
  app.addHook('onClose', async () => log.close());
  return log;
}
