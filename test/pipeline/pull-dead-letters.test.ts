/** Dead letters of pull pipelines: a shop record the mapping or the sink refuses is kept, the rest is delivered, and a retry delivers it. */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSink } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { retryDeadLetters, runPipeline } from '../../src/pipeline/index.js';
import { mappingFile, pushFixture, type PushFixture } from './support.js';

const mapping = (lastname: string) => `
name: shop-subscribers
direction: shop-to-erp
source: { resource: newsletter_subscribers }
target: { erp: erp_subscribers }
key: subscribe_id
fields:
  id: subscribe_id
  email: subscribe_email
  lastname: ${lastname}
`;
// The shop exports a missing last name as ''.
const STRICT = mapping("{ from: subscribe_lastname, required: true, null_values: [''] }");
const LENIENT = mapping("{ from: subscribe_lastname, default: '(none)', null_values: [''] }");

const def = { name: 'subscribers-in', direction: 'pull' as const, sink: { connection: 'erp' }, mapping: 'subscribers.yaml', resource: 'newsletter_subscribers', options: { sinkBatchSize: 4 } };

let f: PushFixture;
let sinkDb: Database.Database;
let sinkFile: string;
beforeEach(async () => {
  f = await pushFixture();
  sinkFile = join(f.dir, 'erp-in.sqlite');
  sinkDb = new Database(sinkFile);
  sinkDb.exec('CREATE TABLE erp_subscribers (id INTEGER PRIMARY KEY, email TEXT, lastname TEXT)');
  const r = await f.shop.create('newsletter_subscribers', ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((n) => ({ subscribe_email: `${n}@example.com`, ...(n === 'c' ? {} : { subscribe_lastname: `Name ${n}` }) })));
  expect(r.outcomes.every((o) => o.ok)).toBe(true);
});
afterEach(async () => {
  sinkDb.close();
  await f.close();
});

const sink = (key = 'id') => () => createSink({ kind: 'sqlite', path: sinkFile }, { table: 'erp_subscribers', key }, { logger: silentLogger, baseDir: '/' });
const emails = () => (sinkDb.prepare('SELECT email FROM erp_subscribers ORDER BY email').all() as { email: string }[]).map((r) => r.email);
const others = ['a', 'b', 'd', 'e', 'f', 'g'].map((n) => `${n}@example.com`);

describe('dead letters of pull pipelines', () => {
  it('dead-letters a shop record its mapping refuses, with the shop record and the reason, and delivers the rest', async () => {
    const summary = await runPipeline(def, { state: f.state, shop: f.shop, mapping: await mappingFile(f.dir, 'subscribers', STRICT), sink: sink() });
    expect(summary).toMatchObject({ status: 'partial', counts: { read: 7, created: 6, failed: 1, deadLettered: 1 } });
    expect(emails()).toEqual(others);
    const [letter, ...rest] = await f.state.deadLetters.list({ pipeline: 'subscribers-in' });
    expect(rest).toEqual([]);
    expect(letter!.record).toMatchObject({ subscribe_email: 'c@example.com' });
    expect(letter!.payload).toEqual(letter!.record);
    expect(letter!.reason).toContain('lastname');
  });

  it('re-runs a dead letter through the current mapping into the sink and removes the letter', async () => {
    await runPipeline(def, { state: f.state, shop: f.shop, mapping: await mappingFile(f.dir, 'subscribers', STRICT), sink: sink() });
    const fixed = await mappingFile(f.dir, 'subscribers', LENIENT);
    const retry = await retryDeadLetters(def, { state: f.state, shop: f.shop, mapping: fixed, sink: sink() });
    expect(retry).toMatchObject({ status: 'succeeded', mode: 'retry', counts: { read: 1, created: 1, deadLettered: 0 } });
    expect(emails()).toEqual([...others, 'c@example.com'].sort());
    expect(sinkDb.prepare("SELECT lastname FROM erp_subscribers WHERE email = 'c@example.com'").get()).toEqual({ lastname: '(none)' });
    expect(await f.state.deadLetters.list({ pipeline: 'subscribers-in' })).toEqual([]);
    // Delivered now: the next pull finds it unchanged.
    const next = await runPipeline(def, { state: f.state, shop: f.shop, mapping: fixed, sink: sink() });
    expect(next.counts).toMatchObject({ read: 7, created: 0, unchanged: 7 });
  });

  it('counts another attempt when the retried record still fails its mapping', async () => {
    await runPipeline(def, { state: f.state, shop: f.shop, mapping: await mappingFile(f.dir, 'subscribers', STRICT), sink: sink() });
    const retry = await retryDeadLetters(def, { state: f.state, shop: f.shop, mapping: await mappingFile(f.dir, 'subscribers', STRICT), sink: sink() });
    expect(retry).toMatchObject({ status: 'partial', counts: { read: 1, deadLettered: 1 } });
    expect((await f.state.deadLetters.list({ pipeline: 'subscribers-in' }))[0]!.attempts).toBe(2);
  });

  it('isolates a record the sink refuses (no key value), dead-letters it and delivers the others of its batch', async () => {
    sinkDb.exec('DROP TABLE erp_subscribers; CREATE TABLE erp_subscribers (id INTEGER, email TEXT, lastname TEXT PRIMARY KEY)');
    const lenientNoDefault = await mappingFile(f.dir, 'subscribers', mapping("{ from: subscribe_lastname, null_values: [''] }"));
    const summary = await runPipeline(def, { state: f.state, shop: f.shop, mapping: lenientNoDefault, sink: sink('lastname') });
    expect(summary).toMatchObject({ status: 'partial', counts: { read: 7, created: 6, deadLettered: 1 } });
    expect(emails()).toEqual(others);
    const [letter] = await f.state.deadLetters.list({ pipeline: 'subscribers-in' });
    expect(letter).toMatchObject({ code: 'CONNECTOR_INVALID_RECORD', record: { subscribe_email: 'c@example.com' } });

    const retry = await retryDeadLetters(def, { state: f.state, shop: f.shop, mapping: await mappingFile(f.dir, 'subscribers', LENIENT), sink: sink('lastname') });
    expect(retry).toMatchObject({ status: 'succeeded', counts: { created: 1 } });
    expect(emails()).toEqual([...others, 'c@example.com'].sort());
  });
});
