/**
 * Test helper for the real database servers on 127.0.0.1. A test file calls (top-level await)
 * `const pg = await requireService('postgres')` and wraps its suite in `describe.skipIf(!pg.available)`.
 * When the server is unreachable the file is skipped with a loud warning, except under CI=true, where
 * a failing test is registered instead, so a CI run can never pass by skipping the database tests.
 */
import { Socket } from 'node:net';
import { test } from 'vitest';

/** The services tests may need, with their fixed local settings. */
export const SERVICES = {
  postgres: { label: 'PostgreSQL', host: '127.0.0.1', port: 5432, user: 'postgres', password: undefined, database: 'test' },
  mariadb: { label: 'MariaDB', host: '127.0.0.1', port: 3306, user: 'root', password: undefined, database: 'test' },
} as const;

export type ServiceName = keyof typeof SERVICES;

/** Result of probing a service. */
export interface ServiceProbe {
  readonly name: ServiceName;
  readonly available: boolean;
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly database: string;
  /** Why it is not available. */
  readonly reason?: string;
}

/** Open and close a TCP connection; resolves with an error text, or undefined when the port answers. */
export function probeTcp(host: string, port: number, timeoutMs = 1500): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (reason?: string) => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(timeoutMs, () => done(`no answer within ${timeoutMs} ms`));
    socket.once('error', (err) => done(err.message));
    socket.connect(port, host, () => done(undefined));
  });
}

/** Probe a service; skip loudly when it is down, or register a failing test when CI=true. */
export async function requireService(name: ServiceName): Promise<ServiceProbe> {
  // SHOPSYNC_TEST_POSTGRES_PORT / SHOPSYNC_TEST_MARIADB_PORT point the tests at a server on another port.
  const override = Number(process.env[`SHOPSYNC_TEST_${name.toUpperCase()}_PORT`]);
  const s = { ...SERVICES[name], port: Number.isInteger(override) && override > 0 ? override : SERVICES[name].port };
  const reason = await probeTcp(s.host, s.port);
  const probe: ServiceProbe = { name, available: reason === undefined, host: s.host, port: s.port, user: s.user, database: s.database, reason };
  if (reason === undefined) return probe;
  const message = `${s.label} unreachable at ${s.host}:${s.port} (${reason})`;
  if (process.env.CI === 'true') {
    test(`${s.label} is reachable at ${s.host}:${s.port} (required under CI=true)`, () => {
      throw new Error(`${message}. CI must provide the service (see .ci/run).`);
    });
  } else {
    console.warn(`\n*** SKIPPED: ${message}; the tests in this file that need it did not run. Start the server (user ${s.user}, database ${s.database}) to run them. ***\n`);
  }
  return probe;
}
