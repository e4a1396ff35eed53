/**
 * `shopsync config print` and `config check` on the agency layout (examples/agency): one shop's
 * effective config with its token masked, and a broken shop file named with its file and line
 * (exit 1) while the other shops still load; `doctor` fails that shop's check alone.
 */
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ensureBuilt, ROOT, runCli, tempDir } from './support.js';
import { removeDir } from '../support/tmp.js';

const TOKENS = { SHOP_DE_TOKEN: 'de-secret-token-1', SHOP_AT_TOKEN: 'at-secret-token-2', SHOP_CH_TOKEN: 'ch-secret-token-3' };
// Nothing listens on port 9 here: the shops are never reached by config commands, and doctor finds them unreachable at once.
const env = { ...TOKENS, SHOP_DE_URL: 'http://127.0.0.1:9/de', SHOP_AT_URL: 'http://user:url-password@127.0.0.1:9/at', SHOP_CH_URL: 'http://127.0.0.1:9/ch' };
let dir: string;
let config: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = tempDir('shopsync-cli-config-');
  cpSync(join(ROOT, 'examples/agency'), dir, { recursive: true });
  config = join(dir, 'shopsync.yaml');
}, 300_000);
afterAll(() => removeDir(dir));

describe('shopsync config print', () => {
  it("prints one shop's effective config: its settings, its expanded pipelines with defaults, secrets masked", async () => {
    const r = await runCli(['config', 'print', '--shop', 'at', '-c', config], { env, cwd: dir });
    expect(r.code).toBe(0);
    const view = parse(r.stdout) as { name: string; status: string; file: string; settings: Record<string, unknown>; pipelines: Record<string, unknown>[]; connections: Record<string, unknown> };
    expect(view).toMatchObject({ name: 'at', status: 'ok', file: join(dir, 'shops.d/at.yaml') });
    expect(view.settings).toMatchObject({ token: '[redacted]', baseUrl: 'http://user:[redacted]@127.0.0.1:9/at', rateLimit: { mode: 'fixed', requests: 20 }, scheduleOffsetSeconds: 20 });
    expect(view.pipelines.map((p) => [p.name, p.template, p.schedule, p.batchSize])).toEqual([
      ['products-at', 'products', '20 */5 * * * *', 50],
      ['stock-at', 'stock', '20 */15 * * * *', 100],
    ]);
    expect(view.pipelines[0]).toMatchObject({ vars: { priceColumn: 'vk_at', language: 'de', name: 'at' }, options: { pageSize: 500 } });
    expect(Object.keys(view.connections)).toEqual(['erp']);
    for (const secret of [...Object.values(TOKENS), 'url-password']) expect(r.stdout + r.stderr).not.toContain(secret);
  });

  it('prints the whole config as JSON, every token masked', async () => {
    const r = await runCli(['config', 'print', '--json', '-c', config], { env, cwd: dir });
    expect(r.code).toBe(0);
    const view = JSON.parse(r.stdout) as { shops: Record<string, { token: string }>; pipelines: { name: string }[] };
    expect(Object.values(view.shops).map((s) => s.token)).toEqual(['[redacted]', '[redacted]', '[redacted]']);
    expect(view.pipelines).toHaveLength(5);
    for (const secret of Object.values(TOKENS)) expect(r.stdout).not.toContain(secret);
  });

  it('names the known shops for a shop that is not there (exit 2)', async () => {
    const r = await runCli(['config', 'print', '--shop', 'fr', '-c', config], { env, cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no shop named "fr".*known: at, ch, de/);
  });
});

describe('a broken shop file', () => {
  let broken: string;
  beforeAll(() => {
    broken = tempDir('shopsync-cli-config-broken-');
    cpSync(join(ROOT, 'examples/agency'), broken, { recursive: true });
    writeFileSync(join(broken, 'shops.d/ch.yaml'), 'baseUrl: ${SHOP_CH_URL}\ntoken: ${SHOP_CH_TOKEN}\nvars:\n  priceColumn: vk_ch\n  nameColumn: name_en\n  language: en\nscheduleOffsetSeconds: 40\nbatchSize: 5000\n');
  });
  afterAll(() => removeDir(broken));

  it('makes config check exit 1 naming the file and line, with the other shops loaded', async () => {
    const r = await runCli(['config', 'check', '-c', join(broken, 'shopsync.yaml')], { env, cwd: broken });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`BROKEN shop ch (${join(broken, 'shops.d/ch.yaml')}:8): its pipelines do not run (products-ch)`);
    expect(r.stdout).toContain(`${join(broken, 'shops.d/ch.yaml')}:8: batchSize`);
    expect(r.stdout).toMatch(/FAIL: .*: 2 shop\(s\) loaded, 1 broken; 4 pipeline\(s\) \(4 from templates\)/);
    for (const secret of Object.values(TOKENS)) expect(r.stdout + r.stderr).not.toContain(secret);
  });

  it('shows the shop as broken in config print --shop (exit 1)', async () => {
    const r = await runCli(['config', 'print', '--shop', 'ch', '-c', join(broken, 'shopsync.yaml')], { env, cwd: broken });
    expect(r.code).toBe(1);
    expect(parse(r.stdout)).toMatchObject({ name: 'ch', status: 'broken', broken: { line: 8 }, pipelines: [] });
  });

  it("fails doctor's check of that shop with its file and line", async () => {
    const r = await runCli(['doctor', '--json', '-c', join(broken, 'shopsync.yaml')], { env: { ...env, ERP_DB: join(broken, 'erp.db'), STATE_DB: join(broken, 'state.db') }, cwd: broken, timeoutMs: 120_000 });
    expect(r.code).toBe(1);
    const { checks } = JSON.parse(r.stdout) as { checks: { name: string; ok: boolean; detail: string; pipeline?: string }[] };
    expect(checks.find((c) => c.name === 'shop ch')).toMatchObject({ ok: false, detail: expect.stringContaining(`${join(broken, 'shops.d/ch.yaml')}:8: batchSize`) });
    // The broken shop's pipeline is not checked; the others' are.
    expect(checks.map((c) => c.pipeline).filter((p) => p !== undefined)).not.toContain('products-ch');
    expect(checks.map((c) => c.pipeline)).toContain('products-de');
  }, 130_000);

  it('passes config check when every shop file is right', async () => {
    const r = await runCli(['config', 'check', '-c', config], { env, cwd: dir });
    expect(r.stdout).toMatch(/^ok: .*: 3 shop\(s\) loaded; 5 pipeline\(s\) \(5 from templates\)$/m);
    expect(r.code).toBe(0);
  });
});
