/**
 * What shopsync is asked to do: a sync of either pipeline in-process (the engine the CLI runs,
 * through `openRuntime`), a sync by the compiled CLI that runs to its end or is SIGKILLed at a
 * random moment of its run, `dlq retry`, `reconcile --repair`, and a change of the mapping.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { stampOf, type Model } from '../model.js';
import type { CliExit, Outcome, Sim, Snapshot } from '../sim.js';
import { SimCommand } from './base.js';
import type { ShopLink } from '../link.js';
import { afterOrdersRun, beforeOrdersRun, ledgered } from './follow.js';
import { tolerateReleases } from '../follow.js';

/** The CLI as users run it (over dist/; a mutation's copy of the repo has its own). */
export const BIN = resolve(import.meta.dirname, '../../../bin/shopsync.js');

/**
 * A one-off run gives up writing its end after 30 s of refusals (finishRetryMs); a state fault
 * here lasts a number of statements, not seconds, so two seconds of the same back-off reach the
 * same give-up without 30 s of waiting per history.
 */
export const RUN_OPTIONS = { finishRetryMs: 2000 } as const;

/** An in-process run of a pipeline (`shopsync sync <pipeline>` without the process). */
export class Sync extends SimCommand {
  readonly name = 'Sync';
  constructor(readonly pipeline: 'products' | 'files' | 'orders') {
    super({ pipeline });
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    const before = await sim.snapshot(m);
    const placed = new Set(m.reservations.keys());
    if (this.pipeline === 'orders') beforeOrdersRun(m);
    const summary = await underFaults(m, sim, this.pipeline, before, () => sim.world.runtime.run(this.pipeline, { mode: 'sync', ...RUN_OPTIONS }));
    if (this.pipeline === 'orders') afterOrdersRun(m, !('kind' in summary) && (summary.status === 'succeeded' || summary.status === 'partial'));
    if ('kind' in summary) return summary;
    if (this.pipeline === 'files') pickedUp(m, sim);
    if (this.pipeline === 'products' && (summary.status === 'succeeded' || summary.status === 'partial')) {
      m.killInFlight = false;
      ledgered(m, placed);
    }
    m.coverage.runs++;
    if (summary.status === 'failed') m.coverage.failedRuns++;
    return { kind: 'run', pipeline: this.pipeline, summary, before };
  }
}

/**
 * Run `fn`; when it throws and an infrastructure fault failed a statement meanwhile (the state could
 * not record the run's start or end), the step's outcome says so instead, and a run of this process
 * the state could not end is remembered (invariants.ts, `unfinishedRunIsEnded`). Without a fault, a
 * throw is a failure of the history.
 */
export async function underFaults<T>(m: Model, sim: Sim, pipeline: string, before: Snapshot, fn: () => Promise<T>): Promise<T | Outcome & { kind: 'threw' }> {
  const fired = sim.world.infra.firedTotal;
  try {
    return await fn();
  } catch (err) {
    // A lane still held by a run whose end the state refused (invariants.ts, unfinishedRunIsEnded) is the same fault's consequence.
    if (sim.world.infra.firedTotal === fired && m.unfinished.size === 0) throw err;
    for (const r of await sim.world.runtime.state.runs.list({ status: 'running', limit: 100 })) if (r.pid === process.pid) m.unfinished.add(r.id);
    m.coverage.runs++;
    m.coverage.failedRuns++;
    return { kind: 'threw', pipeline, error: err instanceof Error ? `${(err as { code?: string }).code ?? err.name}: ${err.message}` : String(err), before };
  }
}

/** Deliveries no longer waiting in the inbox were claimed by the run: from now on the shop must show their rows. */
function pickedUp(m: Model, sim: Sim): void {
  for (const [name, rows] of m.dropped) {
    if (sim.world.waiting(name)) continue;
    for (const r of rows) m.fileRows.set(r.sku, r);
    m.dropped.delete(name);
    m.pickedUp.add(name);
  }
}

/**
 * Spawn `shopsync sync products`; with a delay, SIGKILL it that long after its run started; with a
 * link, its shop requests go through that proxy, which acts on the n-th (test/sim/link.ts), and
 * `whileActed` runs once it did (a frozen process is resumed after it).
 */
export async function cliSync(sim: Sim, killAfterMs: number | null, link?: ShopLink, whileActed?: () => Promise<void>): Promise<CliExit> {
  const shopUrl = link ? await link.open() : sim.world.sandbox.url;
  const child = spawn(process.execPath, [BIN, 'sync', 'products', '--config', sim.world.configFile, '--json'], {
    cwd: sim.world.dir,
    env: { ...process.env, LOG_LEVEL: undefined, SHOPSYNC_CONFIG: undefined, FORCE_COLOR: '0', ...sim.world.env, SHOP_URL: shopUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  link?.attach(child.pid!);
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('close', (code, signal) => done({ code, signal })));
  let gone = false;
  void exited.then(() => (gone = true));
  const pid = child.pid!;
  const guard = setTimeout(() => child.kill('SIGKILL'), 120_000);
  let killed = false;
  if (killAfterMs !== null) {
    // The delay counts from the run's start, not the process's: node's start-up would eat most kills.
    const started = performance.now();
    while (!gone && performance.now() - started < 20_000) {
      const running = await sim.world.runtime.state.runs.list({ status: 'running', limit: 10 });
      if (running.some((r) => r.pid === pid)) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise((r) => setTimeout(r, killAfterMs));
    if (!gone) killed = child.kill('SIGKILL');
  }
  if (link) {
    await Promise.race([link.acted, exited]);
    if (link.report.acted && whileActed) await whileActed();
    link.resume();
  }
  const { code, signal } = await exited;
  clearTimeout(guard);
  await link?.close();
  if (link?.report.acted && signal === 'SIGKILL') killed = true;
  return { pid, code, signal, killed: killed && signal === 'SIGKILL', output };
}

/** The runs a CLI process left in the state, as a history line shows them. */
export async function describeCliRuns(sim: Sim, pid: number): Promise<string> {
  const runs = (await sim.world.runtime.state.runs.list({ limit: 20 })).filter((r) => r.pid === pid);
  return runs.map((r) => `run ${r.id} ${r.status}${r.error?.code ? ` [${String(r.error.code)}]` : ''} created ${r.counts.created} updated ${r.counts.updated} lettered ${r.counts.deadLettered}`).join('; ');
}

/** `shopsync sync products` by the compiled CLI, to its end, or SIGKILLed `killAfterMs` after its run started. */
export class CliSync extends SimCommand {
  readonly name = 'CliSync';
  constructor(readonly killAfterMs: number | null) {
    super({ killAfterMs });
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    const before = await sim.snapshot(m);
    const placed = new Set(m.reservations.keys());
    const exit = await cliSync(sim, this.killAfterMs);
    exit.runs = await describeCliRuns(sim, exit.pid);
    m.coverage.cliRuns++;
    if (exit.killed) m.coverage.kills++;
    if (exit.killed) m.killInFlight = true;
    else if (/^run \d+ (succeeded|partial)/.test(exit.runs ?? '')) {
      m.killInFlight = false;
      ledgered(m, placed);
    }
    return { kind: 'cli', pipeline: 'products', exit, before };
  }
}

/** `shopsync backfill products --from <now less N minutes> --to <now>`, in-process: its own lane and checkpoint, the incremental cursor untouched. */
export class Backfill extends SimCommand {
  readonly name = 'Backfill';
  constructor(readonly minutesBack: number) {
    super({ minutesBack });
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    const before = await sim.snapshot(m);
    const range = { from: stampOf(m.clockMs - this.minutesBack * 60_000), to: m.now };
    const summary = await underFaults(m, sim, 'products:backfill', before, () => sim.world.runtime.run('products', { mode: 'backfill', range, ...RUN_OPTIONS }));
    if ('kind' in summary) return summary;
    m.coverage.runs++;
    if (summary.status === 'failed') m.coverage.failedRuns++;
    return { kind: 'run', pipeline: 'products:backfill', summary, before, range };
  }
}

/** `shopsync dlq retry --all` for a pipeline, in-process. */
export class RetryDeadLetters extends SimCommand {
  readonly name = 'RetryDeadLetters';
  constructor(readonly pipeline: 'products' | 'files' | 'orders') {
    super({ pipeline });
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    const before = await sim.snapshot(m);
    const summary = await underFaults(m, sim, `${this.pipeline}:retry`, before, () => sim.world.runtime.retry(this.pipeline));
    if ('kind' in summary) return summary;
    m.coverage.retries++;
    if (summary.status === 'failed') m.coverage.failedRuns++;
    return { kind: 'run', pipeline: `${this.pipeline}:retry`, summary, before };
  }
}

/** `shopsync reconcile products --repair`, in-process: after a repair that settled, the shop holds the projection exactly. */
export class Reconcile extends SimCommand {
  readonly name = 'Reconcile';
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    const before = await sim.snapshot(m);
    const report = await underFaults(m, sim, 'products:repair', before, () => sim.world.runtime.reconcile('products', { repair: true }));
    if ('kind' in report) return report;
    m.coverage.reconciles++;
    const status = report.repair?.status ?? 'succeeded';
    // Whatever the shop showed besides the projection of an ERP row (staff edits, names under the old mapping) was drift, and is
    // repaired now; the files pipeline's articles are not the products pipeline's to reconcile.
    if (status === 'succeeded' || status === 'partial') for (const sku of before.deliverable.map((d) => d.row.sku)) m.tolerated.delete(sku);
    tolerateReleases(m);
    return { kind: 'repair', status, ...(report.repair?.error ? { error: report.repair.error.code } : {}), before };
  }
}

/** The products mapping changes its name rule; rows not read since keep the old name in the shop until they change or are repaired. */
export class ChangeMapping extends SimCommand {
  readonly name = 'ChangeMapping';
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    for (const { row, projection } of [...m.deliverable(), ...m.deliverableFiles()]) m.tolerate(row.sku, 'name', projection.name);
    m.mappingVersion = 1 - m.mappingVersion;
    await sim.world.reconfigure({ mappingVersion: m.mappingVersion });
    m.coverage.mappingChanges++;
    return { kind: 'world', note: `mapping version ${m.mappingVersion}` };
  }
}

/** The shop client's rate limit switches between its modes (`rateLimit.mode`): the adaptive one paces by the shop's answers, the fixed one halves its rate on a 429 and pauses for the Retry-After. */
export class SetRateMode extends SimCommand {
  readonly name = 'SetRateMode';
  constructor(readonly mode: 'adaptive' | 'fixed') {
    super({ mode });
  }
  override check(m: Readonly<Model>): boolean {
    return m.rateMode !== this.mode;
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    m.rateMode = this.mode;
    await sim.world.reconfigure({ rateMode: this.mode });
    return { kind: 'world' };
  }
}
