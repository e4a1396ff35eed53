/**
 * A mapping expression that never ends, against the built CLI (issue 29, item 3). It used to
 * freeze the process: still running after ten minutes, SIGTERM ignored twice, only SIGKILL
 * ended it — in the daemon every pipeline and the health checks with it. Now the record fails
 * with MAPPING_EXPR_BUDGET, the run goes on, and signals are handled while an expression runs.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createErp, ensureBuilt, runCli, sku, startCli, tempDir, writeConfig, type CliProcess } from './support.js';
import { shopEnv, useSandbox } from '../support/sandbox.js';
import { until } from '../support/wait.js';

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

/** A count from the state of the config `config` (its default `state/shopsync.db`), read aside from the CLI that writes it; 0 before the CLI made it. */
function stateCount(config: string, sql: string): number {
  const file = join(dirname(config), 'state/shopsync.db');
  if (!existsSync(file)) return 0;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    // Not migrated yet: nothing counted.
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'runs'").get()) return 0;
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** CPU seconds the process `pid` has used so far (Linux: /proc/<pid>/stat, utime + stime in clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return Infinity; // gone: the caller's exit check says so
  }
  const fields = stat.split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * SIGTERM `p` now and again every 200 ms until it exits: two signals sent back to back can arrive
 * as one (a pending signal is not queued twice), and how soon a busy machine delivers the first is
 * not ours to know. Every signal after the first one handled means "exit at once".
 */
function insist(p: CliProcess): void {
  p.child.kill('SIGTERM');
  const again = setInterval(() => {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
  }, 200);
  void p.exited.finally(() => clearInterval(again));
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
    // Into the records, whatever startup took: the run is in the state (the signal handlers are up), and since then the
    // process burnt half a second of CPU, which reading 200 rows does not, the evaluations do (nothing else shows them).
    await until(async () => sync.child.exitCode === null && stateCount(config, "SELECT count(*) AS n FROM runs WHERE status = 'running'") > 0, 60_000, 20);
    const atRunStart = cpuSeconds(sync.child.pid!);
    await until(async () => sync.child.exitCode !== null || cpuSeconds(sync.child.pid!) - atRunStart >= 0.5, 60_000, 20);
    expect(sync.child.exitCode, sync.stderr().slice(-2000)).toBeNull();
    insist(sync);
    // The old code handled no signal: the process ran on until killed. The clean stop alone would
    // still take the budgets of ~200 records read: 30 s is a bound far from both, at any load.
    const result = await exitWithin(sync, 30_000);
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
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    // Answered during the evaluations, not after them: the run (30 budgets, half a minute) is still going.
    expect(stateCount(config, "SELECT count(*) AS n FROM runs WHERE status = 'running'")).toBe(1);

    daemon.child.kill('SIGTERM');
    // The first asked for a clean stop, which waits for the run (up to daemon.shutdownGraceMs, 10 s); its records still loop.
    await daemon.waitFor(/stopping: no new runs/, 30_000);
    expect(daemon.child.exitCode).toBeNull();
    daemon.child.kill('SIGTERM');
    // Far below the grace period the first signal waits out: this exit is the second signal's.
    const result = await exitWithin(daemon, 8000);
    expect(result.code, result.stderr.slice(-2000)).toBe(130);
  });
});
