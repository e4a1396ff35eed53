/**
 * What differs between Tryton's and Odoo's JSON-RPC: the envelope of a login and of a call, where
 * the session lives, how an error answer reads, how search/search_read/create take their arguments,
 * and how child records (one2many) are written. The client (./client.ts) does the rest once.
 */
import type { JsonrpcConnection } from './config.js';
import type { RpcFault } from './errors.js';

/** What a login gave: the user id, and for Tryton the session's header (a secret). */
export interface RpcSession {
  readonly uid: number;
  /** `Session base64(login:uid:key)` (Tryton); absent for Odoo, whose calls carry the password. */
  readonly authorization?: string;
  /** Values that must never reach a log line (the session key and its header). */
  readonly secrets: readonly string[];
  /** The user's preferences as a context (Tryton's company, language…), under the connection's own `context`. */
  readonly context?: Readonly<Record<string, unknown>>;
}

/** One call's method and arguments, in the dialect's order. */
export interface RpcInvocation {
  readonly method: string;
  readonly args: readonly unknown[];
  readonly kwargs?: Readonly<Record<string, unknown>>;
}

/** A JSON-RPC dialect. */
export interface Dialect {
  readonly name: JsonrpcConnection['dialect'];
  /** Where every request is POSTed. */
  readonly endpoint: string;
  loginBody(id: number): unknown;
  /** The session a login result gives; undefined when the server said no (Odoo answers `false`). */
  session(result: unknown): RpcSession | undefined;
  callBody(id: number, session: RpcSession, model: string, call: RpcInvocation): { readonly body: unknown; readonly headers: Readonly<Record<string, string>> };
  /**
   * The call whose result is the session's context (Tryton's `res.user.get_preferences(True)`):
   * trytond does not load a user's preferences into an RPC's context, and its defaults read that
   * context (a sale's company is `context['company']`), so without it every sale lacks its company.
   */
  readonly preferences?: { readonly model: string; readonly call: RpcInvocation };
  /** Ends the session on close (Tryton); absent when there is none to end. */
  logoutBody?(id: number): unknown;
  search(domain: readonly unknown[], limit: number | undefined): RpcInvocation;
  searchRead(domain: readonly unknown[], fields: readonly string[], limit: number | undefined): RpcInvocation;
  create(valuesList: readonly Record<string, unknown>[]): RpcInvocation;
  /** Read an `error` member. */
  fault(error: unknown): RpcFault;
  /** Turn the dialect's typed JSON values of a result into plain JSON (Tryton's Decimal and dates). */
  decode(result: unknown): unknown;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value);
}

/** Tryton 6.0: `POST <url>/<database>/`, `{id, method: 'model.<model>.<method>', params: [...args, context]}`. */
export function tryton(conn: JsonrpcConnection): Dialect {
  const root = conn.url.endsWith('/') ? conn.url : `${conn.url}/`;
  const endpoint = new URL(`${encodeURIComponent(conn.database)}/`, root).toString();
  return {
    name: 'tryton',
    endpoint,
    loginBody: (id) => ({ id, method: 'common.db.login', params: [conn.login, { password: conn.password }] }),
    session(result) {
      if (!Array.isArray(result) || typeof result[0] !== 'number' || typeof result[1] !== 'string') return undefined;
      const [uid, key] = result as [number, string];
      const authorization = `Session ${Buffer.from(`${conn.login}:${uid}:${key}`).toString('base64')}`;
      return { uid, authorization, secrets: [key, authorization.slice('Session '.length)] };
    },
    callBody: (id, session, model, call) => ({
      // Tryton's RPC takes positional arguments and the context last; keyword arguments join the context.
      body: { id, method: `model.${model}.${call.method}`, params: [...call.args, { ...session.context, ...conn.context, ...call.kwargs }] },
      headers: session.authorization ? { authorization: session.authorization } : ({} as Record<string, string>),
    }),
    preferences: { model: 'res.user', call: { method: 'get_preferences', args: [true] } },
    logoutBody: (id) => ({ id, method: 'common.db.logout', params: [] }),
    search: (domain, limit) => ({ method: 'search', args: [domain, 0, limit ?? null, null] }),
    searchRead: (domain, fields, limit) => ({ method: 'search_read', args: [domain, 0, limit ?? null, null, fields] }),
    create: (valuesList) => ({ method: 'create', args: [valuesList] }),
    fault(error) {
      // trytond answers `error: exception.args`: ['UserError', [message, description, domain]], ['UserWarning', [name, message, description]],
      // ['LoginException', [name, message, type]], ['ConcurrencyException', message]; any other exception as [str(e), traceback].
      if (!Array.isArray(error)) return { type: 'Error', message: text(error), session: false };
      const [type, args] = error as [unknown, unknown];
      const parts = Array.isArray(args) ? args : [args];
      if (type === 'UserError') return { type, message: [text(parts[0]), text(parts[1])].filter(Boolean).join(' — '), session: false };
      if (type === 'UserWarning') return { type, message: [text(parts[1]), text(parts[2])].filter(Boolean).join(' — '), session: false };
      if (type === 'LoginException') return { type, message: text(parts[1]) || 'the server asks for more login parameters', session: true };
      if (type === 'ConcurrencyException') return { type, message: text(args), session: false };
      // The traceback (parts[1]) stays out: it is long and may quote the values sent.
      return { type: 'ServerError', message: text(type), session: false };
    },
    decode: decodeTryton,
  };
}

/** Tryton's JSON encoder writes Decimal, dates, times and bytes as `{__class__: …}` objects: here they become text (and seconds). */
function decodeTryton(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeTryton);
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  const pad = (n: unknown, w = 2) => String(n).padStart(w, '0');
  switch (o.__class__) {
    case 'Decimal':
      return o.decimal;
    case 'date':
      return `${pad(o.year, 4)}-${pad(o.month)}-${pad(o.day)}`;
    case 'datetime':
      return `${pad(o.year, 4)}-${pad(o.month)}-${pad(o.day)}T${pad(o.hour ?? 0)}:${pad(o.minute ?? 0)}:${pad(o.second ?? 0)}`;
    case 'time':
      return `${pad(o.hour ?? 0)}:${pad(o.minute ?? 0)}:${pad(o.second ?? 0)}`;
    case 'timedelta':
      return o.seconds;
    case 'bytes':
      return o.base64;
    default:
      return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, decodeTryton(v)]));
  }
}

/** Odoo: `POST /jsonrpc`, `{jsonrpc: '2.0', method: 'call', params: {service, method, args}}`; every call carries uid and password. */
export function odoo(conn: JsonrpcConnection): Dialect {
  const url = new URL(conn.url);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/jsonrpc';
  const envelope = (id: number, service: string, method: string, args: readonly unknown[]) => ({ jsonrpc: '2.0', method: 'call', id, params: { service, method, args } });
  const context = Object.keys(conn.context).length > 0 ? { context: conn.context } : {};
  return {
    name: 'odoo',
    endpoint: url.toString(),
    loginBody: (id) => envelope(id, 'common', 'login', [conn.database, conn.login, conn.password]),
    session: (result) => (typeof result === 'number' && result > 0 ? { uid: result, secrets: [] } : undefined),
    callBody: (id, session, model, call) => ({
      body: envelope(id, 'object', 'execute_kw', [conn.database, session.uid, conn.password, model, call.method, call.args, { ...context, ...call.kwargs }]),
      headers: {},
    }),
    search: (domain, limit) => ({ method: 'search', args: [domain], kwargs: limit === undefined ? {} : { limit } }),
    searchRead: (domain, fields, limit) => ({ method: 'search_read', args: [domain], kwargs: { fields, ...(limit === undefined ? {} : { limit }) } }),
    create: (valuesList) => ({ method: 'create', args: [valuesList] }),
    fault(error) {
      // {code: 200, message: 'Odoo Server Error', data: {name: 'odoo.exceptions.ValidationError', message, debug, arguments}}; 100 = session expired.
      const e = (error ?? {}) as { code?: unknown; message?: unknown; data?: { name?: unknown; message?: unknown } };
      const type = text(e.data?.name) || text(e.message) || 'Error';
      const message = text(e.data?.message) || text(e.message) || text(error);
      const session = e.code === 100 || /AccessDenied$|SessionExpired/.test(type);
      return { type, message, session };
    },
    decode: (result) => result,
  };
}

/** Child records to create with their parent, as a dialect writes a one2many value (Tryton `[['create', […]]]`, Odoo `[[0, 0, {…}], …]`). */
export function one2manyValue(dialect: JsonrpcConnection['dialect'], children: readonly Record<string, unknown>[]): unknown {
  return dialect === 'tryton' ? [['create', children]] : children.map((child) => [0, 0, child]);
}
