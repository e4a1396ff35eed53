/**
 * What happens to the infrastructure: the ERP's connection fails on a read, on a sink write or at
 * the sink's commit; the state's writes fail or the state is full; the wall clock steps; a CLI
 * process is killed or frozen at its n-th shop request. Every fault is placed by a count (the
 * n-th statement or request from now), never by real time, so a seed replays it exactly
 * (test/sim/faults.ts and test/sim/link.ts say what is real and what is injected).
 */
import type { Model } from '../model.js';
import type { Outcome, Sim } from '../sim.js';
import type { FaultError } from '../faults.js';
import { ShopLink, type LinkAction } from '../link.js';
import { SimCommand } from './base.js';
import { cliSync, describeCliRuns, RUN_OPTIONS } from './runs.js';

/** The ERP fails from the (after+1)-th statement of that kind on, `lasting` statements in a row. */
export class ErpFault extends SimCommand {
  readonly name = 'ErpFault';
  constructor(
    readonly on: 'read' | 'write' | 'commit',
    readonly error: FaultError,
    readonly after: number,
    readonly lasting: number,
  ) {
    super({ on, error, after, lasting });
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    sim.world.infra.arm({ target: `erp-${this.on}`, error: this.error, after: this.after, lasting: this.lasting });
    m.coverage.infraFaults++;
    return { kind: 'world' };
  }
}

/** The state's writes fail (a disk error) or the state is full, from the (after+1)-th write on. */
export class StateFault extends SimCommand {
  readonly name = 'StateFault';
  constructor(
    readonly error: 'ioerr' | 'full',
    readonly after: number,
    readonly lasting: number,
  ) {
    super({ error, after, lasting });
  }
  override check(m: Readonly<Model>): boolean {
    // A PostgreSQL state is not a file this process can fault (the state-server restart is its fault).
    return m.stateKind === 'sqlite';
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    sim.world.infra.arm({ target: 'state-write', error: this.error, after: this.after, lasting: this.lasting });
    m.coverage.infraFaults++;
    return { kind: 'world' };
  }
}

/** The PostgreSQL state server restarts between two steps: every session of the world ends, the next run must carry on. */
export class StateRestart extends SimCommand {
  readonly name = 'StateRestart';
  override check(m: Readonly<Model>): boolean {
    return m.stateKind === 'postgres';
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    const ended = await sim.world.restartState();
    m.coverage.stateRestarts++;
    return { kind: 'world', note: `${ended} state sessions ended` };
  }
}

/** The wall clock of the in-process runtime jumps (NTP, a resumed VM); ERP and shop time go on. */
export class ClockStep extends SimCommand {
  readonly name = 'ClockStep';
  constructor(readonly minutes: number) {
    super({ minutes });
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    await sim.world.stepClock(this.minutes * 60_000);
    m.coverage.clockSteps++;
    return { kind: 'world', note: `wall clock ${sim.world.clockOffsetMs >= 0 ? '+' : ''}${sim.world.clockOffsetMs / 60_000} min` };
  }
}

/** Time passes for the shop and shopsync alike (and the ERP): orders placed before become older than the pull's ceiling (the shop's clock less 10 minutes). */
export class TimePasses extends SimCommand {
  readonly name = 'TimePasses';
  constructor(readonly minutes: number) {
    super({ minutes });
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    sim.world.elapse(this.minutes * 60_000);
    m.clockMs += this.minutes * 60_000;
    return { kind: 'world' };
  }
}

/**
 * `shopsync sync products` by the compiled CLI, its shop requests through a link that acts on the
 * n-th: killed before or after the shop got it, killed with it held back once later batches
 * settled, or frozen (SIGSTOP) while an in-process run of its lane tries to start, then resumed.
 */
export class CliFault extends SimCommand {
  readonly name = 'CliFault';
  constructor(
    readonly atRequest: number,
    readonly action: LinkAction,
  ) {
    super({ atRequest, action });
  }
  override check(m: Readonly<Model>): boolean {
    // Only a PostgreSQL state has a server to restart.
    return this.action !== 'restart-state' || m.stateKind === 'postgres';
  }
  protected async act(m: Model, sim: Sim): Promise<Outcome> {
    const before = await sim.snapshot(m);
    const cursorAtStart = JSON.stringify((await sim.world.runtime.state.cursors.get('products'))?.value ?? null);
    let heldCursor: string | undefined;
    const link = new ShopLink(
      sim.world.sandbox.url,
      this.atRequest,
      this.action,
      async () => {
        const now = JSON.stringify((await sim.world.runtime.state.cursors.get('products'))?.value ?? null);
        heldCursor ??= now;
        return now !== heldCursor && now !== cursorAtStart;
      },
      async () => {
        m.coverage.stateRestarts++;
        return sim.world.restartState();
      },
    );
    let during = '';
    const exit = await cliSync(sim, null, link, async () => {
      if (this.action !== 'freeze') return;
      m.coverage.freezes++;
      // The lane's lock belongs to a live (stopped) process: an in-process run must not take it over.
      try {
        const s = await sim.world.runtime.run('products', { mode: 'sync', ...RUN_OPTIONS });
        during = `while frozen, an in-process run ${s.status}${s.error ? ` [${s.error.code}]` : ''}`;
      } catch (err) {
        during = `while frozen, an in-process run did not start: ${(err as { code?: string }).code ?? (err as Error).message}`;
      }
    });
    exit.runs = await describeCliRuns(sim, exit.pid);
    if (this.action === 'restart-state' && link.report.acted) exit.stateRestarted = true;
    if (during) exit.runs = `${during}; ${exit.runs}`;
    m.coverage.cliRuns++;
    if (exit.killed) {
      m.coverage.kills++;
      m.killInFlight = true;
    } else if (/(^|; )run \d+ (succeeded|partial)/.test(exit.runs)) m.killInFlight = false;
    return { kind: 'cli', pipeline: 'products', exit, before };
  }
}
