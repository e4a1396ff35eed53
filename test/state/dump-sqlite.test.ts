/**
 * `shopsync state copy` into SQLite writes the column names of the rows it reads as identifiers,
 * escaped as the PostgreSQL side escapes them: a name with a `"` in it (a crafted source state) is
 * one column, never SQL (issue 42, "Also").
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateError } from '../../src/errors.js';
import type { StateTable } from '../../src/state/index.js';
import { openDatabase, type Db } from '../../src/state/sqlite/db.js';
import { SqliteDump } from '../../src/state/sqlite/dump.js';
import { removeDir, tempDir } from '../support/tmp.js';

let dir: string;
let db: Db;
beforeEach(() => {
  dir = tempDir('shopsync-dump-');
  db = openDatabase(join(dir, 'target.db'));
});
afterEach(() => {
  db.close();
  removeDir(dir);
});

describe('the SQLite side of state copy', () => {
  it('quotes a column name holding a double quote as one identifier', async () => {
    db.exec('ALTER TABLE cursors ADD COLUMN "odd""col" TEXT');
    await new SqliteDump(db).insert('cursors', [{ pipeline: 'p', name: 'c', value: '1', record_key: null, boundary: null, updated_at: 1, 'odd"col': 'kept' }]);
    expect(db.prepare('SELECT pipeline, "odd""col" AS odd FROM cursors').all()).toEqual([{ pipeline: 'p', odd: 'kept' }]);
  });

  it('refuses a table that is not a state table, as the PostgreSQL side does', async () => {
    const err = await new SqliteDump(db).insert('sqlite_master' as StateTable, [{ name: 'x' }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateError);
    expect((err as StateError).code).toBe('STATE_TABLE_UNKNOWN');
  });
});
