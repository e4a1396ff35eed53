/**
 * What the ERP database said about its open transactions, as the cursor, `status`, the dashboard
 * and `/metrics` use it: the cap on checkpoints, the stored lane and the line a person reads.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pipelineStatus } from '../../src/cli/commands/status.js';
import type { PipelineConfig } from '../../src/config/index.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { LowWaterMark } from '../../src/pipeline/index.js';
import { capOf, WATERMARK_LANE, watermarkRow, watermarkText, watermarkView } from '../../src/pipeline/sourceWatermark.js';
import { openState, type StateStore } from '../../src/state/index.js';

const held = { by: 'transactions' as const, checkedAt: '2026-11-26T12:07:11.000Z', openSince: '2026-11-26T12:03:11.000Z', bound: { zoned: '2026-11-26T12:03:11.000Z', naive: '2026-11-26T13:03:11' } };

let state: StateStore;
beforeEach(async () => {
  state = await openState(':memory:');
});
afterEach(async () => {
  await state.close();
});

describe('the watermark of a source', () => {
  it('keeps checkpoints before the oldest open transaction, in the form the cursor values are written in, ties read again', () => {
    const cap = capOf(held)!;
    expect(cap({ value: '2026-11-26T12:05:00.123456Z', key: 'L-2' })).toEqual({ value: '2026-11-26T12:03:11.000000Z', key: null });
    expect(cap({ value: '2026-11-26T12:03:11Z', key: 'L-1' })).toEqual({ value: '2026-11-26T12:03:11Z', key: null });
    expect(cap({ value: '2026-11-26T12:03:10.999Z', key: 'L-0' })).toEqual({ value: '2026-11-26T12:03:10.999Z', key: 'L-0' });
    // A column without zone is compared with the database's local time (here UTC+1).
    expect(cap({ value: '2026-11-26T13:04:00', key: 'L-2' })).toEqual({ value: '2026-11-26T13:03:11', key: null });
    expect(cap({ value: '2026-11-26T12:04:00', key: 'L-0' })).toEqual({ value: '2026-11-26T12:04:00', key: 'L-0' });
    // Numbers (sequences) are never capped: the watermark is a time.
    expect(cap({ value: 4711, key: 'A' })).toEqual({ value: 4711, key: 'A' });
    expect(cap({ value: '4711', key: 'A' })).toEqual({ value: '4711', key: 'A' });
  });

  it('writes the cap like the column writes its values: the separator, the fraction digits at most as many as the column has, the zone suffix', () => {
    const cap = capOf(held)!;
    // A TEXT column of `YYYY-MM-DD HH:MM:SS.fff`: compared as text, an ISO `T` cap would sort after the whole day.
    expect(cap({ value: '2026-11-26 13:04:00.624', key: 'L-2' })).toEqual({ value: '2026-11-26 13:03:11.000', key: null });
    expect(cap({ value: '2026-11-26 13:04', key: 'L-2' })).toEqual({ value: '2026-11-26 13:03', key: null });
    // PostgreSQL's text of a timestamptz, and an offset of its own: the same instant, written in the row's offset.
    expect(cap({ value: '2026-11-26 12:05:00.5+00', key: 'L-2' })).toEqual({ value: '2026-11-26 12:03:11.0+00', key: null });
    expect(cap({ value: '2026-11-26T14:05:00+0200', key: 'L-2' })).toEqual({ value: '2026-11-26T14:03:11+0200', key: null });
    // A DATETIME(3) column gets no digits it does not have: `.063` would compare below a `.063871` bound.
    const fine = capOf({ ...held, bound: { zoned: '2026-11-26T12:03:11.063871Z', naive: '2026-11-26T13:03:11.063871' } })!;
    expect(fine({ value: '2026-11-26T13:04:00.100', key: 'L-2' })).toEqual({ value: '2026-11-26T13:03:11.063', key: null });
    // A date alone: the bound's day (that whole day is read again).
    expect(cap({ value: '2026-11-27', key: 'L-2' })).toEqual({ value: '2026-11-26', key: null });
    expect(cap({ value: '2026-11-26', key: 'L-2' })).toEqual({ value: '2026-11-26', key: null });
  });

  it('holds the cursor at its last value, never writing a cap in a foreign form, when the column\'s form cannot be learnt and a transaction is open', () => {
    const stored = { value: '26.11.2026 12:00', key: 'A' };
    const cap = capOf(held, stored)!;
    expect(cap({ value: '26.11.2026 12:05', key: 'L-2' })).toBe(stored);
    // A first run has nothing to hold: no cursor is written, the next run reads from the start.
    expect(capOf(held)!({ value: '26.11.2026 12:05', key: 'L-2' })).toBeUndefined();
    // No transaction open: the row's own value is the cursor.
    const { openSince: _, ...quiet } = held;
    expect(capOf(quiet, stored)!({ value: '26.11.2026 12:05', key: 'L-2' })).toEqual({ value: '26.11.2026 12:05', key: 'L-2' });
    // Text that is no time (a zero-padded id) is not held, as numbers are not: the watermark is a time.
    expect(cap({ value: 'A-000123', key: 'A-000123' })).toEqual({ value: 'A-000123', key: 'A-000123' });
  });

  it('lets the low-water mark move only up to the cap, and says no move while it stays there', () => {
    const wm = new LowWaterMark({ value: '2026-11-26T12:00:00.000Z', key: 'A' }, capOf(held));
    const a = wm.track({ value: '2026-11-26T12:01:00.000Z', key: 'B' });
    const b = wm.track({ value: '2026-11-26T12:06:00.000Z', key: 'C' });
    wm.settle(a);
    expect(wm.position).toEqual({ value: '2026-11-26T12:01:00.000Z', key: 'B' });
    wm.settle(b);
    expect(wm.position).toEqual({ value: '2026-11-26T12:03:11.000Z', key: null });
    expect(wm.peek([])).toBe(wm.position);
  });

  it('shows in status --json, in one line for a person, and on /metrics', async () => {
    await state.cursors.set('stock', 'incremental', { value: '2026-11-26T12:03:11.000Z', key: null });
    await state.cursors.set('stock', WATERMARK_LANE, watermarkRow(held));
    const status = await pipelineStatus(state, { name: 'stock', shop: 'default', direction: 'push', resource: 'products' } as unknown as PipelineConfig);
    expect(status.watermark).toMatchObject({ by: 'transactions', openSince: '2026-11-26T12:03:11.000Z', heldForSeconds: 240, bound: '2026-11-26T12:03:11.000Z' });
    expect(status.backfills).toEqual([]);
    expect(watermarkText(status.watermark!)).toBe('held back by a transaction open since 12:03:11 UTC, 4 min');
    expect(watermarkText(watermarkView(await state.cursors.get('stock', WATERMARK_LANE)))).toContain('4 min');
    expect(watermarkText(watermarkView({ pipeline: 'x', name: WATERMARK_LANE, value: null, key: null, updatedAt: held.checkedAt, boundary: { by: 'lookback', checkedAt: held.checkedAt, reason: 'GRANT PROCESS ON *.* TO <user>' } }))).toBe('lookback only: GRANT PROCESS ON *.* TO <user>');

    const metrics = createMetrics({ processMetrics: false, pipelines: ['stock'], cursors: async () => ({ stock: { cursorSeconds: Date.parse(held.openSince) / 1000, watermarkSeconds: Date.parse(held.openSince) / 1000, heldSeconds: 240 } }) });
    const text = await metrics.render();
    expect(text).toContain('shopsync_source_watermark_held_seconds{shop="default",pipeline="stock"} 240');
    expect(text).toMatch(/shopsync_cursor_timestamp_seconds\{shop="default",pipeline="stock"\} 1795\d+/);
    expect(text).toMatch(/shopsync_source_watermark_timestamp_seconds\{shop="default",pipeline="stock"\} 1795\d+/);
  });
});
