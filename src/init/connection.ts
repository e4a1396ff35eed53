/**
 * From answers to what the config says: the shop block and the ERP connection, each twice: live
 * (with the real secret, to check and introspect now) and as written (secrets replaced by
 * `${NAME}` when they came from the environment, or by `${file:secrets/…}` with the value in a
 * file of its own, so no secret ever lands in shopsync.yaml).
 */
import path from 'node:path';
import type { ConnectionInput, ConnectionOrigin, FieldOrigin } from '../erp/index.js';
import type { ShopAnswer, SourceAnswer } from './answers.js';
import { INIT_CODES, InitError } from './errors.js';

/** A secret init stores in a file beside the config. */
export interface SecretFile {
  /** Path relative to the config's folder (`secrets/shop_token`). */
  readonly file: string;
  readonly value: string;
}

/** One block of the config, live and as written. */
export interface Planned<T> {
  readonly live: T;
  readonly written: Record<string, unknown>;
  readonly secrets: readonly SecretFile[];
}

/** The folder secrets are kept in, relative to the config. */
export const SECRETS_DIR = 'secrets';

function secretRef(name: string, value: string, env: string | undefined, secrets: SecretFile[]): string {
  if (env) return `\${${env}}`;
  const file = `${SECRETS_DIR}/${name}`;
  secrets.push({ file, value });
  return `\${file:${file}}`;
}

/** A path as the config should name it: relative to the config's folder when it lies below it. */
export function configPath(configDir: string, absolute: string): string {
  const rel = path.relative(configDir, absolute);
  return rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? absolute : rel;
}

/** The shop block: live options for the check, and the `shop:` block to write. */
export function planShop(shop: ShopAnswer): Planned<{ baseUrl: string; token?: string; oauth?: { clientId: string; clientSecret: string; tokenUrl?: string; scopes?: string[] } }> {
  const secrets: SecretFile[] = [];
  const baseUrl = shop.url.replace(/\/+$/, '');
  if (shop.auth.kind === 'token') {
    return { live: { baseUrl, token: shop.auth.token }, written: { baseUrl, token: secretRef('shop_token', shop.auth.token, shop.auth.env, secrets) }, secrets };
  }
  const a = shop.auth;
  const oauth = { clientId: a.clientId, clientSecret: a.clientSecret, ...(a.tokenUrl ? { tokenUrl: a.tokenUrl } : {}), ...(a.scopes ? { scopes: [...a.scopes] } : {}) };
  return { live: { baseUrl, oauth }, written: { baseUrl, oauth: { ...oauth, clientSecret: secretRef('shop_client_secret', a.clientSecret, a.env, secrets) } }, secrets };
}

/** Split `postgres://user:pass@host:5432/db` into the connection's fields. */
function splitUrl(url: string, kind: 'postgres' | 'mysql'): { host?: string; port?: number; user?: string; password?: string; database?: string; ssl?: boolean } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new InitError(INIT_CODES.input, `--db-url: expected a URL such as ${kind}://user@host:${kind === 'postgres' ? 5432 : 3306}/erp`);
  }
  const ssl = ['require', 'verify-full', 'verify-ca'].includes(u.searchParams.get('sslmode') ?? '') || u.searchParams.get('ssl') === 'true';
  return {
    ...(u.hostname ? { host: decodeURIComponent(u.hostname) } : {}),
    ...(u.port ? { port: Number(u.port) } : {}),
    ...(u.username ? { user: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.pathname.length > 1 ? { database: decodeURIComponent(u.pathname.slice(1)) } : {}),
    ...(ssl ? { ssl } : {}),
  };
}

/** The ERP connection: live (to introspect and dry-run now) and as written. Paths in answers are relative to `cwd`. */
export function planConnection(source: SourceAnswer, cwd: string, configDir: string): Planned<ConnectionInput> {
  const secrets: SecretFile[] = [];
  if (source.kind === 'sqlite') {
    const file = path.resolve(cwd, source.path);
    return { live: { kind: 'sqlite', path: file }, written: { kind: 'sqlite', path: configPath(configDir, file) }, secrets };
  }
  if (source.kind === 'file') {
    const folder = path.dirname(path.resolve(cwd, source.path));
    return { live: { kind: 'files', folder }, written: { kind: 'files', folder: configPath(configDir, folder) }, secrets };
  }
  const fromUrl = source.url ? splitUrl(source.url, source.kind) : {};
  const fields = {
    host: source.host ?? fromUrl.host,
    port: source.port ?? fromUrl.port,
    user: source.user ?? fromUrl.user,
    database: source.database ?? fromUrl.database,
    ...(fromUrl.ssl ? { ssl: true } : {}),
    ...(source.kind === 'postgres' && source.schema ? { schema: source.schema } : {}),
  };
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  const password = source.password ?? fromUrl.password;
  const env = source.passwordEnv;
  const livePassword = password ?? (env ? process.env[env] : undefined);
  const live = { kind: source.kind, ...defined, ...(livePassword !== undefined ? { password: livePassword } : {}) } as ConnectionInput;
  const written: Record<string, unknown> = { kind: source.kind, ...defined };
  if (env) written.password = `\${${env}}`;
  else if (password) written.password = secretRef('erp_db_password', password, undefined, secrets);
  return { live, written, secrets };
}

/** The file pattern of an export: its name, with numbers (dates, counters) as `*` so the next export matches too. */
export function filePattern(file: string): string {
  return path.basename(file).replace(/\d[\d_.-]*\d|\d/g, '*');
}

/** The name init gives the ERP connection in the config it writes. */
export const INIT_CONNECTION = 'erp';

/** What connector errors say about the connection init reads: its options, not a config file. */
export function initOrigin(source: SourceAnswer): ConnectionOrigin {
  const fields: Record<string, FieldOrigin> = {};
  const given = (where: string, variables: readonly string[] = []): FieldOrigin => ({ where, variables, references: variables.map((v) => `\${${v}}`) });
  if (source.kind === 'postgres' || source.kind === 'mysql') {
    for (const f of ['host', 'port', 'user', 'database'] as const) if (source[f] !== undefined || source.url) fields[f] = given(source[f] !== undefined ? 'your answer' : '--db-url');
    if (source.passwordEnv) fields.password = given('--db-password-env', [source.passwordEnv]);
    else if (source.password !== undefined || source.url) fields.password = given(source.password !== undefined ? 'your answer' : '--db-url');
    if (source.kind === 'postgres' && source.schema) fields.schema = given('--db-schema');
  }
  return { name: INIT_CONNECTION, where: "init's options", init: true, fields };
}

