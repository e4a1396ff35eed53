/**
 * Retention keeps the state bounded: old events, stored payloads and runs go in small batches
 * while pipelines keep writing, dead letters stay, and the file gives the space back to the disk.
 */
import { statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/index.js';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { DEFAULT_RETENTION } from '../../src/state/index.js';
import { mappingFile, PRODUCT_MAPPING, pushFixture, shopRecords, sku, sqliteSource, upsertProducts, type PushFixture } from '../pipeline/support.js';

const def = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products', batchSize: 50, options: { storePayloads: true } };
const DAY = 86_400_000;
const later = (days: number) => Date.now() + days * DAY;

let f: PushFixture;
let mapping: CompiledMapping;
beforeEach(async () => {
  f = await pushFixture();
  mapping = await mappingFile(f.dir, 'products', PRODUCT_MAPPING);
});
afterEach(async () => {
  await f.close();
});

const run = () => runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile) });
const fileBytes = () => statSync(f.state.path).size + (statSync(`${f.state.path}-wal`, { throwIfNoEntry: false })?.size ?? 0);

describe('state retention', () => {
  it('prunes in batches while a pipeline pushes; both finish correctly and the file shrinks on disk', async () => {
    upsertProducts(f.erp, 1, 1500);
    expect((await run()).counts).toMatchObject({ created: 1500 });
    const afterFirstPush = fileBytes();
    upsertProducts(f.erp, 1, 1500, 2, '2026-01-02 00:00:00');
    // Every event so far is "old" for a prune that looks from 40 days ahead; a second push runs meanwhile.
    const pushing = run();
    const pruning = (async () => {
      const reports = [];
      for (let i = 0; i < 5; i++) reports.push(await f.state.retention.prune({ ...DEFAULT_RETENTION, batchSize: 100 }, { now: later(40) }));
      return reports;
    })();
    const [summary, reports] = await Promise.all([pushing, pruning]);
    expect(summary.status).toBe('succeeded');
    expect(summary.counts).toMatchObject({ read: 1500, updated: 1500, deadLettered: 0 });
    expect(reports.reduce((n, r) => n + r.events, 0)).toBeGreaterThanOrEqual(1500);
    const shop = await shopRecords(f.shop, 'products');
    expect(shop.filter((p) => String(p.products_model).startsWith('SKU-'))).toHaveLength(1500);

    await f.state.retention.prune(DEFAULT_RETENTION, { now: later(40) });
    expect(f.state.events.list({ limit: 10 })).toEqual([]);
    // Two pushes' worth of events and payloads were written; the file is now smaller than after the first alone.
    expect(fileBytes()).toBeLessThan(afterFirstPush);
  });

  it('clears stored payloads after payloadsDays but keeps the events, and keeps dead letters and each pipeline\'s latest run', async () => {
    upsertProducts(f.erp, 1, 20);
    f.erp.prepare("UPDATE products SET qty = 'viele' WHERE sku = ?").run(sku(5));
    expect((await run()).counts).toMatchObject({ created: 19, deadLettered: 1 });
    const dry = await f.state.retention.prune(DEFAULT_RETENTION, { now: later(10), dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, events: 0, runs: 0 });
    expect(dry.payloads).toBeGreaterThan(0);
    const report = await f.state.retention.prune(DEFAULT_RETENTION, { now: later(10) });
    expect(report.payloads).toBe(dry.payloads);
    expect(f.state.events.list({ limit: 100 }).every((e) => e.payload === undefined)).toBe(true);
    expect(f.state.events.list({ limit: 100 })).toHaveLength(20);
    // A year on: events go, the run with an open dead letter and the latest run stay, and so does the letter.
    const year = await f.state.retention.prune(DEFAULT_RETENTION, { now: later(365) });
    expect(year.events).toBe(20);
    expect(f.state.deadLetters.count('products')).toBe(1);
    expect(f.state.runs.list({ limit: 10 })).toHaveLength(1);
  });
});
