/**
 * A JSON-RPC client for Tryton and Odoo: logs in, keeps the session (renewed when idle too long and
 * after the server refused it), and reads each answer itself: JSON-RPC says "failed" with HTTP 200
 * and an `error` member, so only an answer carrying `result` is a success.
 *
 * Transport is the HTTP connector's (src/erp/http/request.ts: deadlines, size bound, retries of
 * network errors, 5xx and 429, redirects kept within the origin). Reads are retried; a create is
 * sent once (a lost answer may have created it: the sink looks the reference up before sending again).
 */
import { ConnectorError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { HttpConnection } from '../connection.js';
import { CONNECTOR_CODES } from '../errors.js';
import { jsonClient } from '../http/request.js';
import type { JsonrpcConnection } from './config.js';
import { odoo, tryton, type RpcInvocation, type RpcSession } from './dialects.js';
import { JSONRPC_CODES, RpcError } from './errors.js';

/** A search domain as both ERPs write it: `[['reference', 'in', ['1001', '1002']]]`. */
export type Domain = readonly unknown[];

/** How one call is sent. */
export interface CallOptions {
  /**
   * Send it again after a lost answer (network error, timeout, 5xx). Only for calls that change
   * nothing, or whose repeat is harmless. @default true for search, search_read, read, search_count, fields_get, default_get
   */
  readonly retry?: boolean;
}

/** A logged-in JSON-RPC client; `close()` ends the session. */
export interface RpcClient {
  readonly dialect: JsonrpcConnection['dialect'];
  /** For messages: `tryton database shop at http://erp:8000/shop/`. */
  readonly target: string;
  /** Call `<model>.<method>`; Tryton gets `[...args, context]` (kwargs join the context), Odoo `execute_kw(…, args, kwargs)`. */
  call(model: string, method: string, args: readonly unknown[], kwargs?: Readonly<Record<string, unknown>>, options?: CallOptions): Promise<unknown>;
  /** Ids of the records matching `domain`. */
  search(model: string, domain: Domain, options?: { readonly limit?: number }): Promise<number[]>;
  /** The records matching `domain`, with `fields` (and `id`); Tryton's Decimal and dates come as text. */
  searchRead(model: string, domain: Domain, fields: readonly string[], options?: { readonly limit?: number }): Promise<Record<string, unknown>[]>;
  /** Create records (one call, one transaction on the server), sent once; their ids in order. */
  create(model: string, valuesList: readonly Record<string, unknown>[]): Promise<number[]>;
  close(): Promise<void>;
}

/** What the client needs from its caller. */
export interface RpcClientContext {
  readonly logger: Logger;
}

const READS: ReadonlySet<string> = new Set(['search', 'search_read', 'read', 'search_count', 'fields_get', 'default_get']);

/** Log in and return a client; throws RpcError JSONRPC_LOGIN_FAILED or JSONRPC_UNREACHABLE when that fails. */
export async function openRpcClient(conn: JsonrpcConnection, ctx: RpcClientContext): Promise<RpcClient> {
  const dialect = conn.dialect === 'tryton' ? tryton(conn) : odoo(conn);
  const logger = ctx.logger.child({ dialect: conn.dialect, database: conn.database });
  const transport: HttpConnection = {
    kind: 'http',
    baseUrl: dialect.endpoint,
    headers: {},
    timeoutMs: conn.timeoutMs,
    maxResponseBytes: conn.maxResponseBytes,
    retries: conn.retries,
    backoffMs: conn.backoffMs,
    maxBackoffMs: conn.maxBackoffMs,
  };
  const retrying = jsonClient(transport, logger, 'jsonrpc');
  const once = jsonClient({ ...transport, retries: 0 }, logger, 'jsonrpc');
  const target = `${conn.dialect} database ${conn.database} at ${dialect.endpoint}`;
  let nextId = 1;
  let session: RpcSession | undefined;
  let loggingIn: Promise<RpcSession> | undefined;
  let lastUsed = 0;
  const secrets = (): string[] => [conn.password, ...(session?.secrets ?? [])];

  /** POST one envelope and read it: `result` or an RpcError. */
  async function post(body: unknown, headers: Readonly<Record<string, string>>, retry: boolean, what: string): Promise<unknown> {
    let answer: unknown;
    try {
      answer = (await (retry ? retrying : once)({ url: dialect.endpoint, method: 'POST', headers, body })).body;
    } catch (err) {
      throw transportError(err, what);
    }
    if (answer !== null && typeof answer === 'object' && !Array.isArray(answer)) {
      const envelope = answer as Record<string, unknown>;
      if (envelope.error !== undefined && envelope.error !== null) {
        const fault = dialect.fault(envelope.error);
        throw new RpcError(fault.session ? JSONRPC_CODES.loginFailed : JSONRPC_CODES.callFailed, `${what} answered ${fault.type}: ${fault.message}`, { fault, secrets: secrets() });
      }
      if ('result' in envelope) return dialect.decode(envelope.result);
    }
    throw new RpcError(JSONRPC_CODES.callFailed, `${what} answered neither \`result\` nor \`error\`: ${JSON.stringify(answer)?.slice(0, 200)}; is ${dialect.endpoint} a ${conn.dialect} JSON-RPC endpoint?`, { secrets: secrets() });
  }

  function transportError(err: unknown, what: string): unknown {
    if (!(err instanceof ConnectorError)) return err;
    const status = typeof err.details?.status === 'number' ? err.details.status : undefined;
    const options = { cause: err, secrets: secrets(), ...(status === undefined ? {} : { details: { status } }) };
    if (err.code === CONNECTOR_CODES.responseTooLarge) return err;
    // 401: no session, or an expired one (trytond's auth_required); 403: refused by the dispatcher. Nothing ran either way.
    if (err.code === CONNECTOR_CODES.authFailed) return new RpcError(JSONRPC_CODES.loginFailed, `${what} was refused (HTTP ${status ?? 401})`, { ...options, fault: { type: `HTTP ${status ?? 401}`, message: err.message, session: true } });
    if (status !== undefined) return new RpcError(JSONRPC_CODES.callFailed, `${what} failed with HTTP ${status}`, options);
    // The transport's words, with the name this connection gives the address.
    return new RpcError(JSONRPC_CODES.unreachable, `${what}: ${err.message.replace('Check baseUrl', "Check the connection's url")}`, options);
  }

  /** One login at a time: calls refused together share the new session. */
  function login(): Promise<RpcSession> {
    loggingIn ??= (async () => {
      const what = `login of ${conn.login} to ${target}`;
      let result: unknown;
      try {
        result = await post(dialect.loginBody(nextId++), {}, true, what);
      } catch (err) {
        if (!(err instanceof RpcError) || err.code === JSONRPC_CODES.unreachable) throw err;
        const status = err.details?.status;
        const hint = status === 404 ? ` Check that database ${conn.database} exists on the server (url is the server's root, database a field of its own).` : " Check the connection's login and password.";
        throw new RpcError(JSONRPC_CODES.loginFailed, `${err.message}.${hint}`, { cause: err, fault: err.fault, secrets: secrets(), details: { ...err.details } });
      }
      let s = dialect.session(result);
      if (!s) throw new RpcError(JSONRPC_CODES.loginFailed, `${what} was refused (the server answered ${JSON.stringify(result)}). Check the connection's login and password.`, { secrets: secrets() });
      if (dialect.preferences) {
        const { model, call } = dialect.preferences;
        const { body, headers } = dialect.callBody(nextId++, s, model, call);
        const preferences = await post(body, headers, true, `${conn.dialect} ${model}.${call.method} of ${conn.login}`);
        if (preferences !== null && typeof preferences === 'object' && !Array.isArray(preferences)) s = { ...s, context: preferences as Record<string, unknown> };
      }
      session = s;
      lastUsed = Date.now();
      return s;
    })().finally(() => {
      loggingIn = undefined;
    });
    return loggingIn;
  }

  async function current(): Promise<RpcSession> {
    const idle = session?.authorization !== undefined && conn.sessionIdleMs > 0 && Date.now() - lastUsed >= conn.sessionIdleMs;
    if (session && !idle) return session;
    if (idle) logger.debug({ idleMs: Date.now() - lastUsed }, 'session idle for sessionIdleMs: logging in again before the call');
    return login();
  }

  async function invoke(model: string, call: RpcInvocation, retry: boolean): Promise<unknown> {
    const what = `${conn.dialect} ${model}.${call.method}`;
    let s = await current();
    for (let attempt = 0; ; attempt++) {
      const { body, headers } = dialect.callBody(nextId++, s, model, call);
      try {
        const result = await post(body, headers, retry, what);
        lastUsed = Date.now();
        return result;
      } catch (err) {
        if (!(err instanceof RpcError) || !err.fault?.session) throw err;
        if (attempt > 0) {
          const forbidden = err.details?.status === 403;
          throw new RpcError(forbidden ? JSONRPC_CODES.callFailed : JSONRPC_CODES.loginFailed, `${err.message}; refused again after a fresh login${forbidden ? `: the user ${conn.login} may not call ${model}.${call.method}, or the method does not exist` : ''}`, { cause: err, secrets: secrets(), ...(err.details ? { details: { ...err.details } } : {}) });
        }
        logger.info({ model, method: call.method, refusal: err.fault.type }, 'the server refused the session: logging in again');
        // Another call may have logged in meanwhile: use its session rather than a third.
        s = session !== undefined && session !== s ? session : await login();
      }
    }
  }

  const client: RpcClient = {
    dialect: conn.dialect,
    target,
    call: (model, method, args, kwargs, options = {}) => invoke(model, { method, args, ...(kwargs ? { kwargs } : {}) }, options.retry ?? READS.has(method)),
    async search(model, domain, options = {}) {
      const ids = await invoke(model, dialect.search(domain, options.limit), true);
      if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'number')) throw new RpcError(JSONRPC_CODES.callFailed, `${conn.dialect} ${model}.search answered ${JSON.stringify(ids)?.slice(0, 120)}, not a list of ids`);
      return ids as number[];
    },
    async searchRead(model, domain, fields, options = {}) {
      const rows = await invoke(model, dialect.searchRead(domain, fields, options.limit), true);
      if (!Array.isArray(rows) || !rows.every((r) => r !== null && typeof r === 'object')) throw new RpcError(JSONRPC_CODES.callFailed, `${conn.dialect} ${model}.search_read answered ${JSON.stringify(rows)?.slice(0, 120)}, not a list of records`);
      return rows as Record<string, unknown>[];
    },
    async create(model, valuesList) {
      if (valuesList.length === 0) return [];
      const answer = await invoke(model, dialect.create(valuesList), false);
      // Odoo before 12 (and a single dict) answers one id.
      const ids = typeof answer === 'number' ? [answer] : answer;
      if (!Array.isArray(ids) || ids.length !== valuesList.length || !ids.every((id) => typeof id === 'number')) {
        throw new RpcError(JSONRPC_CODES.callFailed, `${conn.dialect} ${model}.create of ${valuesList.length} record(s) answered ${JSON.stringify(answer)?.slice(0, 120)}, not as many ids; look the records up in the ERP before retrying`);
      }
      return ids as number[];
    },
    async close() {
      const s = session;
      session = undefined;
      if (!s?.authorization || !dialect.logoutBody) return;
      // Ending the session is a courtesy: it expires on its own, so a failure here is not the run's.
      await post(dialect.logoutBody(nextId++), { authorization: s.authorization }, false, `${conn.dialect} logout`).catch((err: unknown) => logger.debug({ err }, 'logout failed'));
    },
  };
  await login();
  return client;
}
