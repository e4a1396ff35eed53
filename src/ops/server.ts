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
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { ConfigError } from '../errors.js';
import type { Logger } from '../log.js';
import { assertSafeBinding, createAccessCheck, hostRefusal } from '../dashboard/security.js';
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
}

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
  const app = Fastify({ loggerInstance: logger as FastifyBaseLogger, logController: new LogController({ disableRequestLogging: true }) });
  const readRefusal = createAccessCheck({ token: options.token });

  // Before any route, the dashboard's included: a foreign Host gets nothing, not even /healthz.
  app.addHook('onRequest', async (request, reply) => {
    const refusal = hostRefusal(request.headers.host, { host, allowedHosts: options.allowedHosts });
    if (!refusal) return;
    logger.warn({ url: request.url, method: request.method, host: request.headers.host }, 'request to a foreign Host name refused');
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
      if (refusal) {
        if (refusal.status === 401) reply.header('www-authenticate', 'Bearer realm="shopsync"');
        return reply.code(refusal.status).type('text/plain; charset=utf-8').send(`${refusal.message} /shops needs it as a bearer token.`);
      }
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
    if (refusal) {
      if (refusal.status === 401) reply.header('www-authenticate', 'Bearer realm="shopsync"');
      return reply.code(refusal.status).type('text/plain; charset=utf-8').send(`${refusal.message} /metrics needs it as a bearer token (Prometheus: authorization.credentials_file).`);
    }
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
