/**
 * Letters that wait for another record (NOT_FOUND, REFERENCE_MISSING, MAPPING_LOOKUP) are tried
 * again by the syncs of their pipeline, backing off: after its first failure a letter is tried by
 * the next sync, after the N-th it waits 2^(N-2) minutes (at most 6 hours) from its last failure.
 * One that failed AUTO_RETRY_MAX_ATTEMPTS times is no longer tried on its own, and says so.
 */
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { AUTO_RETRY_MAX_ATTEMPTS, autoRetryDelayMs, nextAutoRetry } from '../../src/pipeline/waitingLetters.js';
import { pushFixture, sqliteSource, type PushFixture } from './support.js';

const STOCK_SOURCE = { query: 'SELECT ARTNR, Bestand, Mindestbestand, Meldebestand, Geaendert FROM artikel', cursor: 'Geaendert', key: 'ARTNR' };
const def = { name: 'stock', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'stock.yaml', resource: 'products' };
const MINUTE = 60_000;

let f: PushFixture;
beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-03-02T08:00:00Z'));
  f = await pushFixture();
  f.erp.exec('CREATE TABLE artikel (ARTNR TEXT PRIMARY KEY, Bestand TEXT, Mindestbestand TEXT, Meldebestand TEXT, Geaendert TEXT NOT NULL)');
  f.erp.prepare('INSERT INTO artikel VALUES (?, ?, ?, ?, ?)').run('ART-NEW', '25', '2', '4', '2026-01-01 00:00:00');
});
afterEach(async () => {
  await f.close();
  vi.useRealTimers();
});

const later = (ms: number) => vi.setSystemTime(new Date(Date.now() + ms));
const letter = async () => (await f.state.deadLetters.list({ pipeline: 'stock' }))[0];

describe('the wait of a letter before a sync tries it again', () => {
  it('is none after its first failure, then a minute doubling with every failure, at most 6 hours', () => {
    expect([1, 2, 3, 4, 5, 10, 11, 12, 40].map(autoRetryDelayMs)).toEqual([0, MINUTE, 2 * MINUTE, 4 * MINUTE, 8 * MINUTE, 256 * MINUTE, 360 * MINUTE, 360 * MINUTE, 360 * MINUTE]);
  });
});

describe('a letter waiting for an article the shop does not have', () => {
  it('is tried by the next sync, then only once its wait is over, and delivered by the first sync after that once the article exists', async () => {
    const mapping = await loadMapping(path.resolve('mappings/stock.yaml'));
    const sync = () => runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, STOCK_SOURCE) });
    expect((await sync()).counts).toMatchObject({ read: 1, deadLettered: 1 });
    expect(await letter()).toMatchObject({ code: 'NOT_FOUND', attempts: 1 });
    expect(nextAutoRetry((await letter())!)?.toISOString()).toBe('2026-03-02T08:00:00.000Z');

    later(10_000);
    expect((await sync()).counts).toMatchObject({ read: 1, deadLettered: 1 });
    expect(await letter()).toMatchObject({ attempts: 2 });
    expect(nextAutoRetry((await letter())!)?.toISOString()).toBe('2026-03-02T08:01:10.000Z');

    // Within its minute: not tried, nothing counted, the letter stays as it is.
    later(30_000);
    expect(await sync()).toMatchObject({ status: 'succeeded', counts: { read: 0, deadLettered: 0, requests: 0 } });
    expect(await letter()).toMatchObject({ attempts: 2 });

    later(30_000);
    expect((await sync()).counts).toMatchObject({ read: 1, deadLettered: 1 });
    expect(await letter()).toMatchObject({ attempts: 3 });

    await f.shop.create('products', [{ products_model: 'ART-NEW', products_price: '10.00', languages: { de: { products_name: 'Neu' } } }]);
    later(MINUTE);
    expect((await sync()).counts).toMatchObject({ read: 0 });
    later(MINUTE);
    expect(await sync()).toMatchObject({ status: 'succeeded', counts: { updated: 1, deadLettered: 0 } });
    expect(await letter()).toBeUndefined();
  });

  it('that failed AUTO_RETRY_MAX_ATTEMPTS times is no longer tried on its own, says so once at warn, and stays a dead letter', async () => {
    const mapping = await loadMapping(path.resolve('mappings/stock.yaml'));
    let log = '';
    const logger = pino({ level: 'info' }, new Writable({ write: (c: Buffer, _e, done) => ((log += c.toString()), done()) }));
    const sync = () => runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, STOCK_SOURCE), logger });
    await sync();
    // As if it had failed all but once already.
    const first = (await letter())!;
    await f.state.write((tx) => {
      for (let i = 1; i < AUTO_RETRY_MAX_ATTEMPTS - 1; i++) tx.deadLetters.add({ pipeline: 'stock', resource: 'products', erpKey: 'ART-NEW', record: first.record, payload: first.payload, code: first.code, reason: first.reason, runId: first.runId });
    });
    expect(await letter()).toMatchObject({ attempts: AUTO_RETRY_MAX_ATTEMPTS - 1 });

    later(7 * 60 * MINUTE);
    expect((await sync()).counts).toMatchObject({ read: 1, deadLettered: 1 });
    expect(await letter()).toMatchObject({ attempts: AUTO_RETRY_MAX_ATTEMPTS });
    expect(nextAutoRetry((await letter())!)).toBeUndefined();
    const warnings = log.split('\n').filter((l) => l.includes('"level":40'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ letters: 1, keys: ['ART-NEW'], msg: `dead letters that failed ${AUTO_RETRY_MAX_ATTEMPTS} times are no longer tried by syncs: fix what they wait for, then shopsync dlq retry (or drop them)` });

    later(7 * 60 * MINUTE);
    expect((await sync()).counts).toMatchObject({ read: 0, deadLettered: 0 });
    expect(await f.state.deadLetters.count('stock')).toBe(1);
    expect(log.split('\n').filter((l) => l.includes('"level":40'))).toHaveLength(1);
  });
});
