/**
 * The daemon's HTTP server: /healthz, /readyz and /metrics, and the dashboard on the same
 * fastify instance. Binds 127.0.0.1 unless told otherwise, and refuses any other address
 * without a dashboard token.
 *
 * Who may read what (docs/dashboard.md#security):
 * - every route answers only to the Host names `hostRefusal` accepts (DNS rebinding);
 * - /metrics follows the dashboard's read rule (with a token: the token);
 * - /healthz and /readyz stay open for probes, but their details (the version, what each check
 *   found, each shop's health) are given only to a reader the dashboard would let in;
 * - /shops (each shop's health, pause, failure streak, and the broken shops, for monitoring)
 *   follows the dashboard's read rule, as /metrics.
 *
 * Anyone who can reach the port can open connections before any check (docs/security.md): the
 * server bounds how long a request may take to arrive (headers, then the whole request), how many
 * connections it holds (./connections.ts), and how much a flood of refusals writes to the log
 * (./refusals.ts).
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { ConfigError } from '../errors.js';
import type { Logger } from '../log.js';
import { assertSafeBinding, createAccessCheck, dashboardAuth, hostRefusal, type Refusal } from '../dashboard/security.js';
import { capConnections } from './connections.js';
import { attachRefusalLog, createRefusalLog } from './refusals.js';
import type { Metrics } from './metrics.js';
import type { ReadinessReport } from './readiness.js';
import { needsLook, type BrokenShopReport, type ShopReport } from './shopHealth.js';

/** Options of `startOpsServer`. */
export interface OpsServerOptions {
  /** @default 127.0.0.1 */
  readonly host?: string;
  /** 0 = a free port. @default 8080 */
  readonly port?: number;
  readonly metrics: Metrics;
  readonly readiness: () => ReadinessReport | Promise<ReadinessReport>;
  /** Each shop's health (with pause, streak and the broken shops: `shopReports`) for `GET /shops`; no route without it. */
  readonly shops?: () => readonly ShopReport[] | Promise<readonly ShopReport[]>;
  /** Shops whose file did not load: named in `/readyz`'s details (they decide nothing there: this replica does the other shops' work). */
  readonly brokenShops?: readonly (BrokenShopReport & { readonly name: string })[];
  /** Dashboard token; needed to bind beyond loopback, and then asked for by /metrics. */
  readonly token?: string;
  /** Host names answered besides those of this machine (`dashboard.allowedHosts`). */
  readonly allowedHosts?: readonly string[];
  /** Registers more routes (the dashboard) before the server listens. */
  readonly register?: (app: FastifyInstance) => Promise<void> | void;
  readonly logger: Logger;
  /** Reported by /healthz. */
  readonly version?: string;
  /** The headers of a request must arrive within this (`dashboard.headersTimeoutMs`). @default 10000 */
  readonly headersTimeoutMs?: number;
  /** A whole request (headers and body) must arrive within this (`dashboard.requestTimeoutMs`). @default 30000 */
  readonly requestTimeoutMs?: number;
  /** Open connections held at once (`dashboard.maxConnections`; see ./connections.ts). @default 100 */
  readonly maxConnections?: number;
  /** How long a dashboard sign-in lasts (`dashboard.sessionHours`). @default 12 h */
  readonly sessionLifetimeMs?: number;
  /** One log line per source and reason of refusal per interval. @default 60000 */
  readonly refusalLogIntervalMs?: number;
}

/** Defaults of the server's bounds on unauthenticated clients. */
export const SERVER_LIMITS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 100 } as const;

/** A listening ops server. */
export interface OpsServer {
  /** `http://host:port` (IPv6 hosts in brackets). */
  readonly url: string;
  readonly port: number;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

/** Start the server and resolve once it listens. */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const host = options.host ?? '127.0.0.1';
  assertSafeBinding(host, options.token);
  const started = Date.now();
  const logger = options.logger.child({ component: 'http' });
  const requestTimeout = options.requestTimeoutMs ?? SERVER_LIMITS.requestTimeoutMs;
  const headersTimeout = Math.min(options.headersTimeoutMs ?? SERVER_LIMITS.headersTimeoutMs, requestTimeout);
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // On Node 20 the timeouts are only enforced when given to http.createServer (fastify's own
    // `requestTimeout` is set after it, too late); the check runs every second, not every 30 s.
    requestTimeout,
    http: { requestTimeout, headersTimeout, connectionsCheckingInterval: Math.min(1000, headersTimeout) },
  });
  capConnections(app.server, options.maxConnections ?? SERVER_LIMITS.maxConnections);
  const refusals = createRefusalLog(logger, options.refusalLogIntervalMs !== undefined ? { intervalMs: options.refusalLogIntervalMs } : {});
  attachRefusalLog(app, refusals);
  app.addHook('onClose', async () => refusals.close());
  const readRefusal = createAccessCheck(dashboardAuth(app, { ...(options.token ? { token: options.token } : {}), ...(options.sessionLifetimeMs ? { sessionLifetimeMs: options.sessionLifetimeMs } : {}) }));
  const refuseToken = (reply: FastifyReply, refusal: Refusal, what: string): FastifyReply => {
    if (refusal.status === 401) reply.header('www-authenticate', 'Bearer realm="shopsync"');
    if (refusal.retryAfterSeconds !== undefined) reply.header('retry-after', String(refusal.retryAfterSeconds));
    return reply.code(refusal.status).type('text/plain; charset=utf-8').send(`${refusal.message} ${what}`);
  };

  // Before any route, the dashboard's included: a foreign Host gets nothing, not even /healthz.
  app.addHook('onRequest', async (request, reply) => {
    const refusal = hostRefusal(request.headers.host, { host, allowedHosts: options.allowedHosts });
    if (!refusal) return;
    refusals.note(request, 'foreign-host', 'request to a foreign Host name refused');
    return reply.code(refusal.status).header('x-content-type-options', 'nosniff').type('text/plain; charset=utf-8').send(refusal.message);
  });

  app.get('/healthz', async (request) => ({ status: 'ok', uptimeSeconds: Math.round((Date.now() - started) / 1000), ...(readRefusal(request) ? {} : { version: options.version }) }));
  app.get('/readyz', async (request, reply) => {
    const report = await options.readiness();
    // Which check fails is for the probe; what it found (addresses, replica names, times) is for the operator.
    const checks = readRefusal(request) ? Object.fromEntries(Object.entries(report.checks).map(([name, check]) => [name, { ok: check.ok }])) : report.checks;
    const shops = report.shops && !readRefusal(request) ? { shops: report.shops } : {};
    const overdue = report.overdue && !readRefusal(request) ? { overdue: report.overdue } : {};
    const broken = options.brokenShops?.length && !readRefusal(request) ? { brokenShops: options.brokenShops } : {};
    return reply.code(report.ready ? 200 : 503).send({ status: report.ready ? 'ready' : 'not ready', checks, ...shops, ...overdue, ...broken });
  });
  const shopsOf = options.shops;
  if (shopsOf) {
    // For monitoring, not for probing: one shop down is that shop's problem, not this replica's (docs/replicas.md).
    app.get('/shops', async (request, reply) => {
      const refusal = readRefusal(request);
      if (refusal) return refuseToken(reply, refusal, '/shops needs it as a bearer token.');
      const shops = await shopsOf();
      // `failing`: every shop that needs a look (requests failing, paused, broken), so a monitor reading one list misses none.
      return {
        failing: shops.filter(needsLook).map((s) => s.name),
        paused: shops.filter((s) => (s.paused ?? null) !== null).map((s) => s.name),
        broken: shops.filter((s) => s.health === 'broken').map((s) => s.name),
        shops,
      };
    });
  }
  app.get('/metrics', async (request, reply) => {
    const refusal = readRefusal(request);
    if (refusal) return refuseToken(reply, refusal, '/metrics needs it as a bearer token (Prometheus: authorization.credentials_file).');
    return reply.header('content-type', options.metrics.contentType).send(await options.metrics.render());
  });

  try {
    if (options.register) await options.register(app);
    await app.listen({ host, port: options.port ?? 8080 });
  } catch (err) {
    await app.close();
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new ConfigError(`port ${options.port} on ${host} is in use by another process; choose another with dashboard.port (or --port)`, { key: 'dashboard.port', cause: err });
    }
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    port,
    app,
    close: () => app.close(),
  };
}
