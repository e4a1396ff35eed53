/**
 * Files that arrive: the same name delivered night after night is a new delivery each time, a file
 * still being written is never archived half read, and a letter about a file closes once a later
 * delivery of it reads cleanly. A push pipeline over a CSV inbox into the sandbox.
 */
import { closeSync, mkdirSync, openSync, readdirSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSource } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { runPipeline, type RunSummary } from '../../src/pipeline/index.js';
import { mappingFile, pushFixture, PRODUCT_MAPPING, shopRecords, type PushFixture } from './support.js';
import { sleep } from '../support/wait.js';
import { dropFile } from '../support/files.js';

const def = { name: 'artikel', direction: 'push' as const, source: { connection: 'inbox' }, mapping: 'products.yaml', resource: 'products', batchSize: 2 };

let f: PushFixture;
let inbox: string;
beforeEach(async () => {
  f = await pushFixture();
  inbox = path.join(f.dir, 'inbox');
  mkdirSync(inbox);
});
afterEach(async () => {
  await f.close();
});

type SourceSettings = { encoding?: string; stability?: { mode: 'settle'; settleMs: number } };
const source = (settings: SourceSettings = {}) => () =>
  createSource({ kind: 'files', folder: f.dir }, { folder: 'inbox', format: 'csv', key: 'sku', csv: { delimiter: ';' }, stability: { mode: 'settle', settleMs: 0 }, ...settings } as never, { logger: silentLogger, baseDir: f.dir });
const run = async (settings: SourceSettings = {}, signal?: AbortSignal): Promise<RunSummary> =>
  runPipeline(def, { state: f.state, shop: f.shop, mapping: await mappingFile(f.dir, 'products.yaml', PRODUCT_MAPPING), source: source(settings) }, signal ? { signal } : {});
const csv = (rows: [string, string][]) => `sku;name;price;qty\n${rows.map(([sku, price]) => `${sku};Artikel ${sku};${price};1`).join('\n')}\n`;
const drop = (name: string, content: string | Buffer) => dropFile(path.join(inbox, name), content);
async function prices(): Promise<Record<string, number>> {
  return Object.fromEntries((await shopRecords(f.shop, 'products')).map((p) => [String(p.products_model), Number(p.products_price)]));
}

describe('the same file name delivered night after night', () => {
  it('reads each delivery from its first record: changes in early and late rows all arrive, each once', async () => {
    drop('artikel.csv', csv([['A-1', '1.00'], ['A-2', '2.00'], ['A-3', '3.00']]));
    expect((await run()).counts).toMatchObject({ read: 3, created: 3, updated: 0 });

    // Night 2: row 1's price changed, two rows added.
    drop('artikel.csv', csv([['A-1', '1.50'], ['A-2', '2.00'], ['A-3', '3.00'], ['A-4', '4.00'], ['A-5', '5.00']]));
    expect((await run()).counts).toMatchObject({ read: 5, created: 2, updated: 1, unchanged: 2 });

    // Night 3: an early and a late row changed.
    drop('artikel.csv', csv([['A-1', '1.50'], ['A-2', '2.20'], ['A-3', '3.00'], ['A-4', '4.00'], ['A-5', '5.50']]));
    expect((await run()).counts).toMatchObject({ read: 5, created: 0, updated: 2, unchanged: 3 });

    expect(await prices()).toEqual({ 'A-1': 1.5, 'A-2': 2.2, 'A-3': 3, 'A-4': 4, 'A-5': 5.5 });
    // Every delivery is archived under its own name; nothing waits in the inbox or in processing.
    expect(readdirSync(path.join(inbox, 'archive')).sort()).toEqual(['artikel.1.csv', 'artikel.2.csv', 'artikel.csv']);
    expect(readdirSync(path.join(inbox, 'processing'))).toEqual([]);
  });

  it('resumes a delivery stopped mid-file after its last settled record, then reads the next delivery of that name in full', async () => {
    drop('artikel.csv', csv([['B-1', '1.00'], ['B-2', '2.00'], ['B-3', '3.00'], ['B-4', '4.00'], ['B-5', '5.00'], ['B-6', '6.00']]));
    const stop = new AbortController();
    const unsubscribe = { done: false };
    // Stop once the first batch settled: the cursor stands inside this delivery.
    const watch = setInterval(() => {
      void f.state.cursors.get(def.name, 'incremental').then((c) => {
        if (c && !unsubscribe.done) {
          unsubscribe.done = true;
          stop.abort();
        }
      });
    }, 1);
    await f.sandbox.settings();
    const first = await run({}, stop.signal).finally(() => clearInterval(watch));
    const cursor = await f.state.cursors.get(def.name, 'incremental');
    expect(first.status === 'aborted' || first.status === 'succeeded').toBe(true);
    // The next night's file arrives under the same name before the stopped delivery finished.
    drop('artikel.csv', csv([['B-1', '1.10'], ['B-6', '6.60']]));

    const second = await run();
    expect(second.status).toBe('succeeded');
    // Records after the cursor of the first delivery, then the whole second delivery.
    const settledBefore = first.counts.created;
    expect(second.counts).toMatchObject({ created: 6 - settledBefore, updated: 2 });
    expect(String(cursor?.value)).toMatch(/^0000000001~artikel\.csv$/);
    expect(await prices()).toEqual({ 'B-1': 1.1, 'B-2': 2, 'B-3': 3, 'B-4': 4, 'B-5': 5, 'B-6': 6.6 });
  });
});

describe('a file still being written', () => {
  it('is never archived half read: every row a writer appends arrives, none twice', async () => {
    const file = path.join(inbox, 'lager.csv');
    const total = 120;
    let written = 0;
    // An ERP export writing 20 rows a second into the file it keeps open, each row in two writes, so
    // a read may meet half a row. (Once the file is claimed, its writes land in processing/.)
    const fd = openSync(file, 'a');
    writeSync(fd, 'sku;name;price;qty\n');
    const writer = (async () => {
      try {
        while (written < total) {
          written++;
          writeSync(fd, `W-${written};Artikel ${written};`);
          await sleep(10);
          writeSync(fd, `${written}.00;1\n`);
          await sleep(40);
        }
      } finally {
        closeSync(fd);
      }
    })();
    const summaries: RunSummary[] = [];
    while (written < total) {
      summaries.push(await run());
      await sleep(25);
    }
    await writer;
    // The writer is done; a sync once the file is quiet (a second) reads the rest and archives it.
    summaries.push(await run());
    await sleep(1100);
    summaries.push(await run());

    expect((await f.state.deadLetters.list({ pipeline: def.name })).map((l) => `${l.erpKey} ${l.code} ${l.reason}`)).toEqual([]);
    expect(summaries.map((s) => `${s.status} ${JSON.stringify(s.counts)} ${s.error?.message ?? ''}`).filter((s) => !s.startsWith('succeeded'))).toEqual([]);
    expect(summaries.reduce((n, s) => n + s.counts.created, 0)).toBe(total);
    expect(summaries.reduce((n, s) => n + s.counts.updated + s.counts.failed + s.counts.deadLettered, 0)).toBe(0);
    const shop = await prices();
    expect(Object.keys(shop)).toHaveLength(total);
    expect(shop['W-77']).toBe(77);
    // Read while it grew, more than once: the file stayed in processing until the writer was done.
    expect(summaries.filter((s) => s.counts.created > 0).length).toBeGreaterThan(1);
    expect(readdirSync(path.join(inbox, 'archive'))).toEqual(['lager.csv']);
  });
});

describe('letters about a file', () => {
  it('close when a later delivery of that file reads cleanly', async () => {
    const text = csv([['C-1', '1.00'], ['C-2', '2.00']]).replace('Artikel C-1', 'Größe C-1');
    drop('export.csv', iconv.encode(text, 'win1252'));
    const refused = await run();
    expect(refused.status).toBe('partial');
    expect(await f.state.deadLetters.list({ pipeline: def.name })).toEqual([expect.objectContaining({ erpKey: 'export.csv', code: 'FILE_UNREADABLE' })]);

    // The user sets the encoding and drops the file again.
    drop('export.csv', iconv.encode(text, 'win1252'));
    const fixed = await run({ encoding: 'windows-1252' });
    expect(fixed).toMatchObject({ status: 'succeeded', counts: { created: 2 } });
    expect(await f.state.deadLetters.list({ pipeline: def.name })).toEqual([]);
  });

  it('of a broken row close when the next delivery has that row whole, and stay for a row it breaks again', async () => {
    drop('export.csv', 'sku;name;price;qty\nD-1;Eins;1.00;1\nD-2;"Zwei;2.00;1\nD-3;Drei;3.00;1\n');
    expect((await run()).counts).toMatchObject({ created: 2, deadLettered: 1 });
    drop('export.csv', 'sku;name;price;qty\nD-1;Eins;1.00;1\nD-2;Zwei;2.00;1\nD-3;Drei;3.00;1\n');
    expect((await run()).counts).toMatchObject({ created: 1, unchanged: 2, deadLettered: 0 });
    expect(await f.state.deadLetters.list({ pipeline: def.name })).toEqual([]);

    drop('export.csv', 'sku;name;price;qty\nD-1;"Eins;1.00;1\nD-4;Vier;4.00;1\n');
    expect((await run()).counts).toMatchObject({ created: 1, deadLettered: 1 });
    expect((await f.state.deadLetters.list({ pipeline: def.name })).map((l) => l.erpKey)).toEqual(['export.csv#line 2']);
  });
});
