/**
 * One SQL row's size is bounded as a file record's is (issue 42 item 9): a row whose text columns
 * hold more than `maxRecordBytes` is refused as a bad row, keeping only its key, cursor and an
 * excerpt, and paging goes on past it (SQLite).
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createSource } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { removeDir, tempDir } from '../support/tmp.js';
import { collect } from './sql-suite.js';

let dir: string;
beforeEach(() => {
  dir = tempDir('shopsync-sql-bounds-');
  const db = new Database(path.join(dir, 'erp.sqlite'));
  db.exec('CREATE TABLE articles (sku TEXT PRIMARY KEY, description TEXT NOT NULL, updated INTEGER NOT NULL)');
  const insert = db.prepare('INSERT INTO articles VALUES (?, ?, ?)');
  insert.run('A-1', 'short', 1);
  insert.run('A-2', 'x'.repeat(3 * 1024 * 1024), 2);
  insert.run('A-3', 'after', 3);
  db.close();
});
afterEach(() => removeDir(dir));

it('refuses a row whose text is longer than maxRecordBytes as a bad row with an excerpt, and reads the rows after it', async () => {
  const source = await createSource({ kind: 'sqlite', name: 'erp', path: path.join(dir, 'erp.sqlite') }, { query: 'SELECT sku, description, updated FROM articles', cursor: 'updated', key: 'sku', maxRecordBytes: 1000, pageSize: 2 }, { logger: silentLogger, baseDir: dir });
  const items = await collect(source, {});
  expect(items.filter((i) => !i.refused).map((i) => i.key)).toEqual(['A-1', 'A-3']);
  const big = items.find((i) => i.key === 'A-2')!;
  expect(big.refused?.code).toBe('SOURCE_RECORD_TOO_LARGE');
  expect(big.refused?.message).toMatch(/row \d+ \(key A-2\) is longer than maxRecordBytes \(1000 characters\)/);
  // Only what names the row is kept: the letter does not hold 3 MiB.
  expect(big.record).toEqual({ sku: 'A-2', updated: 2 });
  expect(big.origin?.raw?.length).toBeLessThan(1000);
  expect(big.position).toEqual({ value: 2, key: 'A-2' });
  await source.close();
});

it('bounds rows at 1 MiB of text by default, and a row just under it is read whole', async () => {
  const db = new Database(path.join(dir, 'erp.sqlite'));
  db.prepare('INSERT INTO articles VALUES (?, ?, ?)').run('A-4', 'y'.repeat(1024 * 1024 - 100), 4);
  db.close();
  const source = await createSource({ kind: 'sqlite', name: 'erp', path: path.join(dir, 'erp.sqlite') }, { query: 'SELECT sku, description, updated FROM articles', cursor: 'updated', key: 'sku' }, { logger: silentLogger, baseDir: dir });
  const items = await collect(source, {});
  expect(items.map((i) => [i.key, i.refused?.code ?? 'read'])).toEqual([['A-1', 'read'], ['A-2', 'SOURCE_RECORD_TOO_LARGE'], ['A-3', 'read'], ['A-4', 'read']]);
  expect(String(items[3]!.record.description).length).toBe(1024 * 1024 - 100);
  await source.close();
});
