/**
 * Where a benchmark keeps shopsync's state: a SQLite file in a temp directory, or a PostgreSQL
 * schema of its own (random name) in the test server's database `test` on 127.0.0.1:5432,
 * dropped afterwards. The server is probed first: without it the PostgreSQL figures are not
 * measured, and the benchmark says so instead of failing.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { StateLocation } from '../../../src/state/index.js';

export type BenchBackend = 'sqlite' | 'postgres';

/** PostgreSQL of the tests (user postgres, trust); `SHOPSYNC_BENCH_POSTGRES_URL` points elsewhere. */
export const POSTGRES_URL = process.env.SHOPSYNC_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A state location for one measurement and how to remove it. */
export interface BenchState {
  readonly location: StateLocation;
  dispose(): Promise<void>;
}

/** Why PostgreSQL cannot be used, or undefined when a connection works. */
export async function postgresUnavailable(url = POSTGRES_URL): Promise<string | undefined> {
  const u = new URL(url);
  const port = Number(u.port || 5432);
  const refused = await new Promise<string | undefined>((resolve) => {
    const socket = new Socket();
    const done = (reason?: string) => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(1500, () => done('no answer within 1500 ms'));
    socket.once('error', (err) => done(err.message));
    socket.connect(port, u.hostname, () => done(undefined));
  });
  return refused === undefined ? undefined : `PostgreSQL unreachable at ${u.hostname}:${port} (${refused})`;
}

/** A fresh, empty state of `backend`. */
export async function benchState(backend: BenchBackend): Promise<BenchState> {
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'shopsync-bench-state-'));
    return { location: { kind: 'sqlite', path: join(dir, 'state.db') }, dispose: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = `shopsync_bench_${randomBytes(5).toString('hex')}`;
  return {
    location: { kind: 'postgres', url: POSTGRES_URL, schema },
    async dispose() {
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      try {
        await admin.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
      } finally {
        await admin.end();
      }
    },
  };
}
