/**
 * Issue 43, must-do 5: /metrics counts reserved units per stock push and, per shop, the orders the
 * ERP has not booked and the age of the oldest, read from a real SQLite ledger through the real
 * ops server.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { readiness } from '../../src/ops/readiness.js';
import { unbookedFigures } from '../../src/ops/reservationMetrics.js';
import { startOpsServer, type OpsServer } from '../../src/ops/server.js';
import type { ReservationLine } from '../../src/reservations/types.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { removeDir, tempDir } from '../support/tmp.js';

let state: StateStore;
let dir: string;
let server: OpsServer | undefined;

beforeEach(async () => {
  dir = tempDir('shopsync-reservation-metrics-');
  state = await openState(`${dir}/state.sqlite`);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await state.close();
  removeDir(dir);
});

const line = (shop: string, ordersId: number, pos: number, quantity: number, seenAt: string): ReservationLine => ({ shop, ordersId, pos, article: 'ART-1', quantity, placedAt: seenAt.slice(0, 19), seenAt });

async function scrape(): Promise<string> {
  const shopOf = { stock: 'default', 'stock-at': 'at', products: 'default' };
  server = await startOpsServer({
    port: 0,
    metrics: createMetrics({ processMetrics: false, pipelines: Object.keys(shopOf), shopOf, reservedPipelines: ['stock', 'stock-at'], unbooked: () => unbookedFigures(state, ['default', 'at']) }),
    readiness: () => readiness({}),
    logger: silentLogger,
  });
  return (await fetch(`${server.url}/metrics`)).text();
}

describe('reservation metrics', () => {
  it('count reserved units per stock push, unbooked orders per shop and the oldest one\'s age', async () => {
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000).toISOString();
    await state.reservations.record([line('default', 4711, 1, 2, twoHoursAgo), line('default', 4711, 2, 1, new Date().toISOString()), line('default', 4712, 1, 4, new Date().toISOString())]);
    await state.reservations.record([line('default', 4713, 1, 9, twoHoursAgo)]);
    await state.reservations.markBooked('default', [4713], new Date().toISOString());

    const text = await scrape();
    expect(text).toContain('shopsync_reserved_units{shop="default",pipeline="stock"} 7');
    expect(text).toContain('shopsync_reserved_units{shop="at",pipeline="stock-at"} 0');
    expect(text).not.toMatch(/shopsync_reserved_units\{[^}]*pipeline="products"/);
    expect(text).toContain('shopsync_unbooked_orders{shop="default"} 2');
    expect(text).toContain('shopsync_unbooked_orders{shop="at"} 0');
    const oldest = Number(/shopsync_unbooked_oldest_seconds\{shop="default"\} (\d+)/.exec(text)?.[1]);
    expect(oldest).toBeGreaterThanOrEqual(7200);
    expect(oldest).toBeLessThan(7200 + 600);
    expect(text).toContain('shopsync_unbooked_oldest_seconds{shop="at"} 0');
  });

  it('drop an order from the counts once the ERP booked it', async () => {
    await state.reservations.record([line('default', 4711, 1, 3, new Date().toISOString())]);
    await state.reservations.markBooked('default', [4711], new Date().toISOString());
    const text = await scrape();
    expect(text).toContain('shopsync_reserved_units{shop="default",pipeline="stock"} 0');
    expect(text).toContain('shopsync_unbooked_orders{shop="default"} 0');
  });
});
