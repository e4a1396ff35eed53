import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fakeClockEnv, LIBFAKETIME } from '../support/cluster.js';
import { describe, expect, it } from 'vitest';
import { createErp, ensureBuilt, runCli, tempDir, writeConfig } from './support.js';
import { useSandbox } from '../support/sandbox.js';

// Two tokens: one with every scope, one that may read products but not write them.
const sandbox = useSandbox({ tokens: [{ value: 'full-token' }, { value: 'read-only-token', scopes: ['products:read'] }] }, { before: ensureBuilt, timeoutMs: 300_000 });

/** A port nothing listens on (bound once, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('shopsync doctor (spawned against the sandbox)', { timeout: 180_000 }, () => {
  it('passes every check of a working installation and exits 0', async () => {
    const dir = tempDir();
    createErp(join(dir, 'erp.sqlite'), 3);
    const config = writeConfig(dir);
    const res = await runCli(['doctor', '--config', config], { env: { SHOP_URL: sandbox.url, SHOP_TOKEN: 'full-token' } });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toMatch(/ok {3}state: .* schema version \d+/);
    expect(res.stdout).toMatch(/ok {3}pipeline products: read products \(products:read\): allowed/);
    expect(res.stdout).toMatch(/ok {3}pipeline products: source erp \(sqlite\): reachable/);
    // The shop's Date header has whole seconds and was stamped within the round trip: nothing inside that is called skew
    // (within 1 s on an idle machine; a slow answer widens it, never into "ahead").
    expect(res.stdout).toMatch(/ok {3}clock: this machine's clock is within \d+ s of the shop's/);
    expect(res.stdout).toMatch(/all \d+ checks passed/);
  });

  it.skipIf(!LIBFAKETIME)("says how far this machine's clock is behind the shop's, and fails beyond a minute", async () => {
    const dir = tempDir();
    createErp(join(dir, 'erp.sqlite'), 3);
    const config = writeConfig(dir);
    const clock = join(dir, 'faketime');
    writeFileSync(clock, '-3600s');
    const res = await runCli(['doctor', '--config', config], { env: { SHOP_URL: sandbox.url, SHOP_TOKEN: 'full-token', ...fakeClockEnv(clock) } });
    expect(res.code).toBe(1);
    // The shop's Date header has whole seconds and the answer takes its time on a loaded machine: a few seconds either way.
    expect(res.stdout).toMatch(/FAIL clock: this machine's clock is (1 h 0 min [0-5] s|59 min 5[5-9] s) behind the shop's; sync the clock \(NTP\)/);
  });

  it('names the pipeline and the missing scope when the token may not write, and exits 1', async () => {
    const dir = tempDir();
    createErp(join(dir, 'erp.sqlite'), 3);
    const config = writeConfig(dir);
    const res = await runCli(['doctor', '--json', '--config', config], { env: { SHOP_URL: sandbox.url, SHOP_TOKEN: 'read-only-token' } });
    expect(res.code).toBe(1);
    const report = JSON.parse(res.stdout) as { ok: boolean; checks: { name: string; ok: boolean; pipeline?: string; missingScope?: string; detail: string }[] };
    expect(report.ok).toBe(false);
    const failed = report.checks.filter((c) => !c.ok);
    expect(failed).toEqual([expect.objectContaining({ pipeline: 'products', missingScope: 'products:write', detail: expect.stringMatching(/lacks the scope products:write/) })]);
  });

  it('reports an unreachable ERP database and a wrong shop URL', async () => {
    const dir = tempDir();
    const config = writeConfig(dir); // no erp.sqlite created
    const port = await closedPort();
    const res = await runCli(['doctor', '--config', config], { env: { SHOP_URL: `http://127.0.0.1:${port}/api`, SHOP_TOKEN: 'full-token' } });
    expect(res.code).toBe(1);
    // The cause, as `sync` says it, not fetch's bare "TypeError: fetch failed".
    expect(res.stdout).toContain(`FAIL shop: http://127.0.0.1:${port}/api: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}; check shop.baseUrl`);
    expect(res.stdout).not.toContain('TypeError');
    expect(res.stdout).toMatch(/FAIL pipeline products: source erp \(sqlite\): .*erp\.sqlite/);
  });
});
