/**
 * Change latency (issue 33): a delivered record is observed once, from its cursor timestamp to the
 * shop's answer, in /metrics and in its run's row; unchanged records and first syncs are not; the
 * dashboard's p50/p95 of the last hour come from the state, so a dashboard on another connection
 * to the same state (another replica's) shows them too.
 */
import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerDashboard } from '../../src/dashboard/index.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { runPipeline, SyncEvents, type SyncEventOf } from '../../src/pipeline/index.js';
import { changeTimeOf, LatencyHistogram, naiveOffsetOf, recentLatency } from '../../src/pipeline/latency.js';
import { silentLogger } from '../../src/log.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import type { ShopClient } from '../../src/shop/index.js';
import type { StateLocation, StateStore } from '../../src/state/index.js';
import { forEachBackend, type Backend } from '../state/backends.js';
import { listeningUrl } from '../support/wait.js';
import { clientFor, createErp, mappingFile, PRODUCT_MAPPING, sqliteSource, tempDir, upsertProducts } from './support.js';
import { removeDir } from '../support/tmp.js';

/** `2026-11-27 01:02:03`: a naive timestamp in UTC, as SQLite's datetime('now') writes it. */
function naiveUtc(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

describe('change latency histogram', () => {
  it('reads zoned timestamps as instants and naive ones in the zone the ERP said', () => {
    expect(changeTimeOf('2026-11-27T10:00:00Z')).toBe(Date.UTC(2026, 10, 27, 10));
    expect(changeTimeOf('2026-11-27T11:00:00+01:00')).toBe(Date.UTC(2026, 10, 27, 10));
    expect(changeTimeOf('2026-11-27 10:00:00')).toBe(Date.UTC(2026, 10, 27, 10));
    // A Berlin ERP writes 11:00 for 10:00 UTC in winter.
    expect(changeTimeOf('2026-11-27 11:00:00', 3_600_000)).toBe(Date.UTC(2026, 10, 27, 10));
    expect(changeTimeOf(42)).toBeUndefined();
    expect(changeTimeOf('2026-11-27')).toBeUndefined();
    expect(naiveOffsetOf({ by: 'transactions', checkedAt: '', bound: { zoned: '2026-11-27T10:00:00.123Z', naive: '2026-11-27T11:00:00.123' } })).toBe(3_600_000);
    expect(naiveOffsetOf({ by: 'single-writer', checkedAt: '' })).toBeUndefined();
  });

  it('counts a negative latency (ERP clock ahead) as 0 and as skew', () => {
    const h = new LatencyHistogram();
    expect(h.observe(-2)).toBe(0);
    expect(h.skew).toBe(1);
    expect(h.counts[0]).toBe(1);
  });

  it('estimates quantiles within their bucket and never above the largest value', () => {
    const h = new LatencyHistogram();
    for (let i = 0; i < 90; i++) h.observe(0.8); // bucket (0.5, 1]
    for (let i = 0; i < 10; i++) h.observe(7); // bucket (5, 10]
    const p50 = h.quantile(0.5)!;
    expect(p50).toBeGreaterThan(0.5);
    expect(p50).toBeLessThanOrEqual(1);
    const p95 = h.quantile(0.95)!;
    expect(p95).toBeGreaterThan(5);
    expect(p95).toBeLessThanOrEqual(7);
    const sum = new LatencyHistogram().add(h.toJSON()).add(h);
    expect(sum.count).toBe(200);
    expect(sum.quantile(0.5)).toBeCloseTo(p50, 6);
  });

  it('reads no histogram from text that is not one', () => {
    expect(LatencyHistogram.parse('{"le":[1],"c":[1],"sum":1,"max":1}')).toBeUndefined();
    expect(LatencyHistogram.parse('not json')).toBeUndefined();
    expect(LatencyHistogram.parse(null)).toBeUndefined();
  });
});

forEachBackend('change latency of delivered records', (backend: Backend) => {
  let dir: string;
  let sandbox: SandboxHandle;
  let shop: ShopClient;
  let location: StateLocation;
  let state: StateStore;
  beforeEach(async () => {
    dir = tempDir('shopsync-latency-');
    sandbox = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
    shop = clientFor(sandbox);
    location = backend.location();
    state = await backend.open(location);
  });
  afterEach(async () => {
    await shop.close();
    await sandbox.close();
    removeDir(dir);
  });

  it('observes each created or updated record once with at least its known delay, and neither unchanged records nor a first sync', async () => {
    const erpFile = `${dir}/erp.sqlite`;
    const erp = createErp(erpFile);
    const mapping = await mappingFile(dir, 'p', PRODUCT_MAPPING);
    const events = new SyncEvents();
    const metrics = createMetrics({ processMetrics: false, pipelines: ['latency'] });
    const delivered: SyncEventOf<'changes-delivered'>[] = [];
    events.on('changes-delivered', (e) => {
      delivered.push(e);
      metrics.changesDelivered(e.pipeline, e.seconds, e.skewed);
    });
    const def = { name: 'latency', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'p.yaml', resource: 'products' };
    const deps = { state, shop, mapping, source: sqliteSource(erpFile), events, logger: silentLogger };
    try {
      const longAgo = Date.now() - 600_000;
      upsertProducts(erp, 1, 4, 1, naiveUtc(longAgo));
      const first = await runPipeline(def, deps);
      expect(first.counts.created).toBe(4);
      // The first sync delivers the catalog as it was: its age is no latency of the sync.
      expect(delivered).toEqual([]);

      // Products 1 and 2 changed 30 s ago; 3 is stamped as changed but its content is the same; 5 is new.
      const delaySeconds = 30;
      const changedAt = naiveUtc(Date.now() - delaySeconds * 1000);
      upsertProducts(erp, 1, 2, 2, changedAt);
      upsertProducts(erp, 3, 3, 1, changedAt);
      upsertProducts(erp, 5, 5, 1, changedAt);
      const before = Date.now();
      const second = await runPipeline(def, deps);
      const after = Date.now();
      expect(second.counts).toMatchObject({ created: 1, updated: 2, unchanged: 1 });
      const seconds = delivered.flatMap((e) => e.seconds);
      expect(seconds).toHaveLength(3);
      // The timestamp has whole seconds: the true delay is at least 30 s (less the cut fraction) plus the run's own time.
      for (const s of seconds) {
        expect(s).toBeGreaterThanOrEqual(delaySeconds - 1);
        expect(s).toBeLessThanOrEqual(delaySeconds + 1 + (after - before) / 1000);
      }
      const text = await metrics.render();
      expect(text).toContain('shopsync_change_latency_seconds_count{shop="default",pipeline="latency"} 3');
      expect(text).toContain('shopsync_change_latency_seconds_bucket{le="10",shop="default",pipeline="latency"} 0');
      expect(text).toContain('shopsync_change_latency_seconds_bucket{le="60",shop="default",pipeline="latency"} 3');
      expect(text).not.toMatch(/shopsync_change_latency_skew_total\{[^}]*\} [1-9]/);

      // Nothing changed: nothing delivered, nothing observed (the lookback reads 1, 2, 3 and 5 again and settles them quietly).
      const third = await runPipeline(def, deps);
      expect(third.counts.requests).toBe(0);
      expect(delivered.flatMap((e) => e.seconds)).toHaveLength(3);

      const rows = await state.runs.latencySince(0);
      expect(rows.map((r) => r.runId)).toEqual([second.runId]);
      expect(LatencyHistogram.parse(rows[0]!.latencyJson)?.c.reduce((a, b) => a + b, 0)).toBe(3);
    } finally {
      erp.close();
    }
  });

  it('shows p50/p95 of the last hour on a dashboard reading the same state over its own connection', async () => {
    const erpFile = `${dir}/erp.sqlite`;
    const erp = createErp(erpFile);
    const mapping = await mappingFile(dir, 'p', PRODUCT_MAPPING);
    const def = { name: 'latency-card', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'p.yaml', resource: 'products' };
    const deps = { state, shop, mapping, source: sqliteSource(erpFile), logger: silentLogger };
    const other = await backend.open(location);
    const app = Fastify();
    try {
      upsertProducts(erp, 1, 2, 1, naiveUtc(Date.now() - 600_000));
      await runPipeline(def, deps);
      upsertProducts(erp, 1, 2, 2, naiveUtc(Date.now() - 120_000));
      expect((await runPipeline(def, deps)).counts.updated).toBe(2);

      const latency = (await recentLatency(other)).get('latency-card');
      expect(latency?.changes).toBe(2);
      // Both lie in the bucket (60 s, 120 s]… or just above it on a slow machine: the estimate is exact to the bucket.
      expect(latency!.p50Seconds).toBeGreaterThan(60);
      expect(latency!.p95Seconds).toBeGreaterThanOrEqual(latency!.p50Seconds);
      // An hour later these runs are out of the window.
      expect((await recentLatency(other, Date.now() + 3_700_000)).get('latency-card')).toBeUndefined();

      await registerDashboard(app, {
        state: other,
        events: new SyncEvents(),
        pipelines: [{ name: 'latency-card', resource: 'products', direction: 'push', nextRun: () => undefined }],
        runNow: async () => undefined,
        retryDeadLetters: async () => undefined,
        dropDeadLetters: async () => undefined,
      });
      await app.listen({ host: '127.0.0.1', port: 0 });
      const url = listeningUrl(app.server);
      const api = (await (await fetch(`${url}/api/overview`)).json()) as { pipelines: { name: string; changeLatency: { changes: number; p50Seconds: number; p95Seconds: number } | null }[] };
      expect(api.pipelines[0]?.changeLatency).toMatchObject({ changes: 2, p50Seconds: latency!.p50Seconds, p95Seconds: latency!.p95Seconds });
      const page = await (await fetch(`${url}/`)).text();
      expect(page).toContain('Change latency');
      expect(page).toContain(`data-latency-p95="${latency!.p95Seconds.toFixed(3)}"`);
    } finally {
      await app.close();
      erp.close();
    }
  });
});
