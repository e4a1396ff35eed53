/**
 * The server settings a PostgreSQL or MariaDB/MySQL connection uses, and where each came from: the
 * connection's own field (perhaps through `${VAR}`), its url, a fallback variable (PGHOST,
 * MYSQL_PASSWORD…) read only because the connection leaves the field unset, or the default. Errors
 * name what was used and what to check in the config's own words, never a variable it does not read.
 */
import type { ConnectionOrigin, FieldOrigin } from '../types.js';

/** The settings a server connection is made with. */
export type SettingName = 'host' | 'port' | 'user' | 'password' | 'database';

/** One setting as used, and where it came from. */
export interface Used {
  /** The value; for the password only whether there is one (never shown). */
  readonly value: string | undefined;
  /** `config`: the connection's field; `url`: inside the url; `env`: a fallback variable; `default`; `unset`. */
  readonly from: 'config' | 'url' | 'env' | 'default' | 'unset';
  /** The fallback variable read (`env`), or that would be read (`default`, `unset`). */
  readonly variable?: string;
}

/** Every setting as used; `url` when the driver connects with a URL. */
export type ServerUsed = Readonly<Record<SettingName, Used>> & { readonly url?: Used };

/** A driver's fallback variables and defaults. */
export interface ServerDefaults {
  readonly fallbacks: Readonly<Record<SettingName, string>> & { readonly url?: string };
  readonly host: string;
  readonly port: number;
  readonly user: string;
}

/** The server fields of a connection (after validation). */
export interface ServerFields {
  readonly url?: string | undefined;
  readonly host?: string | undefined;
  readonly port?: number | undefined;
  readonly user?: string | undefined;
  readonly password?: string | undefined;
  readonly database?: string | undefined;
}

/**
 * Resolve each setting as the drivers do: a connection's url wins (MariaDB: or MYSQL_URL, when the
 * connection names no host either); else each field, its fallback variable, its default.
 */
export function resolveServer(conn: ServerFields, env: NodeJS.ProcessEnv, d: ServerDefaults): ServerUsed {
  const urlVar = d.fallbacks.url;
  const fromEnvUrl = conn.url === undefined && conn.host === undefined && urlVar !== undefined && env[urlVar] ? env[urlVar] : undefined;
  const url = conn.url ?? fromEnvUrl;
  if (url !== undefined) return fromUrl(url, conn.url !== undefined ? { value: url, from: 'config' } : { value: url, from: 'env', variable: urlVar }, d);
  const pick = (name: SettingName, own: string | undefined, dflt: string | undefined): Used => {
    const variable = d.fallbacks[name];
    if (own !== undefined) return { value: own, from: 'config' };
    const fromEnv = env[variable];
    if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, from: 'env', variable };
    return dflt === undefined ? { value: undefined, from: 'unset', variable } : { value: dflt, from: 'default', variable };
  };
  return {
    host: pick('host', conn.host, d.host),
    port: pick('port', conn.port === undefined ? undefined : String(conn.port), String(d.port)),
    user: pick('user', conn.user, d.user),
    password: pick('password', conn.password, undefined),
    database: pick('database', conn.database, undefined),
  };
}

function fromUrl(url: string, used: Used, d: ServerDefaults): ServerUsed {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    u = undefined;
  }
  const part = (value: string | undefined, dflt?: string): Used => (value ? { value, from: 'url' } : dflt === undefined ? { value: undefined, from: 'unset' } : { value: dflt, from: 'default' });
  const decoded = (s: string | undefined) => (s ? decodeURIComponent(s) : undefined);
  return {
    url: used,
    host: part(decoded(u?.hostname), d.host),
    port: part(u?.port, String(d.port)),
    user: part(decoded(u?.username), d.user),
    password: part(u?.password ? 'set' : undefined),
    database: part(decoded(u?.pathname.slice(1))),
  };
}

/** `127.0.0.1:3306 (database erp, user shopsync; connection erp, /etc/shopsync/shopsync.yaml:8)`. */
export function describeServer(used: ServerUsed, origin: ConnectionOrigin | undefined): string {
  const facts = [`database ${used.database.value ?? '(none)'}`, `user ${used.user.value ?? '(none)'}`].join(', ');
  const where = origin ? `; connection ${origin.name}${origin.where ? `, ${origin.where}` : ''}` : '';
  return `${used.host.value}:${used.port.value} (${facts}${where})`;
}

/** How one setting came to be, for a hint: `user shop (line 11)`, `port 5433 from PGPORT (the connection sets no port)`. */
export function describeSetting(name: SettingName, used: ServerUsed, origin: ConnectionOrigin | undefined): string {
  const u = used[name];
  const label = name === 'password' ? 'the password' : `${name} ${u.value ?? ''}`.trim();
  const field = origin?.fields?.[name];
  switch (u.from) {
    case 'config':
      return field ? `${label} ${fieldSource(name, field)}` : name === 'password' ? 'the password set in the connection' : label;
    case 'url': {
      const at = origin?.fields?.url;
      return `${label} in url${at ? ` ${fieldSource('url', at)}` : used.url?.variable ? ` (from ${used.url.variable})` : ''}`;
    }
    case 'env':
      return `${label} from ${u.variable} (the connection sets no ${name})`;
    case 'default':
      return `${label} (the default: the connection sets no ${name}${u.variable ? ` and ${u.variable} is unset` : ''})`;
    case 'unset':
      return name === 'password'
        ? `no password (the connection sets none${u.variable ? ` and ${u.variable} is unset` : ''}: add \`password: \${…}\` to connection ${origin?.name ?? 'of this source'})`
        : `no ${name} (the connection sets none${u.variable ? ` and ${u.variable} is unset` : ''})`;
  }
}

/** `from ERP_DB_PASSWORD (password: ${ERP_DB_PASSWORD}, line 12)`, `(line 11)`. */
function fieldSource(name: string, field: FieldOrigin): string {
  const written = field.references.length > 0 ? `${name}: ${field.references.join(' ')}, ` : '';
  if (field.defaulted) return `(the default of ${written}${field.where}: ${field.variables.join(', ')} unset)`;
  if (field.variables.length > 0) return `from ${field.variables.join(', ')} (${written}${field.where})`;
  if (field.references.length > 0) return `from ${field.references.join(' ')} (${field.where})`;
  return name === 'password' ? `written at ${field.where}` : `(${field.where})`;
}
