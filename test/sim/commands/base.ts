/**
 * What every command shares: a name and arguments (its line in a history, and its JSON in a
 * regression file), a precondition on the model, and a step that the Sim wraps with the clock,
 * late commits and the invariants.
 */
import type fc from 'fast-check';
import type { Model } from '../model.js';
import type { Outcome, Sim } from '../sim.js';

/** Arguments of a command as they are saved (plain JSON). */
export type Args = Readonly<Record<string, string | number | boolean | null>>;

/** A command of the simulation: one thing that happens to the ERP, the shop or shopsync. */
export abstract class SimCommand implements fc.AsyncCommand<Model, Sim> {
  /** The command's name in histories and regression files. */
  abstract readonly name: string;

  constructor(readonly args: Args = {}) {}

  /** Whether the command makes sense in this model state (fast-check skips it otherwise). */
  check(_m: Readonly<Model>): boolean {
    return true;
  }

  /** Do it; the model is updated here, from what was done. */
  protected abstract act(m: Model, sim: Sim): Promise<Outcome>;

  async run(m: Model, sim: Sim): Promise<void> {
    await sim.step(this, m, () => this.act(m, sim));
  }

  toString(): string {
    const args = Object.entries(this.args).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    return `${this.name}(${args.join(', ')})`;
  }

  /** The command as a regression file keeps it. */
  toJSON(): { command: string; args: Args } {
    return { command: this.name, args: this.args };
  }
}
