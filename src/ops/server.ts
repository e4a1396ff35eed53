/**
 * The daemon's HTTP server: /healthz, /readyz and /metrics, and the dashboard on the same
 * fastify instance. Binds 127.0.0.1 unless told otherwise, and refuses any other address
 * without a dashboard token.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { ConfigError } from '../errors.js';
import type { Logger } from '../log.js';
import { assertSafeBinding } from '../dashboard/security.js';
import type { Metrics } from './metrics.js';
import type { ReadinessReport } from './readiness.js';

/** Options of `startOpsServer`. */
export interface OpsServerOptions {
  /** @default 127.0.0.1 */
  readonly host?: string;
  /** 0 = a free port. @default 8080 */
  readonly port?: number;
  readonly metrics: Metrics;
  readonly readiness: () => ReadinessReport;
  /** Dashboard token; needed to bind beyond loopback. */
  readonly token?: string;
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
  const app = Fastify({ loggerInstance: options.logger.child({ component: 'http' }) as FastifyBaseLogger, logController: new LogController({ disableRequestLogging: true }) });

  app.get('/healthz', async () => ({ status: 'ok', uptimeSeconds: Math.round((Date.now() - started) / 1000), version: options.version }));
  app.get('/readyz', async (_req, reply) => {
    const report = options.readiness();
    return reply.code(report.ready ? 200 : 503).send({ status: report.ready ? 'ready' : 'not ready', checks: report.checks });
  });
  app.get('/metrics', async (_req, reply) => reply.header('content-type', options.metrics.contentType).send(await options.metrics.render()));

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
