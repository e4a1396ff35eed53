/**
 * Field conflicts and sent values (issue 46) on both backends: a conflict written in a state write
 * reads back as it was put (an unknown sent value stays unknown), a conflict put again replaces its
 * row, the open ones are found per record and counted per pipeline, and sent values read back by
 * record and field. A run's held guard fields are counted with its other counts.
 */
import { expect, it } from 'vitest';
import { emptyCounts, type FieldConflict, type SentValue } from '../../src/state/index.js';
import { forEachBackend } from './backends.js';

const conflict = (erpKey: string, field: string, extra: Partial<FieldConflict> = {}): FieldConflict => ({
  pipeline: 'products',
  shop: 'main',
  resource: 'products',
  erpKey,
  shopId: 17,
  field,
  erpValue: 'ERP text',
  sentValue: 'old text',
  shopValue: 'Shop text "quoted" ü',
  status: 'open',
  firstSeenAt: '2026-12-01T10:00:00.000Z',
  lastSeenAt: '2026-12-01T10:00:00.000Z',
  runId: 4,
  ...extra,
});

forEachBackend('field conflicts', (backend) => {
  it('reads back every field of a put conflict, an unknown sent value as absent and JSON values in their own types', async () => {
    const state = await backend.open();
    const full = conflict('A-1', 'languages.de.products_description');
    const { sentValue: _unknown, ...unknownSent } = conflict('A-2', 'products_price', { erpValue: '12.50', shopValue: 11.9, shopId: 'x-9' });
    await state.write((tx) => {
      tx.conflicts.put(full);
      tx.conflicts.put(unknownSent);
    });
    const open = await state.conflicts.ofRecords('products', ['A-1', 'A-2', 'missing']);
    expect(open.get('A-1')).toStrictEqual([full]);
    expect(open.get('A-2')).toStrictEqual([unknownSent]);
    expect(open.has('missing')).toBe(false);
    expect(await state.conflicts.ofRecords('other', ['A-1'])).toEqual(new Map());
    expect(await state.conflicts.ofRecords('products', [])).toEqual(new Map());
  });

  it('replaces a conflict put again (same pipeline, record and field), so a resolved one leaves the open ones and keeps its resolution', async () => {
    const state = await backend.open();
    await state.write((tx) => {
      tx.conflicts.put(conflict('A-1', 'languages.de.products_description'));
      tx.conflicts.put(conflict('A-1', 'products_price', { erpValue: '10.00', sentValue: '9.00', shopValue: 8 }));
    });
    const resolved = conflict('A-1', 'products_price', { erpValue: '10.00', sentValue: '9.00', shopValue: 8, status: 'resolved', resolution: 'shop', resolvedAt: '2026-12-02T08:00:00.000Z', lastSeenAt: '2026-12-02T08:00:00.000Z' });
    await state.write((tx) => tx.conflicts.put(resolved));
    expect((await state.conflicts.ofRecords('products', ['A-1'])).get('A-1')?.map((c) => c.field)).toEqual(['languages.de.products_description']);
    expect(await state.conflicts.list({ pipeline: 'products', status: 'resolved' })).toStrictEqual([resolved]);
    expect(await state.conflicts.list({ pipeline: 'products' })).toHaveLength(2);
  });

  it('lists open conflicts before resolved ones, the latest seen first, filtered by pipeline, shop, record and status, and counts the open ones per pipeline', async () => {
    const state = await backend.open();
    await state.write((tx) => {
      tx.conflicts.put(conflict('A-1', 'f', { lastSeenAt: '2026-12-01T10:00:00.000Z' }));
      tx.conflicts.put(conflict('A-2', 'f', { lastSeenAt: '2026-12-03T10:00:00.000Z' }));
      tx.conflicts.put(conflict('A-3', 'f', { lastSeenAt: '2026-12-05T10:00:00.000Z', status: 'resolved', resolution: 'erp', resolvedAt: '2026-12-05T10:00:00.000Z' }));
      tx.conflicts.put(conflict('A-1', 'f', { pipeline: 'outlet-products', shop: 'outlet' }));
      tx.conflicts.put(conflict('A-9', 'f', { pipeline: 'outlet-products', shop: 'outlet', status: 'resolved', resolution: 'agreed' }));
    });
    expect((await state.conflicts.list({ pipeline: 'products' })).map((c) => c.erpKey)).toEqual(['A-2', 'A-1', 'A-3']);
    expect((await state.conflicts.list({ shop: 'outlet' })).map((c) => `${c.pipeline}:${c.erpKey}`)).toEqual(['outlet-products:A-1', 'outlet-products:A-9']);
    expect((await state.conflicts.list({ erpKey: 'A-1' })).map((c) => c.pipeline).sort()).toEqual(['outlet-products', 'products']);
    expect((await state.conflicts.list({ status: 'open', limit: 2 })).map((c) => c.erpKey)).toEqual(['A-2', 'A-1']);
    expect((await state.conflicts.list({ status: 'open', limit: 2, offset: 2 })).map((c) => c.erpKey)).toEqual(['A-1']);
    expect(await state.conflicts.openCounts()).toEqual(new Map([['products', 2], ['outlet-products', 1]]));
  });

  it('keeps the last value sent per pipeline, record and field, with the ERP value it stands for when another, a later put replacing both', async () => {
    const state = await backend.open();
    await state.write((tx) => {
      tx.sentValues.put('products', 'A-1', 'languages.de.products_description', 'first');
      tx.sentValues.put('products', 'A-1', 'products_price', '12.50', { value: '13.00' });
      tx.sentValues.put('products', 'A-2', 'products_price', null, { value: null });
      tx.sentValues.put('stock', 'A-1', 'products_price', '1.00');
    });
    await state.write((tx) => tx.sentValues.put('products', 'A-1', 'languages.de.products_description', 'second "quoted" ü'));
    const got = await state.sentValues.get('products', ['A-1', 'A-2', 'A-3']);
    expect(got).toStrictEqual(
      new Map<string, Map<string, SentValue>>([
        ['A-1', new Map([['languages.de.products_description', { value: 'second "quoted" ü' }], ['products_price', { value: '12.50', erp: '13.00' }]])],
        ['A-2', new Map([['products_price', { value: null, erp: null }]])],
      ]),
    );
    await state.write((tx) => tx.sentValues.put('products', 'A-1', 'products_price', '13.00'));
    expect((await state.sentValues.get('products', ['A-1'])).get('A-1')?.get('products_price')).toStrictEqual({ value: '13.00' });
    expect(await state.sentValues.get('products', [])).toEqual(new Map());
  });

  it('stores the guard fields a run held with its counts, and leaves them out of the counts of a run that held none', async () => {
    const state = await backend.open();
    const held = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    const none = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    await state.runs.finish(held, 'succeeded', { ...emptyCounts(), read: 3, updated: 3, conflicts: 2 });
    await state.runs.finish(none, 'succeeded', { ...emptyCounts(), read: 3, updated: 3 });
    expect((await state.runs.get(held))?.counts).toEqual({ ...emptyCounts(), read: 3, updated: 3, conflicts: 2 });
    expect((await state.runs.get(none))?.counts).toStrictEqual({ ...emptyCounts(), read: 3, updated: 3 });
  });
});
