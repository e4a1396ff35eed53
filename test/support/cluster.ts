/**
 * A PostgreSQL cluster of the test's own (Debian's `pg_createcluster` on a free port, trust auth),
 * for tests that stop, crash or fill the server: never the machine's own 5432, which other test
 * files use. Needs root (CI has it). `ownCluster()` skips loudly when the tools are missing, and
 * under CI=true fails instead, like `requireService`.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import pg from 'pg';
import { test } from 'vitest';

const run = promisify(execFile);

/** A running cluster of the test's own. */
export interface OwnCluster {
  readonly available: true;
  readonly version: string;
  readonly name: string;
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  url(database?: string): string;
  /** `pg_ctlcluster … stop -m <mode>` (immediate = a crash: no checkpoint, every session cut). */
  stop(mode?: 'fast' | 'immediate' | 'smart'): Promise<void>;
  start(): Promise<void>;
  /** Create a database (idempotent). */
  createDatabase(name: string): Promise<void>;
  /** Stop and remove the cluster and its files. */
  drop(): Promise<void>;
}

/** Why no cluster could be made. */
export interface NoCluster {
  readonly available: false;
  readonly reason: string;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function installedVersion(): string | undefined {
  if (!existsSync('/usr/lib/postgresql')) return undefined;
  return readdirSync('/usr/lib/postgresql').sort().pop();
}

/** Create and start a cluster named `shopsync_<tag>_<pid>`; skip (or fail under CI) when impossible. */
export async function ownCluster(tag: string): Promise<OwnCluster | NoCluster> {
  const version = installedVersion();
  let reason: string | undefined;
  if (!version || !existsSync('/usr/bin/pg_createcluster')) reason = 'pg_createcluster (postgresql-common) or a PostgreSQL server package is not installed';
  else if (process.getuid?.() !== 0) reason = 'pg_createcluster needs root';
  if (reason) return refuse(reason);
  const name = `shopsync_${tag.replace(/[^a-z0-9]/gi, '_')}_${process.pid}`;
  const port = await freePort();
  await run('pg_dropcluster', [version!, name, '--stop']).catch(() => undefined);
  await run('pg_createcluster', [version!, name, '--port', String(port), '--start', '--', '--auth=trust'], { timeout: 120_000 });
  const ctl = (...args: string[]) => run('pg_ctlcluster', ['--skip-systemctl-redirect', version!, name, ...args], { timeout: 120_000 });
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const cluster: OwnCluster = {
    available: true,
    version: version!,
    name,
    port,
    url,
    async stop(mode = 'fast') {
      await ctl('stop', '-m', mode);
    },
    async start() {
      await ctl('start');
      await waitReady(url());
    },
    async createDatabase(database) {
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
        if (found.rowCount === 0) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
      } finally {
        await client.end();
      }
    },
    async drop() {
      await run('pg_dropcluster', [version!, name, '--stop'], { timeout: 120_000 }).catch(() => undefined);
    },
  };
  await waitReady(url());
  return cluster;
}

async function waitReady(url: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

function refuse(reason: string): NoCluster {
  const message = `no PostgreSQL cluster of the test's own: ${reason}`;
  if (process.env.CI === 'true') {
    test(`a PostgreSQL cluster of the test's own can be created (required under CI=true)`, () => {
      throw new Error(`${message}. CI must provide it (see .ci/run).`);
    });
  } else {
    console.warn(`\n*** SKIPPED: ${message}; the tests in this file that need it did not run. ***\n`);
  }
  return { available: false, reason };
}

/** The libfaketime library (Debian `faketime`), or undefined when it is not installed. */
export const LIBFAKETIME = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1'].find((p) => existsSync(p));

/**
 * Environment for one child process whose wall clock follows `timestampFile` (libfaketime's
 * FAKETIME_TIMESTAMP_FILE: write "+3600s", "-1h" or "@2026-12-01 10:00:00" into it and the clock
 * steps, re-read every second) while its monotonic clock runs on, as after an NTP step.
 */
export function fakeClockEnv(timestampFile: string): NodeJS.ProcessEnv {
  if (!LIBFAKETIME) throw new Error('libfaketime is not installed (Debian package faketime)');
  return {
    LD_PRELOAD: LIBFAKETIME,
    FAKETIME_TIMESTAMP_FILE: timestampFile,
    FAKETIME_NO_CACHE: '0',
    FAKETIME_CACHE_DURATION: '1',
    DONT_FAKE_MONOTONIC: '1',
  };
}
