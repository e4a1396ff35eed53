/**
 * A letter of a record the source refused (no key, a broken row, an unreadable file) holds the row
 * as it was read: a retry cannot deliver it unchanged. It keeps its code, place and reason, counts
 * as failing again, and its reason says to fix the row in the ERP (issue 31 item 8: it used to be
 * mapped as if it were a record and came back as MAPPING_OUTPUT_INVALID).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSource, type FileSourceConfig } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import { retryDeadLetters, runPipeline } from '../../src/pipeline/index.js';
import { dropFile } from '../support/files.js';
import { mappingFile, pushFixture, PRODUCT_MAPPING, sqliteSource, type PushFixture } from './support.js';

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
});
afterEach(async () => {
  await f.close();
});

describe('retrying the letter of a record the source refused', () => {
  it('of a CSV row without a key keeps SOURCE_KEY_MISSING, its place and reason, says to fix the row and deliver the file again, and sends nothing', async () => {
    const def = { name: 'stock-files', direction: 'push' as const, source: { connection: 'inbox' }, mapping: 'stock-per-warehouse.yaml', resource: 'products' };
    mkdirSync(path.join(f.dir, 'inbox'));
    dropFile(path.join(f.dir, 'inbox', 'lager.csv'), 'ARTNR;Lager;Bestand;Mindestbestand\n;1;3;1\n');
    const source = () => createSource({ kind: 'files', folder: f.dir }, { folder: 'inbox', format: 'csv', csv: { delimiter: ';' }, key: 'ARTNR', stability: { mode: 'settle', settleMs: 0 } } as FileSourceConfig as never, { logger: silentLogger, baseDir: f.dir });
    const deps = { state: f.state, shop: f.shop, mapping: await loadMapping(path.resolve('mappings/stock-per-warehouse.yaml')), source };
    expect((await runPipeline(def, deps)).counts).toMatchObject({ deadLettered: 1, unreadable: 1 });
    const [before] = await f.state.deadLetters.list({ pipeline: def.name });
    expect(before).toMatchObject({ code: 'SOURCE_KEY_MISSING', origin: { file: 'lager.csv', line: 2 } });
    expect(before!.reason).toBe('lager.csv line 2: no value in key field ARTNR; the record cannot be told apart from others');

    const retry = await retryDeadLetters(def, deps);
    expect(retry).toMatchObject({ status: 'partial', counts: { read: 1, created: 0, updated: 0, deadLettered: 1, unreadable: 1, requests: 0 } });
    const [after] = await f.state.deadLetters.list({ pipeline: def.name });
    expect(after).toMatchObject({ id: before!.id, erpKey: before!.erpKey, code: 'SOURCE_KEY_MISSING', attempts: 2, origin: before!.origin });
    expect(after!.reason).toBe(
      'lager.csv line 2: no value in key field ARTNR; the record cannot be told apart from others. A retry cannot deliver it: the source refused it as it was read. Fix it in the ERP and deliver lager.csv again (a delivery read whole closes this letter), or drop the letter',
    );

    // Retried again: one more attempt, the advice not repeated.
    await retryDeadLetters(def, deps);
    const [again] = await f.state.deadLetters.list({ pipeline: def.name });
    expect(again).toMatchObject({ code: 'SOURCE_KEY_MISSING', attempts: 3, reason: after!.reason });
  });

  it('of a database row without a key keeps its code and says to fix the row in the ERP, where the next sync reads it again', async () => {
    const def = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products' };
    f.erp.exec("CREATE TABLE artikel (sku TEXT, name TEXT, price TEXT, qty INTEGER, updated_at TEXT); INSERT INTO artikel VALUES (NULL, 'Ohne Nummer', '9.90', 3, '2026-01-01 00:00:00')");
    const deps = { state: f.state, shop: f.shop, mapping: await mappingFile(f.dir, 'products', PRODUCT_MAPPING), source: sqliteSource(f.erpFile, { query: 'SELECT * FROM artikel', cursor: 'updated_at', key: 'sku' }) };
    expect((await runPipeline(def, deps)).counts).toMatchObject({ deadLettered: 1, unreadable: 1 });
    const [before] = await f.state.deadLetters.list({ pipeline: def.name });
    expect(before).toMatchObject({ code: 'SOURCE_KEY_MISSING' });

    expect(await retryDeadLetters(def, deps)).toMatchObject({ status: 'partial', counts: { read: 1, created: 0, deadLettered: 1, unreadable: 1, requests: 0 } });
    const [after] = await f.state.deadLetters.list({ pipeline: def.name });
    expect(after).toMatchObject({ code: 'SOURCE_KEY_MISSING', attempts: 2, origin: before!.origin });
    expect(after!.reason).toBe(`${before!.reason}. A retry cannot deliver it: the source refused it as it was read. Fix the row in the ERP (the next sync reads it again), or drop the letter`);
  });
});
