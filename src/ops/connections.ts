/**
 * A cap on the daemon server's open connections. Every connection holds a file descriptor, and
 * the daemon shares its descriptors with the state, the inbox watcher and the ERP: clients that
 * open connections and send a byte now and then (before any authentication) would otherwise take
 * them all (EMFILE) and with them /healthz and the inbox.
 *
 * At the cap, a new connection is not refused: the connection that has waited longest without a
 * complete request (still sending its headers or body, or idle between requests) is closed to
 * make room. Slow clients then push out each other, not a probe or a sign-in, whose requests
 * arrive whole at once. Only when every connection is being answered is the newcomer closed.
 * The request and headers timeouts (set at server construction) end the slow ones anyway.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

interface Tracked {
  /** When the connection last started to wait: connected, began a request, or finished an answer (monotonic ms). */
  since: number;
  req?: IncomingMessage;
  res?: ServerResponse;
}

/** Whether the connection is being answered: its request is whole and its answer not yet finished (an event stream too). */
function answering(t: Tracked): boolean {
  return t.req !== undefined && t.res !== undefined && t.req.complete && !t.res.writableFinished && !t.res.destroyed;
}

/** What the cap did so far (for the log and tests). */
export interface ConnectionCapStats {
  readonly open: number;
  /** Connections closed to make room for a newer one. */
  readonly evicted: number;
  /** New connections closed because every open one was being answered. */
  readonly turnedAway: number;
}

/** Enforce `max` open connections on `server` (see the module comment); returns its counters. */
export function capConnections(server: Server, max: number): () => ConnectionCapStats {
  const open = new Map<Socket, Tracked>();
  let evicted = 0;
  let turnedAway = 0;
  server.on('connection', (socket: Socket) => {
    if (open.size >= max) {
      let oldest: [Socket, Tracked] | undefined;
      for (const entry of open) if (!answering(entry[1]) && (!oldest || entry[1].since < oldest[1].since)) oldest = entry;
      if (!oldest) {
        turnedAway += 1;
        socket.destroy();
        return;
      }
      evicted += 1;
      open.delete(oldest[0]);
      oldest[0].destroy();
    }
    open.set(socket, { since: performance.now() });
    socket.once('close', () => open.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const t = open.get(req.socket);
    if (!t) return;
    // A body that still trickles in keeps the connection evictable (`req.complete` is false until it is whole).
    t.since = performance.now();
    t.req = req;
    t.res = res;
    res.once('finish', () => {
      t.since = performance.now();
    });
  });
  return () => ({ open: open.size, evicted, turnedAway });
}
