/**
 * One history: a fresh world, the commands run through fast-check's `asyncModelRun` (it skips a
 * command whose precondition the model refuses), then quiescence: faults off, open transactions
 * committed, each pipeline run until it settles, and a repair when the shop held tolerated drift,
 * every step checked as before. Then the world is closed, whatever happened.
 */
import fc from 'fast-check';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { CommitLate } from './commands/erp.js';
import { Reconcile, Sync } from './commands/runs.js';
import { SetFaults } from './commands/index.js';
import { Model, type Coverage } from './model.js';
import { InvariantViolation, Sim } from './sim.js';
import { World } from './world.js';

/** Where a history runs. */
export interface HistoryOptions {
  readonly sandbox: SandboxHandle;
  readonly state: 'sqlite' | 'postgres';
  /** The products source's lookback, when a mutation sets one. */
  readonly lookback?: string;
  /** Check the promises the product is known to break too (invariants.ts, KNOWN_BROKEN). @default false */
  readonly checkKnownBroken?: boolean;
}

/** What a history left behind, pass or fail. */
export interface HistoryResult {
  readonly coverage: Coverage;
  readonly log: readonly string[];
  readonly executed: readonly { command: string; args: Readonly<Record<string, unknown>> }[];
}

/** A history that broke an invariant (or threw). */
export class HistoryFailure extends Error {
  constructor(
    override readonly cause: unknown,
    readonly result: HistoryResult,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'HistoryFailure';
  }
  get invariant(): string {
    return this.cause instanceof InvariantViolation ? this.cause.invariant : 'the history threw';
  }
}

const settled = (s: Sim) => {
  const o = s.last;
  return o?.kind === 'run' && (o.summary.status === 'succeeded' || o.summary.status === 'partial');
};

/** Faults off, late transactions committed, each pipeline run until it settles (three tries), a repair if drift was tolerated. */
async function quiesce(m: Model, sim: Sim): Promise<void> {
  sim.log.push('— quiescence —');
  if (m.faults !== 'off') await new SetFaults('off').run(m, sim);
  // The ERP is back and the disk has room again: what was lost while they failed must now arrive.
  sim.world.infra.clear();
  while (m.open.length > 0) await new CommitLate().run(m, sim);
  for (const pipeline of ['products', 'files', 'orders'] as const) {
    for (let tries = 0; tries < 3; tries++) {
      await new Sync(pipeline).run(m, sim);
      if (settled(sim)) break;
    }
    if (!settled(sim)) throw new InvariantViolation('quiescenceSettles', sim.log.length, `with faults off, three ${pipeline} runs did not settle`, sim.log);
  }
  if (m.tolerated.size > 0) await new Reconcile().run(m, sim);
}

/** Run one history in a fresh world; throws a HistoryFailure with its log when a promise broke. */
export async function runHistory(commands: Iterable<fc.AsyncCommand<Model, Sim, boolean>>, o: HistoryOptions): Promise<HistoryResult> {
  const world = await World.open({ sandbox: o.sandbox, state: o.state, ...(o.lookback !== undefined ? { lookback: o.lookback } : {}) });
  const m = new Model();
  m.stateKind = o.state;
  const sim = new Sim(world, o.checkKnownBroken === true);
  let failure: unknown;
  try {
    await fc.asyncModelRun(() => ({ model: m, real: sim }), commands);
    await quiesce(m, sim);
  } catch (err) {
    failure = err;
  }
  try {
    m.coverage.rateLimited += (await world.traffic()).rate_limited;
    m.coverage.networkFailures += world.networkFailures;
    m.coverage.infraFailures += world.infra.firedTotal;
    m.coverage.changeRows += (world.erp.prepare('SELECT COUNT(*) AS n FROM shop_order_changes').get() as { n: number }).n;
  } finally {
    await world.close();
  }
  const result: HistoryResult = { coverage: m.coverage, log: sim.log, executed: sim.executed };
  if (failure !== undefined) throw new HistoryFailure(failure, result);
  return result;
}
