/**
 * Sign-in state of the dashboard: random server-side sessions with an expiry (the cookie carries
 * only a random id, nothing derived from the token), and a per-client back-off on wrong tokens.
 * Both live in the process: a restart signs everyone out, as it already renews the CSRF token.
 */
import { createHash, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';

/** Default session lifetime: a working day. */
export const DEFAULT_SESSION_MS = 12 * 3600_000;

/** Random sessions, looked up by a digest of their id (a memory dump shows no usable cookie). */
export class SessionStore {
  private readonly sessions = new Map<string, number>();

  constructor(
    readonly lifetimeMs: number = DEFAULT_SESSION_MS,
    private readonly max = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new session id, valid for `lifetimeMs`. */
  create(): string {
    const id = randomBytes(32).toString('base64url');
    this.prune();
    // Bounded: each sign-in adds one; the oldest go first.
    while (this.sessions.size >= this.max) {
      const oldest = this.sessions.keys().next().value;
      if (oldest === undefined) break;
      this.sessions.delete(oldest);
    }
    this.sessions.set(digest(id), this.now() + this.lifetimeMs);
    return id;
  }

  /** Whether `id` is a live session. */
  valid(id: string): boolean {
    const key = digest(id);
    const expires = this.sessions.get(key);
    if (expires === undefined) return false;
    if (expires <= this.now()) {
      this.sessions.delete(key);
      return false;
    }
    return true;
  }

  /** End a session (sign-out). */
  revoke(id: string): void {
    this.sessions.delete(digest(id));
  }

  private prune(): void {
    const now = this.now();
    for (const [key, expires] of this.sessions) if (expires <= now) this.sessions.delete(key);
  }
}

function digest(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}

/** Wrong tokens a client may send before it has to wait. */
export const FREE_GUESSES = 5;
const FIRST_WAIT_MS = 1000;
const LONGEST_WAIT_MS = 5 * 60_000;
/** A client's failures are forgotten after this long without one. */
const FORGET_MS = 3600_000;

interface Guesses {
  failures: number;
  blockedUntil: number;
  last: number;
}

/**
 * Per-client back-off on wrong dashboard tokens (sign-in form and bearer header): after
 * FREE_GUESSES failures, each further one doubles the wait (1 s, 2 s, 4 s … 5 min), and while a
 * client waits no token of its is even compared, the right one included (otherwise the answer
 * would still tell a right guess from a wrong one at full speed). A success clears the client.
 * IPv6 clients count per /64 (one host gets a whole /64 to pick addresses from).
 */
export class GuessThrottle {
  private readonly clients = new Map<string, Guesses>();

  constructor(
    private readonly max = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds `client` must still wait before a token of its is compared; 0 when it may try. */
  waitMs(client: string): number {
    const g = this.clients.get(clientKey(client));
    return g ? Math.max(0, g.blockedUntil - this.now()) : 0;
  }

  /** Count a wrong token from `client`. */
  failed(client: string): void {
    const key = clientKey(client);
    const now = this.now();
    let g = this.clients.get(key);
    if (!g || now - g.last > FORGET_MS) g = { failures: 0, blockedUntil: 0, last: now };
    g.failures += 1;
    g.last = now;
    if (g.failures >= FREE_GUESSES) g.blockedUntil = now + Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** (g.failures - FREE_GUESSES));
    // Re-inserted last: the map's order is the order of last failures, and the stalest go first.
    this.clients.delete(key);
    this.clients.set(key, g);
    while (this.clients.size > this.max) {
      const oldest = this.clients.keys().next().value;
      if (oldest === undefined) break;
      this.clients.delete(oldest);
    }
  }

  /** A right token from `client`: its failures are forgotten. */
  succeeded(client: string): void {
    this.clients.delete(clientKey(client));
  }
}

/** The key a client's guesses count under: its IPv4 address, or the /64 of its IPv6 address. */
export function clientKey(address: string): string {
  const a = address.toLowerCase();
  if (a.startsWith('::ffff:') && isIP(a.slice(7)) === 4) return a.slice(7);
  if (isIP(a) !== 6) return a;
  const [head = '', tail = ''] = a.split('::');
  const left = head ? head.split(':') : [];
  const right = a.includes('::') ? (tail ? tail.split(':') : []) : [];
  const groups = a.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
