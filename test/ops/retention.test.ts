/**
 * The daemon's retention clock (src/ops/retention.ts): it prunes the state on the config's
 * schedule without being asked, with the config's policy, and stop() waits for a prune in progress.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { startRetention, type RetentionClock } from '../../src/ops/retention.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { tempDir } from '../support/tmp.js';

const DAY = 86_400_000;

function config(retention: string) {
  const dir = tempDir('shopsync-retention-clock-');
  const text = `shop: { baseUrl: "http://127.0.0.1:9", token: t }
connections: { erp: { kind: sqlite, path: erp.sqlite } }
pipelines:
  - { name: products, direction: push, resource: products, mapping: p.yaml, source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku } }
state: { path: state.db, retention: ${retention} }
`;
  return { dir, config: parseConfigText(text, join(dir, 'shopsync.yaml')).config };
}

async function withEvents(state: StateStore, ageDays: number[]): Promise<void> {
  const run = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
  await state.write((tx) => {
    ageDays.forEach((age, i) => tx.events.add({ runId: run, pipeline: 'products', resource: 'products', erpKey: `SKU-${i}`, outcome: 'created', payload: { i }, atMs: Date.now() - age * DAY }));
  });
}

let state: StateStore | undefined;
let clock: RetentionClock | undefined;
afterEach(async () => {
  await clock?.stop();
  await state?.close();
  clock = undefined;
  state = undefined;
});

describe('the daemon retention clock', () => {
  it('prunes on its schedule with the configured policy, without being asked', async () => {
    const { dir, config: cfg } = config('{ eventsDays: 10, everyMinutes: 60 }');
    state = await openState(join(dir, 'state.db'));
    await withEvents(state, [40, 20, 11, 5, 0]);
    clock = startRetention(state, cfg, silentLogger, 50);
    const end = Date.now() + 10_000;
    while ((await state.events.list({ limit: 10 })).length > 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect((await state.events.list({ limit: 10 })).map((e) => e.erpKey).sort()).toEqual(['SKU-3', 'SKU-4']);
  });

  it('never prunes on its own when everyMinutes is 0', async () => {
    const { dir, config: cfg } = config('{ eventsDays: 10, everyMinutes: 0 }');
    state = await openState(join(dir, 'state.db'));
    await withEvents(state, [40, 0]);
    clock = startRetention(state, cfg, silentLogger, 50);
    await new Promise((r) => setTimeout(r, 300));
    expect(await state.events.list({ limit: 10 })).toHaveLength(2);
    expect((await clock.pruneNow()).events).toBe(1);
  });
});
