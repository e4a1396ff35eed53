/**
 * Retention keeps the state bounded: old events, stored payloads and runs go in small batches
 * while writes go on, dead letters stay, and (SQLite) the file gives the space back to the disk.
 */
import { statSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_RETENTION, emptyCounts, type StateLocation, type StateStore } from '../../src/state/index.js';
import { BACKENDS, forEachBackend } from './backends.js';

const DAY = 86_400_000;
const later = (days: number) => Date.now() + days * DAY;
const payload = (i: number) => ({ products_model: `SKU-${i}`, products_description: 'x'.repeat(400) });

/** `n` events of one run, written in batches of 100 as a push would settle them. */
async function events(state: StateStore, runId: number, n: number, atMs?: number, from = 0): Promise<void> {
  for (let i = from; i < from + n; i += 100) {
    await state.write((tx) => {
      for (let j = i; j < Math.min(i + 100, from + n); j++) tx.events.add({ runId, pipeline: 'products', resource: 'products', erpKey: `SKU-${j}`, outcome: 'created', payload: payload(j), ...(atMs ? { atMs } : {}) });
    });
  }
}

forEachBackend('state retention', (backend) => {
  let state: StateStore;
  beforeEach(async () => {
    state = await backend.open();
  });

  it('prunes old events in batches while writes go on; the new events all stay', async () => {
    const run = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    await events(state, run, 1500, Date.now() - 40 * DAY);
    const writing = events(state, run, 1000, undefined, 5000);
    const pruning = state.retention.prune({ ...DEFAULT_RETENTION, batchSize: 100 });
    const [, report] = await Promise.all([writing, pruning]);
    expect(report.events).toBe(1500);
    const left = await state.events.list({ runId: run, limit: 5000 });
    expect(left).toHaveLength(1000);
    expect(left.every((e) => Number(e.erpKey?.slice(4)) >= 5000)).toBe(true);
    expect(report.historySince).toBe(left[0]!.at);
  });

  it('clears stored payloads after payloadsDays but keeps the events, and keeps dead letters and each pipeline\'s latest run', async () => {
    const old = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    await events(state, old, 10);
    await state.runs.finish(old, 'succeeded', { ...emptyCounts(), created: 10 });
    const withLetter = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    await events(state, withLetter, 10, undefined, 10);
    await state.write((tx) => tx.deadLetters.add({ pipeline: 'products', erpKey: 'SKU-5', record: { sku: 'SKU-5' }, code: 'INVALID_PAYLOAD', reason: 'bad qty', runId: withLetter }));
    await state.runs.finish(withLetter, 'partial', { ...emptyCounts(), created: 9, deadLettered: 1 });
    const latest = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    await state.runs.finish(latest, 'succeeded', emptyCounts());

    const dry = await state.retention.prune(DEFAULT_RETENTION, { now: later(10), dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, events: 0, payloads: 20, runs: 0, reclaimedBytes: 0 });
    const report = await state.retention.prune(DEFAULT_RETENTION, { now: later(10) });
    expect(report.payloads).toBe(dry.payloads);
    const kept = await state.events.list({ limit: 100 });
    expect(kept).toHaveLength(20);
    expect(kept.every((e) => e.payload === undefined)).toBe(true);

    const yearDry = await state.retention.prune(DEFAULT_RETENTION, { now: later(365), dryRun: true });
    const year = await state.retention.prune(DEFAULT_RETENTION, { now: later(365) });
    expect(year).toMatchObject({ events: 20, runs: 1, payloads: 0 });
    expect(yearDry).toMatchObject({ events: 20, runs: 1 });
    expect(year.historySince).toBeUndefined();
    expect(await state.deadLetters.count('products')).toBe(1);
    expect((await state.runs.list({ limit: 10 })).map((r) => r.id)).toEqual([latest, withLetter]);
  });

  it('reports the bytes the state takes', async () => {
    const run = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    const empty = await state.retention.sizeBytes();
    expect(empty).toBeGreaterThan(0);
    await events(state, run, 500);
    expect(await state.retention.sizeBytes()).toBeGreaterThan(empty);
  });
});

describe('state retention (sqlite)', () => {
  it('gives the space of pruned events back to the disk', async () => {
    const location = BACKENDS.sqlite.location() as StateLocation & { kind: 'sqlite' };
    const state = await BACKENDS.sqlite.open(location);
    const fileBytes = () => statSync(location.path).size + (statSync(`${location.path}-wal`, { throwIfNoEntry: false })?.size ?? 0);
    const run = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    await events(state, run, 3000);
    const full = fileBytes();
    const report = await state.retention.prune(DEFAULT_RETENTION, { now: later(40) });
    expect(report.events).toBe(3000);
    expect(report.reclaimedBytes).toBeGreaterThan(0);
    expect(fileBytes()).toBeLessThan(full);
  });
});
