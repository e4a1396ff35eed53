/**
 * Server-sent events for open dashboard pages. Progress notices are coalesced (a run settles
 * thousands of records a minute; a page needs to know "something changed", a few times a second
 * at most) and sent as one `sync` event per flush.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../log.js';
import type { DashboardNotice, DashboardSubscribe } from './types.js';

/** Options of `createLiveHub`. */
export interface LiveHubOptions {
  readonly subscribe: DashboardSubscribe;
  readonly logger: Logger;
  /** How often pending notices are sent. @default 400 */
  readonly flushIntervalMs?: number;
  /** Comment lines that keep proxies from closing an idle stream. @default 20000 */
  readonly heartbeatMs?: number;
  /**
   * A cheap fingerprint of what pages show (latest run, running counters, dead letters), checked
   * while pages are open; a change is announced like a notice. It catches runs started by another
   * process (the CLI) on the same state file, which this process's event stream never sees.
   */
  readonly fingerprint?: () => Promise<string>;
  /** @default 2000 */
  readonly fingerprintIntervalMs?: number;
}

/** The live hub: serves `/api/stream` and relays notices to every open page. */
export interface LiveHub {
  /** Serve one event stream (hijacks the reply). */
  serve(request: FastifyRequest, reply: FastifyReply): void;
  /** Number of open streams. */
  readonly clients: number;
  /** End every stream and stop listening. */
  close(): Promise<void>;
}

/** Start relaying notices; call `close()` on shutdown. */
export function createLiveHub(options: LiveHubOptions): LiveHub {
  const clients = new Set<FastifyReply>();
  let pending = new Map<string, DashboardNotice>();
  let closed = false;
  const unsubscribe = options.subscribe((notice) => {
    if (closed) return;
    const key = `${notice.type}\u0000${notice.pipeline ?? ''}\u0000${notice.runId ?? ''}`;
    if (pending.size < 50 || pending.has(key)) pending.set(key, { type: notice.type, pipeline: notice.pipeline, runId: notice.runId });
  });

  const write = (reply: FastifyReply, chunk: string): void => {
    try {
      reply.raw.write(chunk);
    } catch (err) {
      options.logger.debug({ err }, 'dashboard stream write failed');
      clients.delete(reply);
    }
  };
  const flush = setInterval(() => {
    if (pending.size === 0) return;
    const notices = [...pending.values()];
    pending = new Map();
    const chunk = `event: sync\ndata: ${JSON.stringify(notices)}\n\n`;
    for (const c of clients) write(c, chunk);
  }, options.flushIntervalMs ?? 400);
  const heartbeat = setInterval(() => {
    for (const c of clients) write(c, ': keep-alive\n\n');
  }, options.heartbeatMs ?? 20_000);
  let lastPrint: string | undefined;
  let printing = false;
  const watch = setInterval(() => {
    if (!options.fingerprint || clients.size === 0 || printing) return;
    printing = true;
    options
      .fingerprint()
      .then((print) => {
        if (lastPrint !== undefined && print !== lastPrint) pending.set('state-changed', { type: 'state-changed' });
        lastPrint = print;
      })
      .catch((err: unknown) => options.logger.debug({ err }, 'dashboard state fingerprint failed'))
      .finally(() => {
        printing = false;
      });
  }, options.fingerprintIntervalMs ?? 2000);
  flush.unref();
  heartbeat.unref();
  watch.unref();

  return {
    get clients() {
      return clients.size;
    },
    serve(request, reply) {
      reply.hijack();
      reply.raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
        'x-content-type-options': 'nosniff',
        connection: 'keep-alive',
      });
      reply.raw.write('retry: 3000\n: connected\n\n');
      clients.add(reply);
      request.raw.on('close', () => clients.delete(reply));
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(flush);
      clearInterval(heartbeat);
      clearInterval(watch);
      unsubscribe();
      for (const c of clients) c.raw.end();
      clients.clear();
    },
  };
}
