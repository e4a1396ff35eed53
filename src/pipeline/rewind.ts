/**
 * A state that went back in time says so. A pull relies on its state alone to know what it
 * delivered: a restored backup or a deleted state would deliver every record since then again,
 * and an ERP that consumes its import table would import them twice. Two signals stop that until
 * the user accepts (`shopsync state accept-restore`, `shopsync sync --accept-restore`):
 * - the restore mark `shopsync state restore` writes into the state it puts in place;
 * - the sink's own rows: records the state has no delivery of, that the sink already holds
 *   (looked up by the sink's key), were delivered by a state we no longer have.
 * After the say-so those records are updates of the rows already there, and once a run has read
 * everything since its cursor the state knows them all again (the acceptance closes).
 *
 * Rows the sink did not write (SINK_FOREIGN_ROW, src/erp/sql/ownership.ts): a held row we cannot
 * prove ours is never overwritten silently. A sink that marks its rows (an owner column) answers
 * `holding` with its own rows only: one of those the state does not know is an older state's, and
 * the run stops with STATE_BEHIND_SINK as above; a row with another mark is refused by the sink per
 * record, whatever the acceptance says. A sink that cannot tell (no owner column) does not answer
 * `holding`: the guard then tells it per record what the pipeline proves (`owned`: the state
 * delivered the key, it is in flight from a write whose answer may have been lost, or a restore
 * acceptance is open), and the sink refuses every other held row as a letter of its own.
 */
import { StateBehindError } from '../errors.js';
import type { ErpRecord, Sink } from '../erp/types.js';
import { restoreAccepted } from '../state/rewinds.js';
import type { RestoreMark, StateStore } from '../state/index.js';

/** Keys named in a message; the details carry up to this many too. */
const SHOWN_KEYS = 10;

const fix = (pipeline: string) =>
  `If the ERP has not imported them yet or imports by key, or after you removed what it imported twice, accept with \`shopsync state accept-restore ${pipeline}\` (or run \`shopsync sync ${pipeline} --accept-restore\`): the rows already there are then updated in place, never inserted again. If the newer state still exists (\`<state>.before-restore\`), put it back instead`;

/** Refuse a pull while the state came from a restore nobody accepted for this pipeline. */
export async function checkRestore(state: StateStore, pipeline: string): Promise<void> {
  const mark = await state.rewinds.restored();
  if (restoreAccepted(mark, await state.rewinds.acceptance(pipeline))) return;
  const taken = mark!.newestRunAt ? `; its newest run started ${mark!.newestRunAt}` : '';
  throw new StateBehindError(
    'STATE_RESTORED',
    `pull ${pipeline} refused to deliver: the state was restored from ${mark!.file} at ${new Date(mark!.restoredAt).toISOString()}${taken}, so it does not know what was delivered since, and would deliver it into the sink again. ${fix(pipeline)}`,
    { details: { pipeline, restoredAt: mark!.restoredAt, file: mark!.file, ...(mark!.newestRunAt ? { newestRunAt: mark!.newestRunAt } : {}) } },
  );
}

/** The state's restore and the pull pipelines it still holds back (none when there was no restore or every one accepted). */
export async function heldBackByRestore(state: StateStore, pulls: readonly string[]): Promise<{ mark?: RestoreMark; pipelines: string[] }> {
  const mark = await state.rewinds.restored();
  if (!mark) return { pipelines: [] };
  const pipelines: string[] = [];
  for (const p of pulls) if (!restoreAccepted(mark, await state.rewinds.acceptance(p))) pipelines.push(p);
  return { mark, pipelines };
}

/** One record about to be delivered. */
export interface Outgoing {
  readonly key: string;
  readonly row: ErpRecord;
  /** The state has a delivery of this key (an earlier version). */
  readonly known: boolean;
}

/** What the guard says about a batch before it is written. */
export interface GuardAnswer {
  /** Keys the sink holds as its own rows already: updates. */
  readonly held: ReadonlySet<string>;
  /** Per record of the batch: a row under its key is proven this pipeline's (SinkBatch.owned). */
  readonly owned: readonly boolean[];
  /** Keys this call put in flight. */
  readonly added: readonly string[];
}

/** Per run: asks the sink about the records the state does not know, before each batch is written. */
export class SinkRewindGuard {
  private accepted: boolean | undefined;
  /**
   * Every key this pipeline sent that the state may not have recorded: earlier runs' (a commit whose
   * answer was lost) and this run's, all of them until a run catches up. A batch the sink refused is
   * split and its halves sent again; recording only the half on its way would forget a row whose
   * commit had taken effect unacknowledged, and the next run would take our own row for an older
   * state's (the simulation found it: STATE_BEHIND_SINK after a lost acknowledgement and a refused order).
   */
  private sent: Set<string> | undefined;

  constructor(private readonly state: StateStore, private readonly pipeline: string, private readonly sink: Sink) {}

  /**
   * Record the batch as in flight; return the keys the sink holds already as its own (they are
   * updates), per record whether the pipeline proves a row under its key its own, and the keys this
   * call put in flight. Throws STATE_BEHIND_SINK when the sink holds rows of its own this state never
   * delivered and nobody accepted.
   */
  async before(batch: readonly Outgoing[]): Promise<GuardAnswer> {
    const held = new Set<string>();
    const fresh = batch.filter((p) => !p.known);
    if (fresh.length > 0 && this.sink.holding) {
      const found = await this.sink.holding(fresh.map((p) => p.row));
      // A batch the sink committed just before the state write that records it was lost is ours, not an older state's.
      const sent = await this.sentKeys();
      const behind: string[] = [];
      for (const index of found) {
        const key = fresh[index]!.key;
        held.add(key);
        if (!sent.has(key)) behind.push(key);
      }
      if (behind.length > 0 && !(await this.isAccepted())) throw this.refusal(behind);
    }
    const sent = await this.sentKeys();
    // Proven before this batch goes in flight: being sent now proves nothing about the row there.
    const accepted = batch.some((p) => !p.known && !sent.has(p.key)) ? await this.isAccepted() : false;
    const owned = batch.map((p) => p.known || sent.has(p.key) || accepted);
    const added: string[] = [];
    for (const p of batch) {
      if (sent.has(p.key)) continue;
      sent.add(p.key);
      added.push(p.key);
    }
    if (added.length > 0) await this.state.rewinds.setInFlight(this.pipeline, [...sent]);
    return { held, owned, added };
  }

  /**
   * The sink said these keys were not written (it refused them, or refused the batch and wrote
   * nothing): no longer in flight, so a later batch of the same run does not take a foreign row
   * under one of them for a write of ours whose answer was lost.
   */
  async notWritten(keys: readonly string[]): Promise<void> {
    const sent = await this.sentKeys();
    let removed = false;
    for (const key of keys) removed = sent.delete(key) || removed;
    if (removed) await this.state.rewinds.setInFlight(this.pipeline, [...sent]);
  }

  private async sentKeys(): Promise<Set<string>> {
    this.sent ??= new Set(await this.state.rewinds.inFlight(this.pipeline));
    return this.sent;
  }

  private async isAccepted(): Promise<boolean> {
    this.accepted ??= (await this.state.rewinds.acceptance(this.pipeline))?.open === true;
    return this.accepted;
  }

  private refusal(keys: readonly string[]): StateBehindError {
    const shown = keys.slice(0, SHOWN_KEYS).join(', ');
    const more = keys.length > SHOWN_KEYS ? ` and ${keys.length - SHOWN_KEYS} more` : '';
    const target = this.sink.target ?? `the ${this.sink.kind} sink`;
    return new StateBehindError(
      'STATE_BEHIND_SINK',
      `pull ${this.pipeline} refused to deliver: ${target} already holds ${keys.length} of the records about to be delivered (key ${shown}${more}) that this state has no delivery of. The state is older than what was delivered (a restored backup, a deleted or replaced state file), and delivering them again would let the ERP import them twice; nothing of this batch was written. ${fix(this.pipeline)}`,
      { details: { pipeline: this.pipeline, sink: target, keys: keys.slice(0, SHOWN_KEYS), found: keys.length } },
    );
  }
}
