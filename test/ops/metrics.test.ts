/** Metrics of the rate limit shared by replicas, fed by the shop client's events. */
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/ops/metrics.js';

describe('shared rate limit metrics', () => {
  it('counts waits for the shared budget, their time, and pauses learnt from other replicas, per shop', async () => {
    const metrics = createMetrics({ processMetrics: false });
    metrics.clientEvent({ type: 'shared-wait', waitedMs: 250 }, 'eu');
    metrics.clientEvent({ type: 'shared-wait', waitedMs: 750 }, 'eu');
    metrics.clientEvent({ type: 'shared-pause', retryAfterMs: 1000 }, 'eu');
    const text = await metrics.render();
    expect(text).toContain('shopsync_shop_rate_waits_total{shop="eu"} 2');
    expect(text).toContain('shopsync_shop_rate_wait_seconds_total{shop="eu"} 1');
    expect(text).toContain('shopsync_shop_shared_pauses_total{shop="eu"} 1');
  });
});
