/**
 * Inbox file names (issue 29 item 8): a pattern matches the whole name, a newline included, and a
 * file whose name cannot be handled is said once, never ignored without a word.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSource, type FileSourceConfig, type SourceItem } from '../../src/erp/index.js';
import { globToRegExp } from '../../src/erp/files/folders.js';
import { parseClaim } from '../../src/erp/files/claims.js';
import { createLogger } from '../../src/log.js';
import { collect } from './sql-suite.js';
import { dropFile } from '../support/files.js';

let root: string;
let inbox: string;
let lines: Record<string, unknown>[];
const logger = () =>
  createLogger({
    level: 'debug',
    destination: new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString('utf8').split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    }),
  });
const now = { mode: 'settle' as const, settleMs: 0 };
const open = (cfg: Partial<FileSourceConfig> = {}) => createSource({ kind: 'files', folder: root }, { folder: 'inbox', format: 'csv', stability: now, key: 'id', ...cfg }, { logger: logger(), baseDir: root });
const ls = (sub = '') => readdirSync(path.join(inbox, sub)).sort();
const warnings = () => lines.filter((l) => l.level === 40);

/** A file whose name is raw bytes (not valid UTF-8), settled a minute ago. */
function dropRaw(name: Buffer, content: string): void {
  const file = Buffer.concat([Buffer.from(`${inbox}/`), name]);
  writeFileSync(file, content);
  const at = new Date(Date.now() - 60_000);
  utimesSync(file, at, at);
}

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'erp-names-'));
  inbox = path.join(root, 'inbox');
  mkdirSync(inbox);
  lines = [];
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('inbox file names', () => {
  it('matches a pattern against the whole name, a newline in it included', () => {
    expect(globToRegExp('*.csv').test('a\nb.csv')).toBe(true);
    expect(globToRegExp('artikel?.csv').test('artikel\n.csv')).toBe(true);
    expect(parseClaim('0000000003~a\nb.csv')).toEqual({ arrival: 3, original: 'a\nb.csv' });
  });

  it('reads, claims and archives a file whose name holds a newline instead of ignoring it forever', async () => {
    dropFile(path.join(inbox, 'a\nb.csv'), 'id\n1\n2\n');
    const source = await open();
    const items = await collect(source, {});
    expect(items.map((i) => i.key)).toEqual(['1', '2']);
    expect(items[1]?.position).toEqual({ value: '0000000001~a\nb.csv', key: '0000000002' });
    await source.commit?.(items[1]?.position as SourceItem['position']);
    expect(ls('archive')).toEqual(['a\nb.csv']);
    expect(ls('processing')).toEqual([]);
  });

  it('warns once about a name that is not valid UTF-8, and reads the other files', async () => {
    dropRaw(Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from('.csv')]), 'id\n9\n');
    dropFile(path.join(inbox, 'good.csv'), 'id\n1\n');
    const first = await collect(await open(), {});
    expect(first.map((i) => i.key)).toEqual(['1']);
    expect(warnings()).toEqual([expect.objectContaining({ file: 'caf\uFFFD.csv', msg: expect.stringMatching(/not valid UTF-8.*rename it/) })]);
    // The next run (a new source, as the daemon makes one per run) does not say it again.
    await collect(await open(), {});
    expect(warnings()).toHaveLength(1);
    expect(readdirSync(inbox, { encoding: 'buffer' }).some((n) => n.includes(0xe9))).toBe(true); // left where it is
  });

  it('warns once about a name too long to be claimed instead of failing every read of the folder', async () => {
    const long = `${'x'.repeat(246)}.csv`; // 250 bytes: `0000000001~` makes it 261, past the 255 a file name may have
    dropFile(path.join(inbox, long), 'id\n9\n');
    dropFile(path.join(inbox, 'good.csv'), 'id\n1\n');
    const items = await collect(await open(), {});
    expect(items.map((i) => i.key)).toEqual(['1']);
    await collect(await open(), {});
    expect(warnings()).toEqual([expect.objectContaining({ file: long, msg: expect.stringMatching(/too long.*rename it shorter/) })]);
    expect(ls()).toContain(long);
  });

  it('says nothing about files the pattern does not take', async () => {
    dropRaw(Buffer.concat([Buffer.from('notes'), Buffer.from([0xff]), Buffer.from('.txt')]), 'x');
    dropFile(path.join(inbox, `${'y'.repeat(240)}.txt`), 'x');
    expect(await collect(await open(), {})).toEqual([]);
    expect(warnings()).toEqual([]);
  });
});
