import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { StateError } from '../../src/errors.js';
import { loadMigrations, openState } from '../../src/state/index.js';

const dirs: string[] = [];
function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-state-'));
  dirs.push(dir);
  return join(dir, 'nested', 'state.db');
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('state database', () => {
  it('creates the file with WAL and applies every migration', async () => {
    const file = tempFile();
    const state = openState(file);
    expect(state.schemaVersion()).toBe(loadMigrations().length);
    await state.close();
    const raw = new Database(file);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });

  it('reopens an existing database without re-applying migrations and keeps its data', async () => {
    const file = tempFile();
    const a = openState(file);
    a.refs.put('products', 'A-1', 17);
    await a.close();
    const b = openState(file);
    expect(b.refs.get('products', 'A-1')?.shopId).toBe(17);
    await b.close();
  });

  it('refuses to open a database written by a newer shopsync', async () => {
    const file = tempFile();
    (await openState(file).close());
    const raw = new Database(file);
    raw.pragma('user_version = 999');
    raw.close();
    let caught: unknown;
    try {
      openState(file);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(StateError);
    expect((caught as StateError).code).toBe('STATE_TOO_NEW');
  });

  it('rolls back a transaction that throws', async () => {
    const state = openState(':memory:');
    expect(() =>
      state.transaction(() => {
        state.refs.put('products', 'A-1', 1);
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(state.refs.get('products', 'A-1')).toBeUndefined();
    await state.close();
  });
});

describe('state migrations in a build', () => {
  it('are copied by the build into dist/ beside the compiled modules (every src/**/*.sql), so the runtime never reads src/', () => {
    const root = join(import.meta.dirname, '..', '..');
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'copy-sql.mjs')], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const source = (readdirSync(join(root, 'src'), { recursive: true }) as string[]).filter((f) => f.endsWith('.sql')).sort();
    expect(source.some((f) => f.includes('migrations'))).toBe(true);
    for (const f of source) expect(readFileSync(join(root, 'dist', 'src', f), 'utf8'), f).toBe(readFileSync(join(root, 'src', f), 'utf8'));
  });
});
