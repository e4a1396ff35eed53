/**
 * Whoever writes the inbox is not trusted with shopsync's files (issue 42 items 2, 3): a link
 * planted in failed/, a failed/ that is itself a link, a file name with line breaks, or a claimed
 * delivery swapped for a link to another client's 0600 file. Real symlinks, a push pipeline over a
 * CSV inbox into the sandbox; the run says what it refused.
 */
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSource } from '../../src/erp/index.js';
import type { Source } from '../../src/erp/types.js';
import { createLogger } from '../../src/log.js';
import { runPipeline, type RunSummary } from '../../src/pipeline/index.js';
import { dropFile } from '../support/files.js';
import { mappingFile, pushFixture, PRODUCT_MAPPING, shopRecords, type PushFixture } from './support.js';

const def = { name: 'artikel', direction: 'push' as const, source: { connection: 'inbox' }, mapping: 'products.yaml', resource: 'products', batchSize: 2 };

let f: PushFixture;
let inbox: string;
let outside: string;
let lines: Record<string, unknown>[];
beforeEach(async () => {
  f = await pushFixture();
  inbox = path.join(f.dir, 'inbox');
  outside = path.join(f.dir, 'home');
  mkdirSync(inbox);
  mkdirSync(outside);
  lines = [];
});
afterEach(async () => {
  await f.close();
});

const logger = () =>
  createLogger({
    level: 'info',
    destination: new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString('utf8').split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    }),
  });
const open = () => createSource({ kind: 'files', folder: f.dir }, { folder: 'inbox', format: 'csv', key: 'sku', csv: { delimiter: ';' }, stability: { mode: 'settle', settleMs: 0 } } as never, { logger: logger(), baseDir: f.dir });
const run = async (source: () => Promise<Source> = open): Promise<RunSummary> => runPipeline(def, { state: f.state, shop: f.shop, mapping: await mappingFile(f.dir, 'products.yaml', PRODUCT_MAPPING), source });
const csv = (rows: string[]) => `sku;name;price;qty\n${rows.map((sku) => `${sku};Artikel ${sku};1.00;1`).join('\n')}\n`;
/** A file that cannot be read: a byte that is not UTF-8. */
const unreadable = Buffer.concat([Buffer.from('sku;name;price;qty\nA-1;K'), Buffer.from([0xff]), Buffer.from(';1.00;1\n')]);
const ls = (dir: string) => readdirSync(dir).sort();
const models = async () => (await shopRecords(f.shop, 'products')).map((p) => String(p.products_model)).sort();

describe('a failed delivery never writes outside the failed folder', () => {
  it('passes by a link planted at failed/<name>.error.txt: its target is unchanged, and the run says so', async () => {
    const keys = path.join(outside, 'authorized_keys');
    writeFileSync(keys, 'ssh-ed25519 AAAA owner@host\n');
    mkdirSync(path.join(inbox, 'failed'));
    symlinkSync(keys, path.join(inbox, 'failed', 'bad.csv.error.txt'));
    dropFile(path.join(inbox, 'bad.csv'), unreadable);

    const summary = await run();
    expect(summary.status).toBe('partial');
    expect(summary.counts).toMatchObject({ unreadable: 1 });
    expect(readFileSync(keys, 'utf8')).toBe('ssh-ed25519 AAAA owner@host\n');
    expect(lstatSync(path.join(inbox, 'failed', 'bad.csv.error.txt')).isSymbolicLink()).toBe(true);
    // The file and its report took the next free name; the report is shopsync's alone.
    expect(ls(path.join(inbox, 'failed'))).toEqual(['bad.1.csv', 'bad.1.csv.error.txt', 'bad.csv.error.txt']);
    expect(statSync(path.join(inbox, 'failed', 'bad.1.csv.error.txt')).mode & 0o777).toBe(0o600);
    expect(lines).toContainEqual(expect.objectContaining({ code: 'FILE_UNSAFE', links: ['bad.csv.error.txt'], msg: expect.stringMatching(/refused to write through symbolic link/) }));
  });

  it('refuses a failed/ that is a link to another folder: nothing lands there, and the run fails naming it', async () => {
    symlinkSync(outside, path.join(inbox, 'failed'));
    dropFile(path.join(inbox, 'authorized_keys.csv'), unreadable);

    const summary = await run();
    expect(summary.status).toBe('failed');
    expect(summary.error).toMatchObject({ code: 'FILE_UNSAFE' });
    expect(summary.error?.message).toMatch(/failed is a symbolic link.*never moves or writes files through links/);
    expect(ls(outside)).toEqual([]);
    // The delivery waits in processing/ until the operator removed the link.
    expect(ls(path.join(inbox, 'processing'))).toEqual(['0000000001~authorized_keys.csv']);
  });

  // Only root can give a folder to another user; elsewhere this case is left to the link case above.
  it.skipIf(process.getuid?.() !== 0)('refuses a processing/ that another user created first: nothing is claimed into it', async () => {
    mkdirSync(path.join(inbox, 'processing'));
    chownSync(path.join(inbox, 'processing'), 65534, 65534);
    dropFile(path.join(inbox, 'a.csv'), csv(['A-1']));

    const summary = await run();
    expect(summary.status).toBe('failed');
    expect(summary.error).toMatchObject({ code: 'FILE_UNSAFE', message: expect.stringMatching(/processing belongs to user id 65534, not to shopsync/) });
    expect(ls(path.join(inbox, 'processing'))).toEqual([]);
    expect(ls(inbox)).toEqual(['a.csv', 'processing']);
  });

  it('escapes line breaks of a file name in its report, so the name cannot add lines of its own', async () => {
    const name = 'x\nssh-ed25519 AAAA attacker@evil\n.csv';
    dropFile(path.join(inbox, name), unreadable);
    await run();
    const report = readFileSync(path.join(inbox, 'failed', `${name}.error.txt`), 'utf8');
    expect(report.split('\n').filter((l) => l.startsWith('ssh-ed25519'))).toEqual([]);
    expect(report).toContain('file: x\\nssh-ed25519 AAAA attacker@evil\\n.csv\n');
  });

  it('creates processing/, archive/ and failed/ for shopsync alone (0700) and reports 0600, whatever the umask', async () => {
    const umask = process.umask(0o000);
    try {
      dropFile(path.join(inbox, 'good.csv'), csv(['G-1']));
      dropFile(path.join(inbox, 'bad.csv'), unreadable);
      await run();
    } finally {
      process.umask(umask);
    }
    for (const dir of ['processing', 'archive', 'failed']) expect(statSync(path.join(inbox, dir)).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(inbox, 'failed', 'bad.csv.error.txt')).mode & 0o777).toBe(0o600);
  });
});

describe('a claimed delivery swapped for a link before it is read', () => {
  it('is refused: the 0600 file the link points at never reaches the shop, and the run says why', async () => {
    // Another client's price list, readable only by shopsync's user.
    const secret = path.join(outside, 'other-client-prices.csv');
    writeFileSync(secret, csv(['SECRET-1', 'SECRET-2']));
    chmodSync(secret, 0o600);
    dropFile(path.join(inbox, 'a.csv'), csv(['A-1', 'A-2', 'A-3']));
    dropFile(path.join(inbox, 'b.csv'), csv(['B-1']));
    // The racing writer: once the first record of a.csv is out, both files are claimed and b.csv is
    // not yet opened; it is swapped for a link at that moment, every time.
    let swapped = false;
    const racing = async (): Promise<Source> => {
      const source = await open();
      return {
        ...source,
        async *read(options) {
          for await (const item of source.read(options)) {
            if (!swapped) {
              swapped = true;
              const claimed = path.join(inbox, 'processing', '0000000002~b.csv');
              renameSync(claimed, path.join(outside, 'b.csv'));
              symlinkSync(secret, claimed);
            }
            yield item;
          }
        },
      };
    };

    const summary = await run(racing);
    expect(swapped).toBe(true);
    expect(await models()).toEqual(['A-1', 'A-2', 'A-3']);
    expect(summary.status).toBe('partial');
    const letters = await f.state.deadLetters.list({ pipeline: def.name });
    expect(letters).toEqual([expect.objectContaining({ code: 'FILE_UNSAFE', reason: expect.stringMatching(/b\.csv refused: .*symbolic link/) })]);
    expect(JSON.stringify(letters)).not.toContain('SECRET');
    // The link itself (never its target) went to failed/ with a report saying why.
    expect(lstatSync(path.join(inbox, 'failed', 'b.csv')).isSymbolicLink()).toBe(true);
    expect(readFileSync(path.join(inbox, 'failed', 'b.csv.error.txt'), 'utf8')).toMatch(/code: FILE_UNSAFE/);
    expect(readFileSync(secret, 'utf8')).toBe(csv(['SECRET-1', 'SECRET-2']));
    expect(existsSync(path.join(inbox, 'processing', '0000000002~b.csv'))).toBe(false);
  });

  it('is refused when it already was a link when claimed (swapped between the listing and the move)', async () => {
    const secret = path.join(outside, 'other-client-prices.csv');
    writeFileSync(secret, csv(['SECRET-1']));
    chmodSync(secret, 0o600);
    // What the claim left behind when the writer swapped its file for a link after the listing.
    mkdirSync(path.join(inbox, 'processing'), { mode: 0o700 });
    symlinkSync(secret, path.join(inbox, 'processing', '0000000001~c.csv'));
    const summary = await run();
    expect(await models()).toEqual([]);
    expect(summary.status).toBe('partial');
    const letters = await f.state.deadLetters.list({ pipeline: def.name });
    expect(letters).toEqual([expect.objectContaining({ code: 'FILE_UNSAFE', reason: expect.stringMatching(/c\.csv refused: .*symbolic link when it was claimed/) })]);
    expect(lstatSync(path.join(inbox, 'failed', 'c.csv')).isSymbolicLink()).toBe(true);
  });
});

describe('a link dropped into the inbox', () => {
  it('is never claimed nor read, and is said once, not at every run', async () => {
    const secret = path.join(outside, 'other-client-prices.csv');
    writeFileSync(secret, csv(['SECRET-1']));
    chmodSync(secret, 0o600);
    symlinkSync(secret, path.join(inbox, 'c.csv'));
    dropFile(path.join(inbox, 'd.csv'), csv(['D-1']));
    expect((await run()).status).toBe('succeeded');
    expect((await run()).status).toBe('succeeded');
    expect(await models()).toEqual(['D-1']);
    expect(lines.filter((l) => l.file === 'c.csv')).toEqual([expect.objectContaining({ level: 40, msg: expect.stringMatching(/symbolic link.*never follows links/) })]);
    expect(lstatSync(path.join(inbox, 'c.csv')).isSymbolicLink()).toBe(true); // left where it is
  });
});
