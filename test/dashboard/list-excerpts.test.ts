/**
 * Issue 42 item 9: dashboard lists never load whole records. Letters of about 1 MiB each (the most
 * a letter keeps whole) and events near the stored payload bound are listed through the real
 * dashboard server on both state backends.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, expect, it } from 'vitest';
import { registerDashboard } from '../../src/dashboard/index.js';
import { SyncEvents } from '../../src/pipeline/events.js';
import { EVENT_EXCERPT_MAX } from '../../src/state/eventExcerpt.js';
import { LIST_EXCERPT_MAX } from '../../src/state/letterExcerpt.js';
import { LETTER_RECORD_MAX, truncatedBytes } from '../../src/state/rows.js';
import { emptyCounts, type StateStore } from '../../src/state/index.js';
import { forEachBackend } from '../state/backends.js';
import { listeningUrl } from '../support/wait.js';

const LETTERS = 5;
/** A record just under the letter bound, so it is stored whole. */
const bigRecord = (i: number) => ({ sku: `BIG-${i}`, name: `Big ${i}`, description: 'x'.repeat(LETTER_RECORD_MAX - 200) });
/** A payload near the stored event bound: many fields, none clipped on its own. */
const bigPayload = () => Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, 'y'.repeat(2000)]));

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serve(state: StateStore): Promise<string> {
  app = Fastify();
  await registerDashboard(app, {
    state,
    events: new SyncEvents(),
    pipelines: [{ name: 'products-push', resource: 'products', direction: 'push', nextRun: () => undefined }],
    runNow: async () => {},
    retryDeadLetters: async () => {},
    dropDeadLetters: async () => {},
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return listeningUrl(app.server);
}

forEachBackend('dead-letter lists', (backend) => {
  it('answer with excerpts of 1 MiB records, while one letter still holds its record whole', async () => {
    const state = await backend.open();
    await state.write((tx) => {
      for (let i = 0; i < LETTERS; i++) tx.deadLetters.add({ pipeline: 'products-push', resource: 'products', erpKey: `BIG-${i}`, record: bigRecord(i), payload: bigPayload(), code: 'INVALID_PAYLOAD', reason: 'too big to show' });
      // Cut when stored: its list entry still names the size of the record it came from.
      tx.deadLetters.add({ pipeline: 'products-push', resource: 'products', erpKey: 'HUGE', record: { sku: 'HUGE', description: 'z'.repeat(3 * LETTER_RECORD_MAX) }, code: 'INVALID_PAYLOAD', reason: 'huge' });
      tx.deadLetters.add({ pipeline: 'products-push', resource: 'products', erpKey: 'SMALL', record: { sku: 'SMALL', name: 'Small one' }, code: 'INVALID_PAYLOAD', reason: 'small' });
    });
    const base = await serve(state);
    const stored = LETTERS * LETTER_RECORD_MAX;

    const page = await fetch(`${base}/dead-letters`);
    const body = await page.text();
    expect(page.status).toBe(200);
    expect(body).toContain('BIG-4');
    expect(body).toContain('Small one');
    expect(body.length).toBeLessThan(stored / 20);

    const api = await fetch(`${base}/api/dead-letters`);
    const text = await api.text();
    expect(api.status).toBe(200);
    expect(text.length).toBeLessThan(stored / 20);
    const listed = (JSON.parse(text) as { deadLetters: { erpKey: string; record: Record<string, unknown>; payload?: unknown }[] }).deadLetters;
    const big = listed.find((l) => l.erpKey === 'BIG-0')!;
    // A listed record is marked cut, so a retry handed it refuses rather than sending half a record.
    expect(truncatedBytes(big.record)).toBe(Buffer.byteLength(JSON.stringify(bigRecord(0))));
    expect(JSON.stringify(big.record).length).toBeLessThan(2 * LIST_EXCERPT_MAX);
    expect(big.payload).toMatchObject({ truncated: true });
    expect(truncatedBytes(listed.find((l) => l.erpKey === 'HUGE')!.record)).toBe(Buffer.byteLength(JSON.stringify({ sku: 'HUGE', description: 'z'.repeat(3 * LETTER_RECORD_MAX) })));
    expect(listed.find((l) => l.erpKey === 'SMALL')!.record).toEqual({ sku: 'SMALL', name: 'Small one' });

    // The one letter a retry reads keeps its record whole.
    expect((await state.deadLetters.getByKey('products-push', 'BIG-0'))!.record).toEqual(bigRecord(0));
  });

  it('of a run answer with events whose long payloads and diffs are markers, while one event stays whole', async () => {
    const state = await backend.open();
    const runId = await state.runs.start({ pipeline: 'products-push', mode: 'sync', lane: 'products-push' });
    const diff = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, { shop: 'a'.repeat(1000), next: 'b'.repeat(1000) }]));
    await state.write((tx) => {
      for (let i = 0; i < 20; i++) tx.events.add({ runId, pipeline: 'products-push', resource: 'products', erpKey: `BIG-${i}`, shopId: i + 1, outcome: 'updated', payload: bigPayload(), diff });
      tx.events.add({ runId, pipeline: 'products-push', resource: 'products', erpKey: 'SMALL', shopId: 99, outcome: 'created', payload: { products_model: 'SMALL' } });
      // A failure without payload shows its letter's record: as an excerpt, not 1 MiB per row.
      for (let i = 0; i < 5; i++) {
        tx.events.add({ runId, pipeline: 'products-push', resource: 'products', erpKey: `FAIL-${i}`, outcome: 'dead-lettered', error: { code: 'INVALID_PAYLOAD', message: 'too big' } });
        tx.deadLetters.add({ pipeline: 'products-push', resource: 'products', erpKey: `FAIL-${i}`, record: bigRecord(i), code: 'INVALID_PAYLOAD', reason: 'too big', runId });
      }
    });
    await state.runs.finish(runId, 'partial', { ...emptyCounts(), read: 26, updated: 20, created: 1, deadLettered: 5 });
    const base = await serve(state);
    const stored = 20 * 2 * JSON.stringify(bigPayload()).length;

    const page = await fetch(`${base}/runs/${runId}`);
    const body = await page.text();
    expect(page.status).toBe(200);
    expect(body).toContain('BIG-19');
    expect(body).toContain('FAIL-4');
    expect(body.length).toBeLessThan(stored / 10);

    const records = await fetch(`${base}/records?q=BIG-3`);
    expect(records.status).toBe(200);
    expect((await records.text()).length).toBeLessThan(stored / 10);

    const api = await fetch(`${base}/api/runs/${runId}`);
    const events = ((await api.json()) as { events: { id: number; erpKey: string; payload?: unknown; diff?: unknown }[] }).events;
    const big = events.find((e) => e.erpKey === 'BIG-0')!;
    expect(big.payload).toEqual({ truncated: true, bytes: JSON.stringify(bigPayload()).length });
    expect(big.diff).toMatchObject({ truncated: true });
    expect(events.find((e) => e.erpKey === 'SMALL')!.payload).toEqual({ products_model: 'SMALL' });
    expect(JSON.stringify(bigPayload()).length).toBeGreaterThan(EVENT_EXCERPT_MAX);

    // One event read on its own keeps what was stored.
    expect((await state.events.get(big.id))!.payload).toEqual(bigPayload());
  });
});
