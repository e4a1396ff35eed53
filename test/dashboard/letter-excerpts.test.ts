/**
 * Issue 42 item 9: dashboard lists never load whole records. Letters of about 1 MiB each (the most
 * a letter keeps whole) are listed through the real dashboard server on both state backends.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, expect, it } from 'vitest';
import { registerDashboard } from '../../src/dashboard/index.js';
import { SyncEvents } from '../../src/pipeline/events.js';
import { LIST_EXCERPT_MAX } from '../../src/state/letterExcerpt.js';
import { LETTER_RECORD_MAX, truncatedBytes } from '../../src/state/rows.js';
import type { StateStore } from '../../src/state/index.js';
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
});
