/**
 * Small pieces of reading a request that the dashboard's defences share (./security.ts,
 * ./auth.ts): secret comparison, cookies, the Host header, and the shape of a refusal.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/** Host header names a token-less dashboard answers to (exact names: a DNS-rebinding guard, not an address check). */
export const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** Constant-time string comparison (different lengths compare unequal without leaking where). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

/** Cookies of a request as a map (first value wins). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) {
      try {
        out.set(name, decodeURIComponent(part.slice(eq + 1).trim()));
      } catch {
        out.set(name, part.slice(eq + 1).trim());
      }
    }
  }
  return out;
}

/** Split a Host header into hostname and port. */
export function parseHost(host: string | undefined): { hostname: string; port: string } {
  if (!host) return { hostname: '', port: '' };
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host.trim().toLowerCase());
  return m ? { hostname: m[1] ?? '', port: m[2] ?? '' } : { hostname: '', port: '' };
}

/** Why a request was refused: an HTTP status and a message for the operator. */
export interface Refusal {
  readonly status: number;
  readonly message: string;
  /** A short stable name of the reason, for the refusal log's count (`foreign-host`, `wrong-token`, `csrf`…). */
  readonly reason?: string;
  /** Sent as `Retry-After` (a client that guessed too many tokens). */
  readonly retryAfterSeconds?: number;
}

/** Cookies ignore ports, so two shopsync daemons on one host would overwrite each other's cookies. */
export function cookieSuffix(request: FastifyRequest): string {
  return parseHost(request.headers.host).port || 'default';
}

/** The refusal of a client that guessed too many wrong tokens and must wait `waitMs`. */
export function throttled(waitMs: number): Refusal {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return { status: 429, reason: 'throttled', retryAfterSeconds: seconds, message: `Too many wrong tokens from your address; try again in ${seconds} s.` };
}
