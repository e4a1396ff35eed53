/**
 * One PostgreSQL connection that LISTENs on a channel, for as long as the daemon runs.
 *
 * A LISTEN lives on one session, so this is a dedicated `pg.Client`, never a pooled connection
 * (a pool would hand the session back and the LISTEN with it). The connection can die quietly: a
 * server restart, a `pg_terminate_backend`, a NAT dropping an idle flow. So: TCP keepalives, a
 * cheap `SELECT 1` every `livenessMs` that must answer within `livenessTimeoutMs` (a half-open
 * connection answers nothing and is dropped), and reconnecting with backoff (1 s doubling to 30 s,
 * jittered), LISTEN again, then `onConnected` — every time, the first included, because a
 * notification sent while nobody listened is gone and only a run from the cursor catches it up.
 */
import pg from 'pg';
import { causeText } from '../../erp/errors.js';
import type { Logger } from '../../log.js';

/** Options of `startListener`; durations in milliseconds. */
export interface ListenerOptions {
  /** Connection settings (host, TLS, search_path…), as `postgresSettings()` makes them. */
  readonly client: pg.ClientConfig;
  readonly channel: string;
  /** A notification on the channel arrived; `payload` is whatever the notifier sent (the table name). */
  readonly onNotify: (payload: string) => void;
  /** LISTEN is in place again (also the first time): time for a catch-up run. */
  readonly onConnected: () => void;
  readonly logger: Logger;
  /** How often the connection is asked `SELECT 1`. @default 30000 */
  readonly livenessMs?: number;
  /** How long that answer may take before the connection counts as dead. @default 10000 */
  readonly livenessTimeoutMs?: number;
  /** First reconnect delay, doubled per failed attempt. @default 1000 */
  readonly backoffMs?: number;
  /** Reconnect delay ceiling. @default 30000 */
  readonly maxBackoffMs?: number;
}

/** A running listener. */
export interface Listener {
  /** `connecting` (first attempt), `listening`, or `reconnecting` (down, retrying). */
  state(): 'connecting' | 'listening' | 'reconnecting';
  /** The last connection error while not listening. */
  lastError(): string | undefined;
  /** Stop retrying and close the connection. */
  close(): Promise<void>;
}

/** The name the listener's session shows in pg_stat_activity (so a DBA can tell it apart). */
export const LISTENER_APPLICATION_NAME = 'shopsync-listen';

/** Drop a client at once, also one whose socket no longer answers (end() alone would wait for the server). */
function discard(client: pg.Client): void {
  client.removeAllListeners('notification');
  client.end().catch(() => undefined);
  // pg keeps its socket on `connection.stream`; not in its types, hence the narrow cast.
  (client as unknown as { connection?: { stream?: { destroy?: () => void } } }).connection?.stream?.destroy?.();
}

/** Start listening; never throws for an unreachable server (it keeps retrying and says so once per outage). */
export function startListener(o: ListenerOptions): Listener {
  const livenessMs = o.livenessMs ?? 30_000;
  const livenessTimeoutMs = o.livenessTimeoutMs ?? 10_000;
  const firstDelay = o.backoffMs ?? 1000;
  const maxDelay = o.maxBackoffMs ?? 30_000;
  let closed = false;
  let state: 'connecting' | 'listening' | 'reconnecting' = 'connecting';
  let failures = 0;
  let lastError: string | undefined;
  let current: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let liveness: NodeJS.Timeout | undefined;

  const retryLater = (err: unknown): void => {
    failures += 1;
    lastError = causeText(err);
    const wasListening = state === 'listening';
    state = 'reconnecting';
    const base = Math.min(maxDelay, firstDelay * 2 ** Math.min(failures - 1, 30));
    const delay = Math.min(maxDelay, Math.round(base * (0.75 + Math.random() * 0.5)));
    // One warning per outage; the attempts after it are debug lines.
    if (failures === 1) {
      o.logger.warn(
        { channel: o.channel, err: lastError, retryInMs: delay },
        wasListening
          ? 'LISTEN connection lost; reconnecting with backoff, a catch-up run follows the reconnect (a schedule, if any, still runs)'
          : 'cannot LISTEN: PostgreSQL unreachable; retrying with backoff (a schedule, if any, still runs)',
      );
    } else {
      o.logger.debug({ channel: o.channel, err: lastError, attempt: failures, retryInMs: delay }, 'LISTEN reconnect failed; retrying');
    }
    // Not unref'd: the retry is what brings the wake-ups back; close() clears it.
    retry = setTimeout(() => void connect(), delay);
  };

  const connect = async (): Promise<void> => {
    retry = undefined;
    if (closed) return;
    const client = new pg.Client({ ...o.client, keepAlive: true, keepAliveInitialDelayMillis: 10_000, application_name: LISTENER_APPLICATION_NAME });
    current = client;
    let down = false;
    const lost = (err: unknown): void => {
      if (down) return;
      down = true;
      if (liveness !== undefined && current === client) clearInterval(liveness);
      discard(client);
      if (!closed) retryLater(err);
    };
    // pg emits 'error' on a socket failure between queries; without a listener it would crash the process.
    client.on('error', lost);
    client.on('end', () => lost(new Error('the server closed the connection')));
    client.on('notification', (msg) => {
      if (msg.channel === o.channel) o.onNotify(msg.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(o.channel)}`);
    } catch (err) {
      lost(err);
      return;
    }
    if (down || closed) return;
    if (failures > 0) o.logger.info({ channel: o.channel, attempts: failures }, 'listening again; a catch-up run reads what changed meanwhile');
    else o.logger.info({ channel: o.channel }, 'listening');
    state = 'listening';
    failures = 0;
    lastError = undefined;
    let checking = false;
    liveness = setInterval(() => {
      if (checking || down) return;
      checking = true;
      let timer: NodeJS.Timeout | undefined;
      const silent = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer to SELECT 1 within ${livenessTimeoutMs} ms (a half-open connection)`)), livenessTimeoutMs);
      });
      Promise.race([client.query('SELECT 1'), silent])
        .catch((err: unknown) => lost(err))
        .finally(() => {
          clearTimeout(timer);
          checking = false;
        });
    }, livenessMs);
    o.onConnected();
  };

  void connect();
  return {
    state: () => state,
    lastError: () => lastError,
    async close() {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      if (liveness !== undefined) clearInterval(liveness);
      const client = current;
      current = undefined;
      if (!client) return;
      client.removeAllListeners('notification');
      // end() waits for the server's goodbye; a dead socket never sends one, so it is bounded.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([client.end().catch(() => undefined), new Promise<void>((r) => (timer = setTimeout(r, 2000)))]);
      clearTimeout(timer);
      discard(client);
    },
  };
}
