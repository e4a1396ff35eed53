/**
 * A shop failing for days is paused with one alert, never retried silently forever: its failed
 * runs count in the state's streak (a run failing for a reason of the ERP does not), `shop-failing`
 * opens once at `warnAfterRuns`, the shop pauses at `pauseAfterRuns` (here with no wait in hours)
 * and `shop-paused` opens once however many runs follow; resuming lifts the pause and resolves it.
 * The streaks are in the state, so both backends keep the same contract.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startAlerts, type AlertWatcher } from '../../src/alerts/index.js';
import type { AlertMessage } from '../../src/alerts/incidents.js';
import { alertShopsOf } from '../../src/alerts/index.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { openRuntime, type Runtime } from '../../src/ops/runtime.js';
import { pausedShopOf } from '../../src/ops/shopStreaks.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { createErp, PRODUCT_MAPPING, setFaults, tempDir, upsertProducts } from '../pipeline/support.js';
import { useSandbox } from '../support/sandbox.js';
import { freshSchema, POSTGRES_URL, postgresAvailable } from '../jobs/support.js';

const down = useSandbox();
const fine = useSandbox();

describe('a shop whose runs keep failing', () => {
  let runtime: Runtime;
  let alerts: AlertWatcher;
  const sent: AlertMessage[] = [];
  beforeAll(async () => {
    const dir = tempDir('shopsync-pause-');
    const erp = createErp(join(dir, 'erp.sqlite'));
    upsertProducts(erp, 1, 3);
    erp.close();
    writeFileSync(join(dir, 'products.yaml'), PRODUCT_MAPPING);
    const source = { connection: 'erp', query: 'SELECT * FROM products', cursor: 'updated_at', key: 'sku' };
    const shop = (v: string) => ({ baseUrl: `\${${v}_URL}`, token: `\${${v}_TOKEN}`, retry: { retries: 0 }, circuitBreaker: { failures: 1, probeAfterMs: 3_600_000 } });
    const config = {
      shops: { at: shop('AT'), de: shop('DE') },
      connections: { erp: { kind: 'sqlite', path: 'erp.sqlite' } },
      pipelines: ['at', 'de'].map((s) => ({ name: `products-${s}`, shop: s, direction: 'push', resource: 'products', mapping: 'products.yaml', source, options: { maxAttempts: 1 } })),
      state: { kind: 'sqlite', path: 'state.db' },
      failingShops: { warnAfterRuns: 2, pauseAfterRuns: 3, pauseAfterHours: 0 },
      alerts: { webhook: { url: 'http://127.0.0.1:9/unused' } },
    };
    writeFileSync(join(dir, 'shopsync.yaml'), stringify(config));
    const loaded = await loadConfig(join(dir, 'shopsync.yaml'), { env: { AT_URL: down.url, AT_TOKEN: down.token, DE_URL: fine.url, DE_TOKEN: fine.token } });
    runtime = await openRuntime(loaded, { logger: silentLogger });
    alerts = startAlerts(loaded.config.alerts, {
      events: runtime.events,
      state: runtime.state,
      scheduled: [],
      secrets: loaded.secrets,
      shops: alertShopsOf(loaded),
      warnAfterRuns: loaded.config.failingShops.warnAfterRuns,
      streaksSettled: () => runtime.streaks.settle(),
      channels: [{ name: 'test', send: async (m) => void sent.push(m) }],
      logger: silentLogger,
    })!;
    await setFaults(down, { error_rate: 1, error_status: 503 });
  });
  afterAll(async () => {
    await alerts?.stop();
    await runtime?.close();
  });

  /** Run a pipeline and wait until its streak and the alerts were handled. */
  const run = async (pipeline: string) => {
    const summary = await runtime.run(pipeline);
    await runtime.streaks.settle();
    await alerts.checkShops();
    return summary;
  };
  const shopAlerts = () => sent.filter((m) => m.kind === 'shop-failing' || m.kind === 'shop-paused').map((m) => `${m.state} ${m.incident}`);

  it('is warned about after 2 failed runs and paused after 3, with one message each; the other shop is untouched', async () => {
    expect(await run('products-at')).toMatchObject({ status: 'failed', error: { code: 'SHOP_UNAVAILABLE' } });
    expect(await run('products-de')).toMatchObject({ status: 'succeeded' });
    expect(await run('products-at')).toMatchObject({ status: 'failed', error: { code: 'SHOP_CIRCUIT_OPEN' } });
    expect(shopAlerts()).toEqual(['firing shop-failing:at']);
    expect(await pausedShopOf(runtime.state, 'at')).toBeUndefined();

    await run('products-at');
    const paused = await pausedShopOf(runtime.state, 'at');
    expect(paused).toMatchObject({ failures: 3, pausedReason: expect.stringContaining('3 runs in a row failed') });
    expect(paused?.pausedReason).toContain('SHOP_CIRCUIT_OPEN');
    // A person's run of a paused shop still goes (and fails); no further message, however many follow.
    await run('products-at');
    await alerts.checkShops();
    expect(shopAlerts()).toEqual(['firing shop-failing:at', 'firing shop-paused:at']);
    const pausedAlert = sent.find((m) => m.kind === 'shop-paused');
    expect(pausedAlert).toMatchObject({ shop: 'at', text: expect.stringContaining('shopsync shops resume at') });
    expect(await pausedShopOf(runtime.state, 'de')).toBeUndefined();
    expect(await runtime.state.streaks.get('de')).toBeUndefined();
  });

  it('does not count a run that failed because of the ERP', async () => {
    const before = (await runtime.state.streaks.get('at'))?.failures;
    runtime.events.emit({ type: 'run-finished', summary: { runId: 99, pipeline: 'products-at', mode: 'sync', status: 'failed', counts: (await runtime.state.runs.list({ limit: 1 }))[0]!.counts, durationMs: 1, error: { code: 'SOURCE_UNREACHABLE', message: 'the ERP is down' } } });
    await runtime.streaks.settle();
    expect((await runtime.state.streaks.get('at'))?.failures).toBe(before);
  });

  it('is resumed by `shops resume` (the state), which resolves both alerts; a run that works would end the streak too', async () => {
    expect(await runtime.state.streaks.resume('at')).toBe(true);
    expect(await runtime.state.streaks.resume('at')).toBe(false);
    await alerts.checkShops();
    expect(shopAlerts().slice(0, 2)).toEqual(['firing shop-failing:at', 'firing shop-paused:at']);
    expect(shopAlerts().slice(2).sort()).toEqual(['resolved shop-failing:at', 'resolved shop-paused:at']);
    expect(await pausedShopOf(runtime.state, 'at')).toBeUndefined();
  });
});

const backends: [string, () => Promise<StateStore>][] = [
  ['SQLite', async () => openState(join(tempDir('shopsync-streaks-'), 'state.db'))],
  ...(postgresAvailable ? [['PostgreSQL', async () => openState({ kind: 'postgres', url: POSTGRES_URL, schema: freshSchema('shopsync_streak') })] as [string, () => Promise<StateStore>]] : []),
];

describe.each(backends)('shop streaks in a %s state', (_name, open) => {
  it('count failed runs from the first one\'s time, pause once, and start again on resume or a run that worked', async () => {
    const state = await open();
    try {
      expect(await state.streaks.failed('at', 1000, '[SHOP_UNAVAILABLE] 503')).toMatchObject({ shop: 'at', failures: 1, failingSince: 1000, pausedAt: null });
      expect(await state.streaks.failed('at', 2000, '[NETWORK_ERROR] refused')).toMatchObject({ failures: 2, failingSince: 1000, lastError: '[NETWORK_ERROR] refused' });
      expect(await state.streaks.pause('at', 3000, 'why')).toBe(true);
      expect(await state.streaks.pause('at', 4000, 'again')).toBe(false);
      // Every view of the state sees the same streaks, whatever its shop.
      expect(await state.forShop('de').streaks.get('at')).toMatchObject({ pausedAt: 3000, pausedReason: 'why' });
      expect(await state.streaks.resume('at')).toBe(true);
      expect(await state.streaks.get('at')).toBeUndefined();
      await state.streaks.failed('at', 5000, 'x');
      await state.streaks.pause('at', 6000, 'y');
      expect(await state.streaks.worked('at')).toEqual({ wasPaused: true });
      expect(await state.streaks.worked('at')).toEqual({ wasPaused: false });
      expect(await state.streaks.list()).toEqual([]);
    } finally {
      await state.close();
    }
  });
});
