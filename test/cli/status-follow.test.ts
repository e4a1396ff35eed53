/**
 * Issue 44, must-do 3: `shopsync status` shows, per pull pipeline with `follow:`, the orders it still
 * follows, the oldest open one with its placement day and age, the done ones and the last change
 * delivered (`--json`: `follow`, null for a pipeline without `follow:`); read from the state the
 * follow pass wrote (seeded here), spawned as a person runs it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openState } from '../../src/state/index.js';
import { daysAgo, followedRow, seedFollowed, statusChange } from '../ops/support/followed.js';
import { ensureBuilt, runCli, tempDir, writeConfig } from './support.js';

// No request reaches a shop: status reads the state only.
const env = { SHOP_URL: 'http://127.0.0.1:9', SHOP_TOKEN: 'test-token' };

const ORDERS_MAPPING = `name: orders-in
direction: shop-to-erp
source: { resource: orders }
target: { erp: erp_orders }
key: orders_id
fields:
  orders_id: { from: orders_id, type: integer }
  orders_status: { from: orders_status, type: integer }
`;

interface StatusJson {
  readonly pipelines: { name: string; follow: null | { open: number; done: number; oldest?: { key: string; placedDay: string }; oldestAgeDays?: number; lastChangeAt?: string } }[];
}

/** The products push of test/cli/support.ts, and two orders pulls: one with follow:, one without. */
function followConfig(dir: string): string {
  const config = writeConfig(dir);
  writeFileSync(join(dir, 'orders-in.yaml'), ORDERS_MAPPING);
  const pull = (name: string, follow: string) => `  - name: ${name}\n    direction: pull\n    resource: orders\n    mapping: orders-in.yaml\n    sink: { connection: erp, table: erp_orders, key: orders_id }\n${follow}`;
  const pulls = pull('orders-in', '    follow: { until: [4, 5], cancelled: [4], returned: [5], maxAgeDays: 14 }\n') + pull('orders-plain', '');
  writeFileSync(config, readFileSync(config, 'utf8').replace('\nstate:\n', `\n${pulls}state:\n`));
  return config;
}

describe('shopsync status of a pull with follow:', () => {
  let dir: string;
  let config: string;
  const changedAt = new Date(Date.now() - 7_200_000).toISOString();

  beforeAll(async () => {
    await ensureBuilt();
    dir = tempDir('shopsync-cli-status-follow-');
    config = followConfig(dir);
    const state = await openState(join(dir, 'state/shopsync.db'));
    try {
      await seedFollowed(state, [
        followedRow('orders-in', '4711', daysAgo(4)),
        followedRow('orders-in', '4712', daysAgo(2), { status: 2, changes: [statusChange(1, 2, changedAt)], changedAt }),
        followedRow('orders-in', '4690', daysAgo(10), { status: 4, cancelled: true, doneAt: changedAt, doneReason: 'final' }),
      ]);
    } finally {
      await state.close();
    }
  }, 300_000);

  it('--json gives the follow summary of the following pipeline, and null for the others', async () => {
    const r = await runCli(['status', '--json', '--config', config], { env });
    expect(r.code, r.stderr).toBe(0);
    const byName = new Map((JSON.parse(r.stdout) as StatusJson).pipelines.map((p) => [p.name, p.follow]));
    expect(byName.get('orders-in')).toEqual({ open: 2, done: 1, oldest: { key: '4711', placedDay: daysAgo(4) }, oldestAgeDays: 4, lastChangeAt: changedAt });
    expect(byName.get('orders-plain')).toBeNull();
    expect(byName.get('products')).toBeNull();
  });

  it('the table is followed by a FOLLOWED line per following pipeline: open, oldest with its day and age, done, last change', async () => {
    const r = await runCli(['status', '--config', config], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('FOLLOWED (orders after checkout):');
    expect(r.stdout).toMatch(new RegExp(`^ {2}orders-in: following 2 order\\(s\\), oldest #4711 placed ${daysAgo(4)} \\(4 day\\(s\\)\\), 1 done, last change ${changedAt.slice(0, 10)} `, 'm'));
    expect(r.stdout).not.toMatch(/^ {2}orders-plain:/m);
  });
});
