/**
 * A dead letter keeps a bounded record (issue 42 item 9): a record of megabytes keeps its start
 * and its size, not megabytes of state, and a retry refuses it instead of mapping the start of a
 * record into a wrong one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { retryDeadLetters } from '../../src/pipeline/index.js';
import { waitingLetters } from '../../src/pipeline/waitingLetters.js';
import { LETTER_RECORD_MAX } from '../../src/state/rows.js';
import { mappingFile, pushFixture, PRODUCT_MAPPING, shopRecords, type PushFixture } from './support.js';

const def = { name: 'artikel', direction: 'push' as const, source: { connection: 'inbox' }, mapping: 'products.yaml', resource: 'products' };

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
});
afterEach(async () => {
  await f.close();
});

describe('a dead letter of a huge record', () => {
  it('keeps the start and the size of the record, and a retry refuses it and sends nothing', async () => {
    const huge = { sku: 'H-1', name: 'x'.repeat(3 * 1024 * 1024), price: '1.00', qty: 1 };
    const runId = await f.state.runs.start({ pipeline: def.name, mode: 'sync', lane: def.name });
    await f.state.write((tx) => tx.deadLetters.add({ pipeline: def.name, resource: 'products', erpKey: 'H-1', runId, code: 'SHOP_VALIDATION', reason: 'the shop refused the name', record: huge }));

    const [letter] = await f.state.deadLetters.list({ pipeline: def.name });
    expect(JSON.stringify(letter?.record).length).toBeLessThan(16 * 1024);
    expect(letter?.record).toEqual({ $truncated: { bytes: JSON.stringify(huge).length, start: expect.stringMatching(/^\{"sku":"H-1","name":"xxx/) } });

    const retry = await retryDeadLetters(def, { state: f.state, shop: f.shop, mapping: await mappingFile(f.dir, 'products.yaml', PRODUCT_MAPPING) });
    expect(retry.status).toBe('partial');
    expect(retry.counts).toMatchObject({ created: 0, deadLettered: 1 });
    expect(await shopRecords(f.shop, 'products')).toEqual([]);
    const [after, ...more] = await f.state.deadLetters.list({ pipeline: def.name });
    expect(more).toEqual([]);
    expect(after).toMatchObject({ erpKey: 'H-1', code: 'SHOP_VALIDATION', reason: expect.stringContaining(`kept only the start of its record (${JSON.stringify(huge).length} bytes, more than the ${LETTER_RECORD_MAX} a letter keeps)`) });
  });

  it('is never tried by a sync on its own, even with a code syncs retry (a missing reference)', async () => {
    const runId = await f.state.runs.start({ pipeline: def.name, mode: 'sync', lane: def.name });
    await f.state.write((tx) => {
      tx.deadLetters.add({ pipeline: def.name, resource: 'products', erpKey: 'H-2', runId, code: 'REFERENCE_MISSING', reason: 'no category yet', record: { sku: 'H-2', name: 'z'.repeat(2 * 1024 * 1024) } });
      tx.deadLetters.add({ pipeline: def.name, resource: 'products', erpKey: 'S-1', runId, code: 'REFERENCE_MISSING', reason: 'no category yet', record: { sku: 'S-1' } });
    });
    const due = await waitingLetters(f.state, def.name, Date.now() + 365 * 24 * 3600_000);
    expect(due.letters.map((l) => l.erpKey)).toEqual(['S-1']);
  });

  it('keeps a record below the bound whole', async () => {
    const record = { sku: 'N-1', name: 'y'.repeat(200_000) };
    const runId = await f.state.runs.start({ pipeline: def.name, mode: 'sync', lane: def.name });
    await f.state.write((tx) => tx.deadLetters.add({ pipeline: def.name, resource: 'products', erpKey: 'N-1', runId, code: 'SHOP_VALIDATION', reason: 'no', record }));
    expect((await f.state.deadLetters.list({ pipeline: def.name }))[0]?.record).toEqual(record);
  });
});
