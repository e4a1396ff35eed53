/**
 * Issue 44, must-do 3: /metrics shows, per pull pipeline with `follow:`, the orders still followed
 * and how many days ago the oldest of them was placed, read from a real SQLite state through the
 * real ops server when scraped.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
