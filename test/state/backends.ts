/**
 * The state's behaviour tests run against every backend: `forEachBackend('refs', (b) => …)`
 * declares the suite once for a SQLite file and once for a PostgreSQL schema. Each `b.open()`
 * without a location is a new, empty state of its own (a temp file; a schema with a random
 * suffix), removed after the file's tests, so test files and tests run side by side.
 * PostgreSQL comes from test/support/services.ts: skipped loudly when absent, failing under CI=true.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, onTestFinished } from 'vitest';
import { openState, type StateLocation, type StateOptions, type StateStore } from '../../src/state/index.js';
import { requireService, type ServiceProbe } from '../support/services.js';
import { removeDir, tempDir } from '../support/tmp.js';

export type BackendKind = 'sqlite' | 'postgres';

/** One backend as a test sees it. */
export interface Backend {
  readonly kind: BackendKind;
  /** A new, empty location (dropped after the file's tests). */
  location(): StateLocation;
  /** Open a state: a fresh one, or the one at `location` (again). */
  open(location?: StateLocation, options?: StateOptions): Promise<StateStore>;
  /** Run SQL straight against the tables of a state (`?` placeholders on both backends). */
  sql(location: StateLocation, text: string, ...params: unknown[]): Promise<Record<string, unknown>[]>;
  /** Pretend a newer shopsync wrote this state. */
  setSchemaVersion(location: StateLocation, version: number): Promise<void>;
}

const pgService: ServiceProbe = await requireService('postgres');

/** Connection URL of the test server's database. */
export function postgresUrl(): string {
  return `postgres://${pgService.user}@${pgService.host}:${pgService.port}/${pgService.database}`;
}

/** Whether the PostgreSQL tests can run. */
export const postgresAvailable = pgService.available;

const dirs: string[] = [];
const schemas: string[] = [];
const opened: StateStore[] = [];

afterAll(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
  for (const d of dirs.splice(0)) removeDir(d);
  if (schemas.length > 0) {
    const admin = new pg.Client({ connectionString: postgresUrl() });
    await admin.connect();
    try {
      for (const s of schemas.splice(0)) await admin.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(s)} CASCADE`);
    } finally {
      await admin.end();
    }
  }
});

/** A fresh SQLite state file. */
export function sqliteLocation(): StateLocation {
  const dir = tempDir('shopsync-state-');
  dirs.push(dir);
  return { kind: 'sqlite', path: join(dir, 'nested', 'state.db') };
}

/** A fresh PostgreSQL schema (random name, dropped after the file). */
export function postgresLocation(url = postgresUrl()): StateLocation & { kind: 'postgres' } {
  const schema = `shopsync_t_${randomBytes(5).toString('hex')}`;
  schemas.push(schema);
  return { kind: 'postgres', url, schema };
}

async function track(store: Promise<StateStore>): Promise<StateStore> {
  const s = await store;
  // A state opened by a test (or its beforeEach) is closed when the test ends: a PostgreSQL state's
  // pool keeps its connections for ten idle seconds, and a file of twenty tests held up to 84 of the
  // server's 100 while the suite ran two files at a time ("too many clients already"). One opened
  // outside a test (beforeAll) is closed after the file.
  try {
    onTestFinished(() => s.close());
  } catch {
    opened.push(s);
  }
  return s;
}

async function sql(location: StateLocation, text: string, ...params: unknown[]): Promise<Record<string, unknown>[]> {
  if (location.kind === 'sqlite') {
    const db = new Database(location.path);
    try {
      const stmt = db.prepare(text);
      return stmt.reader ? (stmt.all(...params) as Record<string, unknown>[]) : (stmt.run(...params), []);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: location.url, options: `-c search_path=${pg.escapeIdentifier(location.schema)}` });
  await client.connect();
  try {
    let n = 0;
    return (await client.query(text.replace(/\?/g, () => `$${++n}`), params)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

export const BACKENDS: Readonly<Record<BackendKind, Backend>> = {
  sqlite: {
    kind: 'sqlite',
    location: sqliteLocation,
    open: (location, options) => track(openState(location ?? sqliteLocation(), options)),
    sql,
    async setSchemaVersion(location, version) {
      if (location.kind !== 'sqlite') throw new Error('not a SQLite location');
      const db = new Database(location.path);
      db.pragma(`user_version = ${version}`);
      db.close();
    },
  },
  postgres: {
    kind: 'postgres',
    location: () => postgresLocation(),
    open: (location, options) => track(openState(location ?? postgresLocation(), options)),
    sql,
    async setSchemaVersion(location, version) {
      await sql(location, 'UPDATE schema_version SET version = ?', version);
    },
  },
};

/** Declare `body` once per backend, inside `describe('<name> (<backend>)')`; PostgreSQL only when it runs. */
export function forEachBackend(name: string, body: (backend: Backend) => void): void {
  describe(`${name} (sqlite)`, () => body(BACKENDS.sqlite));
  describe.skipIf(!postgresAvailable)(`${name} (postgres)`, () => body(BACKENDS.postgres));
}
