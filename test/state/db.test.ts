import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { pino, type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { StateError } from '../../src/errors.js';
import { openState, STATE_TABLES, type StateLocation } from '../../src/state/index.js';
import { postgresMigrations } from '../../src/state/postgres/index.js';
import { sqliteMigrations } from '../../src/state/sqlite/index.js';
import { openDatabase } from '../../src/state/sqlite/db.js';
import { tempDir } from '../support/tmp.js';
import { BACKENDS, forEachBackend, postgresAvailable, postgresLocation } from './backends.js';

const migrationsOf = { sqlite: sqliteMigrations, postgres: postgresMigrations };

async function refusal(p: Promise<unknown>): Promise<StateError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StateError);
  return err as StateError;
}

forEachBackend('state schema', (backend) => {
  it('creates the state and applies every migration', async () => {
    const state = await backend.open();
    expect(await state.schemaVersion()).toBe(migrationsOf[backend.kind]().length);
    expect(await state.dump.counts()).toEqual(Object.fromEntries(STATE_TABLES.map((t) => [t, 0])));
  });

  it('reopens an existing state without re-applying migrations and keeps its data', async () => {
    const location = backend.location();
    const a = await backend.open(location);
    await a.write((tx) => tx.refs.put('products', 'A-1', 17));
    await a.close();
    const b = await backend.open(location);
    expect((await b.refs.get('products', 'A-1'))?.shopId).toBe(17);
    expect(await b.schemaVersion()).toBe(migrationsOf[backend.kind]().length);
  });

  it('refuses to open a state written by a newer shopsync', async () => {
    const location = backend.location();
    await (await backend.open(location)).close();
    await backend.setSchemaVersion(location, 999);
    const err = await refusal(backend.open(location));
    expect(err.code).toBe('STATE_TOO_NEW');
    expect(err.message).toMatch(/schema version 999 but this shopsync knows only up to \d+; upgrade shopsync/);
  });
});

describe('state database (sqlite)', () => {
  it('keeps the file in WAL mode', async () => {
    const location = BACKENDS.sqlite.location() as StateLocation & { kind: 'sqlite' };
    await (await BACKENDS.sqlite.open(location)).close();
    const raw = new Database(location.path);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });
});

describe.skipIf(!postgresAvailable)('state database (postgres)', () => {
  it('has the same tables and columns as the SQLite state, so a state copies row for row', async () => {
    const sqlite = BACKENDS.sqlite.location();
    const pg = postgresLocation();
    await (await BACKENDS.sqlite.open(sqlite)).close();
    await (await BACKENDS.postgres.open(pg)).close();
    for (const table of [...STATE_TABLES, 'locks']) {
      const lite = (await BACKENDS.sqlite.sql(sqlite, `SELECT name FROM pragma_table_info('${table}')`)).map((r) => r.name).sort();
      const post = (await BACKENDS.postgres.sql(pg, 'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?', table)).map((r) => r.name).sort();
      expect(post, table).toEqual(lite);
    }
  });

  it('migrates once when several replicas open a new schema at the same moment', async () => {
    const location = postgresLocation();
    const stores = await Promise.all([1, 2, 3, 4].map(() => BACKENDS.postgres.open(location)));
    for (const s of stores) expect(await s.schemaVersion()).toBe(postgresMigrations().length);
    expect(await BACKENDS.postgres.sql(location, 'SELECT version FROM schema_version')).toEqual([{ version: postgresMigrations().length }]);
  });

  it('shows its location without the password', async () => {
    const location = postgresLocation();
    const withPassword = { ...location, url: location.url.replace('postgres://postgres@', 'postgres://postgres:not-needed@') };
    const state = await BACKENDS.postgres.open(withPassword);
    expect(state.location).toBe(`${location.url}#${location.schema}`);
    expect(state.location).not.toContain('not-needed');
  });

  it('says which host and port it cannot reach, and how to fix it, without the password', async () => {
    const err = await refusal(openState({ kind: 'postgres', url: 'postgres://shopsync:s3cret-pw@127.0.0.1:1/shopsync', schema: 'shopsync' }));
    expect(err.code).toBe('STATE_UNREACHABLE');
    expect(err.message).toContain('127.0.0.1:1');
    // Opened without a config, so the setting is named in general; a loaded config names state.url with its line.
    expect(err.message).toContain("check the state's url and that the server runs");
    expect(err.details).toMatchObject({ host: '127.0.0.1', port: 1 });
    expect(JSON.stringify({ message: err.message, details: err.details })).not.toContain('s3cret-pw');
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    const err = await refusal(openState({ kind: 'postgres', url: postgresLocation().url, schema: 'state; DROP' }));
    expect(err.code).toBe('STATE_SCHEMA_INVALID');
  });

  it('refuses a file backup and names pg_dump for the schema', async () => {
    const location = postgresLocation();
    const state = await BACKENDS.postgres.open(location);
    const err = await refusal(state.backup('/tmp/never-written.db'));
    expect(err.code).toBe('STATE_BACKUP_UNSUPPORTED');
    expect(err.message).toContain(`pg_dump --schema=${location.schema}`);
  });
});

describe('state migrations in a build', () => {
  it('are copied by the build into dist/ beside the compiled modules (every src/**/*.sql), so the runtime never reads src/', () => {
    const root = join(import.meta.dirname, '..', '..');
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'copy-sql.mjs')], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const source = (readdirSync(join(root, 'src'), { recursive: true }) as string[]).filter((f) => f.endsWith('.sql')).sort();
    expect(source.filter((f) => f.includes('migrations')).length).toBe(sqliteMigrations().length + postgresMigrations().length);
    for (const f of source) expect(readFileSync(join(root, 'dist', 'src', f), 'utf8'), f).toBe(readFileSync(join(root, 'src', f), 'utf8'));
  });
});

describe('what opening a state logs', () => {
  /** A debug logger whose lines land in `lines`. */
  function capture(): { logger: Logger; lines: () => { level: number; msg: string; [k: string]: unknown }[] } {
    let text = '';
    const logger = pino({ level: 'debug' }, new Writable({ write: (c: Buffer, _e, done) => ((text += c.toString()), done()) }));
    return { logger, lines: () => text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { level: number; msg: string }) };
  }
  const INFO = 30;

  forEachBackend('a new state', (backend) => {
    it('is one line at info, "state created (schema vN)"; each migration is a line at debug', async () => {
      const log = capture();
      await backend.open(undefined, { logger: log.logger });
      const latest = migrationsOf[backend.kind]().length;
      const info = log.lines().filter((l) => l.level >= INFO);
      expect(info.map((l) => l.msg)).toEqual([`state created (schema v${latest})`]);
      expect(log.lines().filter((l) => l.msg === 'state migration applied')).toHaveLength(latest);
    });

    it('opened again logs nothing at info', async () => {
      const location = backend.location();
      await (await backend.open(location)).close();
      const log = capture();
      await backend.open(location, { logger: log.logger });
      expect(log.lines().filter((l) => l.level >= INFO)).toEqual([]);
    });
  });

  it('upgraded by a newer shopsync is one line at info naming both versions', async () => {
    const path = join(tempDir(), 'state.db');
    const all = sqliteMigrations();
    openDatabase(path, undefined, all.slice(0, 3)).close();
    const log = capture();
    openDatabase(path, log.logger, all).close();
    expect(log.lines().filter((l) => l.level >= INFO).map((l) => l.msg)).toEqual([`state upgraded from schema v3 to v${all.length}`]);
  });
});
