/**
 * Issue 44, must-do 3: /metrics shows, per pull pipeline with `follow:`, the orders still followed
 * and how many days ago the oldest of them was placed, read from a real SQLite state through the
 * real ops server when scraped.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { openRuntime } from '../../src/ops/runtime.js';
import { silentLogger } from '../../src/log.js';
import { followFigures } from '../../src/ops/followFigures.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { readiness } from '../../src/ops/readiness.js';
import { startOpsServer, type OpsServer } from '../../src/ops/server.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { removeDir, tempDir } from '../support/tmp.js';
import { daysAgo, followedRow, seedFollowed } from './support/followed.js';

let state: StateStore;
let dir: string;
let server: OpsServer | undefined;

beforeEach(async () => {
  dir = tempDir('shopsync-ops-follow-metrics-');
  state = await openState(`${dir}/state.sqlite`);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await state.close();
  removeDir(dir);
});

const shopOf = { 'orders-to-erp': 'default', 'orders-at': 'at', products: 'default' };
const following = ['orders-to-erp', 'orders-at'];

async function scrape(): Promise<string> {
  server = await startOpsServer({
    port: 0,
    metrics: createMetrics({ processMetrics: false, pipelines: Object.keys(shopOf), shopOf, followedPipelines: following, followed: () => followFigures(state, following) }),
    readiness: () => readiness({}),
    logger: silentLogger,
  });
  return (await fetch(`${server.url}/metrics`)).text();
}

describe('follow metrics', () => {
  it('count the open followed orders per pipeline and the oldest open one\'s age in days; done orders are not counted', async () => {
    await seedFollowed(state, [
      followedRow('orders-to-erp', '4711', daysAgo(6)),
      followedRow('orders-to-erp', '4712', daysAgo(2)),
      followedRow('orders-to-erp', '4713', daysAgo(1)),
      // Older, but done (cancelled): neither open nor the oldest.
      followedRow('orders-to-erp', '4700', daysAgo(9), { status: 4, cancelled: true, doneAt: new Date().toISOString(), doneReason: 'final' }),
    ]);
    const text = await scrape();
    expect(text).toContain('shopsync_followed_open{shop="default",pipeline="orders-to-erp"} 3');
    expect(text).toContain('shopsync_followed_oldest_days{shop="default",pipeline="orders-to-erp"} 6');
  });

  it('show 0 and 0 for a following pipeline with nothing followed yet, and no series for a pipeline without follow:', async () => {
    const text = await scrape();
    expect(text).toContain('shopsync_followed_open{shop="at",pipeline="orders-at"} 0');
    expect(text).toContain('shopsync_followed_oldest_days{shop="at",pipeline="orders-at"} 0');
    expect(text).not.toMatch(/shopsync_followed_open\{[^}]*pipeline="products"/);
  });

  it('follow the state between scrapes: an order that reached a final status leaves the count', async () => {
    const row = followedRow('orders-to-erp', '4711', daysAgo(3));
    await seedFollowed(state, [row]);
    expect(await scrape()).toContain('shopsync_followed_open{shop="default",pipeline="orders-to-erp"} 1');
    await seedFollowed(state, [{ ...row, status: 3, doneAt: new Date().toISOString(), doneReason: 'final' }]);
    const text = await (await fetch(`${server!.url}/metrics`)).text();
    expect(text).toContain('shopsync_followed_open{shop="default",pipeline="orders-to-erp"} 0');
    expect(text).toContain('shopsync_followed_oldest_days{shop="default",pipeline="orders-to-erp"} 0');
  });
});

describe('the runtime\'s metrics', () => {
  it('carry the follow gauges for the pipelines of the config with follow:, read from its state', async () => {
    writeFileSync(join(dir, 'orders.yaml'), 'name: orders-in\ndirection: shop-to-erp\nsource: { resource: orders }\ntarget: { erp: erp_orders }\nkey: orders_id\nfields:\n  orders_id: { from: orders_id, type: integer }\n');
    const pull = (name: string, follow: string) => `  - name: ${name}\n    direction: pull\n    resource: orders\n    mapping: orders.yaml\n    sink: { connection: erp, table: erp_orders, key: orders_id }\n${follow}`;
    writeFileSync(
      join(dir, 'shopsync.yaml'),
      `shop: { baseUrl: "http://127.0.0.1:9", token: t }\nconnections:\n  erp: { kind: sqlite, path: erp.sqlite }\npipelines:\n${pull('orders-to-erp', '    follow: { until: [4], cancelled: [4] }\n')}${pull('orders-plain', '')}state:\n  path: state.sqlite\n`,
    );
    await seedFollowed(state, [followedRow('orders-to-erp', '4711', daysAgo(3)), followedRow('orders-to-erp', '4712', daysAgo(1))]);
    const runtime = await openRuntime(await loadConfig(join(dir, 'shopsync.yaml'), { env: {} }), { logger: silentLogger });
    try {
      const text = await runtime.metrics.render();
      expect(text).toContain('shopsync_followed_open{shop="default",pipeline="orders-to-erp"} 2');
      expect(text).toContain('shopsync_followed_oldest_days{shop="default",pipeline="orders-to-erp"} 3');
      expect(text).not.toMatch(/shopsync_followed_open\{[^}]*pipeline="orders-plain"/);
    } finally {
      await runtime.close();
    }
  });
});
