/**
 * Bearer tokens and OAuth 2.0 client credentials of the sandbox. Static tokens come from the
 * options (`--token value[=scopes]`); OAuth clients (`--client id:secret[=scopes]`) obtain
 * expiring tokens at `POST /oauth/token`. A token without scopes holds every scope (`*`).
 */
import { randomBytes } from 'node:crypto';
import { ConfigError } from '../errors.js';

/** A static token. No scopes (or `*`) = every scope. */
export interface TokenSpec {
  readonly value: string;
  readonly scopes?: readonly string[];
}

/** An OAuth client. No scopes = every scope. */
export interface ClientSpec {
  readonly id: string;
  readonly secret: string;
  readonly scopes?: readonly string[];
}

const SCOPE = /^[a-z_]+:(read|write|delete)$/;

function parseScopes(text: string | undefined, what: string): string[] | undefined {
  if (text === undefined) return undefined;
  const scopes = text.split(/[,\s]+/).filter((s) => s.length > 0);
  for (const s of scopes) {
    if (s !== '*' && !SCOPE.test(s)) throw new ConfigError(`Invalid scope \`${s}\` in ${what}; expected names like products:read, orders:write`);
  }
  return scopes;
}

/** Parse `value` or `value=products:read,orders:read` (the CLI's `--token`). */
export function parseTokenSpec(spec: string): TokenSpec {
  const eq = spec.indexOf('=');
  const value = eq < 0 ? spec : spec.slice(0, eq);
  if (value.length === 0) throw new ConfigError(`Invalid --token \`${spec}\`; expected <value>[=<scope>,<scope>…]`);
  const scopes = eq < 0 ? undefined : parseScopes(spec.slice(eq + 1), `--token ${value}`);
  return scopes === undefined ? { value } : { value, scopes };
}

/** Parse `id:secret` or `id:secret=products:read,orders:write` (the CLI's `--client`). */
export function parseClientSpec(spec: string): ClientSpec {
  const eq = spec.indexOf('=');
  const creds = eq < 0 ? spec : spec.slice(0, eq);
  const colon = creds.indexOf(':');
  if (colon <= 0 || colon === creds.length - 1) throw new ConfigError(`Invalid --client \`${spec}\`; expected <id>:<secret>[=<scope>,<scope>…]`);
  const id = creds.slice(0, colon);
  const secret = creds.slice(colon + 1);
  const scopes = eq < 0 ? undefined : parseScopes(spec.slice(eq + 1), `--client ${id}`);
  return scopes === undefined ? { id, secret } : { id, secret, scopes };
}

/** The default token when none are given. */
export const DEFAULT_TOKEN = 'sandbox-token';

/** Lifetime of OAuth tokens in seconds. */
export const OAUTH_TOKEN_TTL_SECONDS = 3600;

interface IssuedToken {
  readonly scopes: readonly string[];
  expiresAt: number;
}

/** Result of a token check. */
export type TokenCheck = { readonly ok: true; readonly scopes: readonly string[] } | { readonly ok: false; readonly reason: 'missing' | 'invalid' | 'expired' };

/** The sandbox's token registry. */
export class TokenRegistry {
  private readonly statics = new Map<string, readonly string[]>();
  private readonly issued = new Map<string, IssuedToken>();
  private readonly clients = new Map<string, ClientSpec>();

  constructor(
    tokens: readonly TokenSpec[],
    clients: readonly ClientSpec[],
    private readonly clock: () => number,
  ) {
    for (const t of tokens) this.statics.set(t.value, t.scopes && t.scopes.length > 0 ? t.scopes : ['*']);
    for (const c of clients) this.clients.set(c.id, c);
  }

  /** Check an Authorization header value. */
  check(header: string | undefined): TokenCheck {
    if (!header) return { ok: false, reason: 'missing' };
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) return { ok: false, reason: 'invalid' };
    const token = m[1];
    const fixed = this.statics.get(token);
    if (fixed) return { ok: true, scopes: fixed };
    const issued = this.issued.get(token);
    if (!issued) return { ok: false, reason: 'invalid' };
    if (issued.expiresAt <= this.clock()) return { ok: false, reason: 'expired' };
    return { ok: true, scopes: issued.scopes };
  }

  /** Issue a token for client credentials; undefined when the client is unknown or the secret wrong. */
  issue(clientId: string, clientSecret: string, requested?: readonly string[]): { token: string; scopes: readonly string[]; expiresIn: number } | 'invalid_client' | 'invalid_scope' {
    const client = this.clients.get(clientId);
    if (!client || client.secret !== clientSecret) return 'invalid_client';
    const held = client.scopes && client.scopes.length > 0 ? client.scopes : ['*'];
    let scopes = held;
    if (requested && requested.length > 0) {
      if (!requested.every((s) => hasScope(held, s))) return 'invalid_scope';
      scopes = requested;
    }
    const token = randomBytes(24).toString('hex');
    this.issued.set(token, { scopes, expiresAt: this.clock() + OAUTH_TOKEN_TTL_SECONDS * 1000 });
    return { token, scopes, expiresIn: OAUTH_TOKEN_TTL_SECONDS };
  }

  /** Expire every issued OAuth token now (for testing token refresh). */
  expireIssued(): number {
    const now = this.clock();
    for (const t of this.issued.values()) t.expiresAt = now;
    return this.issued.size;
  }
}

/** Whether a scope list grants `required` (`*` grants everything). */
export function hasScope(scopes: readonly string[], required: string): boolean {
  return scopes.includes('*') || scopes.includes(required);
}
