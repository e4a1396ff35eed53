/**
 * A mapping expression that never ends, against the built CLI (issue 29, item 3). It used to
 * freeze the process: still running after ten minutes, SIGTERM ignored twice, only SIGKILL
 * ended it — in the daemon every pipeline and the health checks with it. Now the record fails
 * with MAPPING_EXPR_BUDGET, the run goes on, and signals are handled while an expression runs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createErp, ensureBuilt, runCli, sku, startCli, tempDir, writeConfig, type CliProcess } from './support.js';
import { shopEnv, useSandbox } from '../support/sandbox.js';

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });

/** Tail-recursive, so JSONata runs it as a loop that neither grows a stack nor ends. */
const ENDLESS = '($f := function($x){ $f($x + 1) }; $f(1))';

/** The test products mapping, with the product name from an expression that never ends for the SKUs in `looping` (every SKU when omitted). */
function loopingMapping(prefix: string, looping?: readonly string[]): string {
  const when = looping ? `sku in [${looping.map((s) => `'${s}'`).join(', ')}] ? ${ENDLESS} : name` : ENDLESS;
  return `name: test-products
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: sku
shop_key: products_model
fields:
  products_model: { expr: ${JSON.stringify(`'${prefix}' & sku`)} }
  products_price: { from: price, type: decimal, locale: point }
  products_quantity: { from: qty, type: decimal, locale: point }
  products_status: { value: 1 }
  languages.de.products_name: { expr: ${JSON.stringify(when)} }
`;
}

/** A products push of `n` ERP rows with the mapping `mapping` (written over the usual one). */
function fixture(n: number, mapping: string, options: Parameters<typeof writeConfig>[1] = {}): string {
  const dir = tempDir();
  createErp(join(dir, 'erp.sqlite'), n);
  const config = writeConfig(dir, options);
  writeFileSync(join(dir, 'products.yaml'), mapping);
  return config;
}

/** Resolves with the exit, or rejects when the process is still running after `ms` (and kills it: a frozen one ignores everything else). */
function exitWithin(p: CliProcess, ms: number): Promise<Awaited<CliProcess['exited']>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      p.child.kill('SIGKILL');
      reject(new Error(`still running ${ms} ms after the signal (killed)\nstderr:\n${p.stderr().slice(-3000)}`));
    }, ms);
    void p.exited.then((r) => {
      clearTimeout(timer);
      resolve(r);
    });
  });
}

describe('an expression that never ends (shopsync sync / run)', { timeout: 120_000 }, () => {
  it('fails only the record it loops for, with MAPPING_EXPR_BUDGET, and the run ends partial with exit 1', async () => {
    const looping = sku(2);
    const config = fixture(3, loopingMapping('budget-', [looping]));
    const env = shopEnv(sandbox);

    // runCli kills the process after the timeout: on the old code this is where the test failed.
    const sync = await runCli(['sync', 'products', '--json', '--config', config], { env, timeoutMs: 30_000 });
    expect(sync.signal, sync.stderr.slice(-2000)).toBeNull();
    expect(sync.code, sync.stderr.slice(-2000)).toBe(1);
    expect(JSON.parse(sync.stdout)).toMatchObject({ status: 'partial', counts: { read: 3, created: 2, deadLettered: 1 } });

    const letters = await runCli(['dlq', 'list', '--json', '--config', config], { env });
    const list = JSON.parse(letters.stdout) as { erpKey: string; code: string; reason?: string; message?: string }[] | { letters: { erpKey: string; code: string }[] };
    const rows = Array.isArray(list) ? list : list.letters;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ erpKey: looping, code: 'MAPPING_EXPR_BUDGET' });
    expect(JSON.stringify(rows[0])).toContain('languages.de.products_name');
  });

  it('exits 130 on the second SIGTERM while records loop one after another', async () => {
    // 200 records that each loop until the budget stops them: the run alone would take minutes,
    // and the first signal's clean stop still judges the records already read (each up to its budget).
    const config = fixture(200, loopingMapping('sigterm-'));
    const sync = startCli(['sync', 'products', '--config', config], { env: shopEnv(sandbox) });
    // Let it get into the records (the ERP read and the first evaluations).
    await new Promise((r) => setTimeout(r, 2500));
    expect(sync.child.exitCode).toBeNull();
    sync.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    sync.child.kill('SIGTERM');
    // The old code handled neither signal: the process ran on until killed.
    const result = await exitWithin(sync, 5000);
    expect(result.signal, result.stderr.slice(-2000)).toBeNull();
    expect(result.code, result.stderr.slice(-2000)).toBe(130);
  });

  it('answers /healthz while a run is inside a long evaluation, and exits 130 on the second SIGTERM', async () => {
    // 30 records that loop a second each: the run is still busy when the signals come.
    const config = fixture(30, loopingMapping('daemon-'), { schedule: '* * * * * *' });
    const daemon = startCli(['run', '--config', config], { env: shopEnv(sandbox) });
    const [, url] = await daemon.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)".*shopsync daemon started/);
    // The scheduled run starts within a second or two and then evaluates for half a minute.
    await daemon.waitFor(/skipped scheduled run: the previous run of this pipeline is still in progress/, 30_000);
    const started = Date.now();
    const health = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5000) });
    expect(health.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2000);

    daemon.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    // The first asked for a clean stop, which waits for the run (up to daemon.shutdownGraceMs); its records still loop.
    expect(daemon.child.exitCode).toBeNull();
    daemon.child.kill('SIGTERM');
    const result = await exitWithin(daemon, 5000);
    expect(result.code, result.stderr.slice(-2000)).toBe(130);
  });
});
