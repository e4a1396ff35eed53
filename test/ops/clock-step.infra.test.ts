/**
 * A real daemon (`shopsync run`, the compiled CLI) whose wall clock libfaketime steps back an hour
 * and then forward two, while its monotonic clock runs on (an NTP step): its every-two-seconds
 * schedule keeps starting runs in every phase, and a product added to the ERP in each phase reaches
 * the sandbox shop. Before the scheduler kept its own loop, node-cron's timer (armed for "next
 * slot − now") slept through the hour after the step back: no run, nothing logged.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createErp, ensureBuilt, shopProducts, startCli, tempDir, writeConfig } from '../cli/support.js';
import { fakeClockEnv, LIBFAKETIME } from '../support/cluster.js';
import { shopEnv, useSandbox } from '../support/sandbox.js';
import { until } from '../support/wait.js';

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });

/** Run rows in the daemon's SQLite state (read-only beside the running daemon). */
function runRows(statePath: string): number {
  const db = new Database(statePath, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Add product `sku` to the ERP, changed later than every product before it. */
function addProduct(erp: string, n: number): string {
  const db = new Database(erp);
  try {
    const sku = `STEP-${n}`;
    db.prepare('INSERT INTO products (sku, name, price, qty, updated_at) VALUES (?, ?, ?, ?, ?)').run(sku, `Produkt ${sku}`, '12.50', '3', `2026-01-02 00:00:0${n}`);
    return sku;
  } finally {
    db.close();
  }
}

describe.skipIf(!LIBFAKETIME)('the daemon when the wall clock steps (libfaketime)', { timeout: 240_000 }, () => {
  it('keeps starting scheduled runs and delivering changes after the clock steps back an hour and then forward two', async () => {
    const dir = tempDir();
    const erp = join(dir, 'erp.sqlite');
    createErp(erp, 3);
    const config = writeConfig(dir, { schedule: '*/2 * * * * *' });
    const statePath = join(dir, 'state/shopsync.db');
    const clockFile = join(dir, 'faketime');
    writeFileSync(clockFile, '+0s');
    const daemon = startCli(['run', '--config', config], { env: { ...shopEnv(sandbox), LOG_LEVEL: 'info', ...fakeClockEnv(clockFile) } });
    const [, url] = await daemon.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)".*shopsync daemon started/);

    const phases: { phase: string; runs: number }[] = [];
    /** In this phase: three more runs start, and a product added now reaches the shop. */
    const phase = async (name: string, n: number) => {
      const before = runRows(statePath);
      const sku = addProduct(erp, n);
      await until(async () => runRows(statePath) >= before + 3 && (await shopProducts(sandbox)).has(sku), 45_000, 250).catch(async () => {
        throw new Error(`${name}: ${runRows(statePath) - before} run(s) started in 45 s, ${sku} ${(await shopProducts(sandbox)).has(sku) ? 'delivered' : 'not delivered'}`);
      });
      phases.push({ phase: name, runs: runRows(statePath) - before });
    };

    await phase('clock right', 1);
    const skew = async () => (await (await fetch(`${url}/metrics`)).text()).match(/shopsync_clock_skew_seconds\{against="shop",shop="default"\} (-?[\d.e+]+)/)?.[1];
    // The sandbox runs on the test's clock: within the Date header's second, no skew.
    expect(await skew()).toBe('0');
    writeFileSync(clockFile, '-3600s');
    await phase('an hour behind', 2);
    expect(daemon.stdout()).toMatch(/the wall clock stepped 1 h 0 min \d+ s back: every schedule re-armed from the new time/);
    writeFileSync(clockFile, '+3600s');
    // Noticed first, so the change of this phase goes out after it (the skew is read again from that answer).
    await daemon.waitFor(/the wall clock stepped 2 h 0 min \d+ s forward/, 15_000);
    await phase('an hour ahead', 3);

    // Read again after the step, from the next answer of the shop: an hour ahead.
    expect(Number(await skew())).toBeGreaterThan(3590);
    expect(Number(await skew())).toBeLessThan(3610);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/shopsync_clock_steps_total\{direction="back"\} 1\b/);
    expect(metrics).toMatch(/shopsync_clock_steps_total\{direction="forward"\} 1\b/);
    // The two hours the step forward passed over were one coalesced run; their slots counted, not run.
    expect(metrics).toMatch(/shopsync_missed_ticks_total\{pipeline="products"\} [1-9]\d*/);
    daemon.child.kill('SIGTERM');
    const result = await daemon.exited;
    expect(result.code, result.stderr).toBe(0);
    for (const p of phases) expect(p.runs, p.phase).toBeGreaterThanOrEqual(3);
  });
});
