/**
 * Retention beside a running push (issue 16): pruning in small batches while a pipeline pushes
 * leaves both correct, and the SQLite state file is smaller on disk afterwards. The state-level
 * rules (payloads, runs, dead letters, both backends) are in test/state/retention.test.ts.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { DEFAULT_RETENTION, type PruneReport } from '../../src/state/index.js';
import { mappingFile, PRODUCT_MAPPING, pushFixture, shopRecords, sqliteSource, upsertProducts, type PushFixture } from './support.js';

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
const fileBytes = () => {
  const path = join(f.dir, 'state.db');
  return statSync(path).size + (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0);
};

describe('retention while a pipeline pushes', () => {
  it('prunes in batches while a pipeline pushes; both finish correctly and the file shrinks on disk', async () => {
    upsertProducts(f.erp, 1, 1500);
    expect((await run()).counts).toMatchObject({ created: 1500 });
    const afterFirstPush = fileBytes();
    upsertProducts(f.erp, 1, 1500, 2, '2026-01-02 00:00:00');
    // Every event so far is "old" for a prune that looks 40 days ahead; the second push writes meanwhile.
    const pushing = run();
    const pruning = (async () => {
      const reports: PruneReport[] = [];
      for (let i = 0; i < 5; i++) reports.push(await f.state.retention.prune({ ...DEFAULT_RETENTION, batchSize: 100 }, { now: later(40) }));
      return reports;
    })();
    const [summary, reports] = await Promise.all([pushing, pruning]);
    expect(summary.status).toBe('succeeded');
    expect(summary.counts).toMatchObject({ read: 1500, updated: 1500, deadLettered: 0 });
    expect(reports.reduce((n, r) => n + r.events, 0)).toBeGreaterThanOrEqual(1500);
    const shop = await shopRecords(f.shop, 'products');
    expect(shop.filter((p) => String(p.products_model).startsWith('SKU-'))).toHaveLength(1500);
    expect(shop.every((p) => (p.languages as Record<string, { products_name: string }>).de.products_name.endsWith(' v2'))).toBe(true);

    await f.state.retention.prune(DEFAULT_RETENTION, { now: later(40) });
    expect(await f.state.events.list({ limit: 10 })).toEqual([]);
    // Two pushes' worth of events and payloads were written; the file is now smaller than after the first alone.
    expect(fileBytes()).toBeLessThan(afterFirstPush);
  });
});
