import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createContext, SandboxClock } from '../../src/sandbox/context.js';
import { openDatabase } from '../../src/sandbox/store.js';
import { silentLogger } from '../../src/log.js';

describe('sandbox context', () => {
  it('prepares a statement once per SQL text and hands the same one to every request', () => {
    const db = openDatabase(':memory:');
    const ctx = createContext(db, new SandboxClock(), mkdtempSync(join(tmpdir(), 'ctx-')), silentLogger);
    db.exec('CREATE TABLE t (v INTEGER)');
    const first = ctx.sql('INSERT INTO t VALUES (?)');
    expect(ctx.sql('INSERT INTO t VALUES (?)')).toBe(first);
    expect(ctx.sql('SELECT v FROM t')).not.toBe(first);
    first.run(7);
    expect(ctx.sql<[], { v: number }>('SELECT v FROM t').all()).toEqual([{ v: 7 }]);
    db.close();
  });
});
