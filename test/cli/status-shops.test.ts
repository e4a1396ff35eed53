/**
 * `shopsync status` (the compiled CLI) shows a paused shop (since when, why, how to resume) and a
 * shop whose runs keep failing, in text and `--json`; a paused shop's pipelines count as failing
 * for `status --failing` until `shopsync shops resume` lifts the pause.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openState } from '../../src/state/index.js';
import { ensureBuilt, runCli, tempDir, writeConfig } from './support.js';

// No request reaches a shop: status reads the state only.
const env = { SHOP_URL: 'http://127.0.0.1:9', SHOP_TOKEN: 'test-token' };
const PAUSED_AT = '2026-03-02T10:00:00.000Z';
const REASON = '30 runs in a row failed since 2026-03-01T10:00:00.000Z; last: [SHOP_UNAVAILABLE] HTTP 503';

interface StatusJson {
  pipelines: { name: string; failing: boolean; reasons: { code: string; text: string }[] }[];
  shops: { name: string; paused: { since: string; reason: string | null; resume: string } | null; streak: { failedRuns: number; since: string | null; lastError: string | null } | null }[];
}

describe('shopsync status with a paused shop and a failing one', () => {
  let dir: string;
  let config: string;

  beforeAll(async () => {
    await ensureBuilt();
    dir = tempDir('shopsync-cli-status-shops-');
    config = writeConfig(dir, { extraShop: 'shops:\n  de: { baseUrl: "${SHOP_URL}", token: "${SHOP_TOKEN}" }\n', schedule: '0 3 * * *' });
    const second = '  - name: products-de\n    shop: de\n    direction: push\n    resource: products\n    mapping: products.yaml\n    schedule: "0 3 * * *"\n    source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku }\n';
    writeFileSync(config, readFileSync(config, 'utf8').replace('\nstate:\n', `\n${second}state:\n`));
    const state = await openState(join(dir, 'state/shopsync.db'));
    try {
      await state.streaks.failed('de', Date.parse('2026-03-01T10:00:00Z'), '[SHOP_UNAVAILABLE] HTTP 503');
      await state.streaks.pause('de', Date.parse(PAUSED_AT), REASON);
      await state.streaks.failed('default', Date.parse('2026-03-02T11:00:00Z'), '[NETWORK_ERROR] refused');
      await state.streaks.failed('default', Date.parse('2026-03-02T11:05:00Z'), '[NETWORK_ERROR] refused');
    } finally {
      await state.close();
    }
  }, 300_000);

  it('says which shop is paused since when and why, how to resume it, and which keeps failing', async () => {
    const text = await runCli(['status', '--config', config], { env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`PAUSED SHOP de since ${PAUSED_AT}: ${REASON}; its scheduled runs are skipped; \`shopsync shops resume de\` resumes it`);
    expect(text.stdout).toContain('FAILING SHOP default: 2 run(s) in a row failed since 2026-03-02T11:00:00.000Z; last: [NETWORK_ERROR] refused; paused after 30 spanning 24 h (failingShops)');
    expect(text.stdout).toMatch(/^products-de\s+de\s.*paused \(shop\)/m);
    expect(text.stdout).toMatch(/FAILING: 1 of 2 pipeline\(s\)\n {2}products-de \(shop de\): shop de paused since 2026-03-02T10:00:00.000Z/);

    const json = await runCli(['status', '--json', '--config', config], { env });
    const parsed = JSON.parse(json.stdout) as StatusJson;
    expect(parsed.shops).toEqual([
      { name: 'default', paused: null, streak: { failedRuns: 2, since: '2026-03-02T11:00:00.000Z', lastError: '[NETWORK_ERROR] refused' } },
      { name: 'de', paused: { since: PAUSED_AT, reason: REASON, resume: 'shopsync shops resume de' }, streak: { failedRuns: 1, since: '2026-03-01T10:00:00.000Z', lastError: '[SHOP_UNAVAILABLE] HTTP 503' } },
    ]);
    expect(parsed.pipelines.map((p) => [p.name, p.reasons.map((r) => r.code)])).toEqual([['products', []], ['products-de', ['shop-paused']]]);
  });

  it('counts the paused shop\'s pipelines as failing for --failing (exit 1), and no more once resumed (exit 0)', async () => {
    const failing = await runCli(['status', '--failing', '--json', '--config', config], { env });
    expect(failing.code, failing.stderr).toBe(1);
    expect((JSON.parse(failing.stdout) as StatusJson).pipelines.map((p) => p.name)).toEqual(['products-de']);

    const resumed = await runCli(['shops', 'resume', 'de', '--config', config], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = await runCli(['status', '--failing', '--config', config], { env });
    expect(after.code, after.stdout).toBe(0);
    expect(after.stdout).not.toContain('PAUSED SHOP');
    expect(after.stdout).toContain('no failing pipelines (of 2)');
  });
});
