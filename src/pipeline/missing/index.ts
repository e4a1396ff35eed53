/**
 * The `onMissing` step of a push run: shop records whose ERP record is gone are deactivated or
 * deleted, after the push settled. "Gone" is decided only from a complete read (the whole source,
 * read to its end without a source error, an abort or a fatal shop error, every row keyed): the
 * references of the resource in the pipeline's shop whose ERP key the read did not deliver. Records
 * the source flags inactive (`inactiveWhen`) count as gone in any run. The mass-deletion guard
 * counts first and refuses the whole step when it would touch too much.
 */
import type { Logger } from '../../log.js';
import type { ResourceDef } from '../../shop/registry/index.js';
import type { ShopClient } from '../../shop/client/types.js';
import type { Reference, RunCounts, StateStore, StoredIssue } from '../../state/index.js';
import type { SyncEvents } from '../events.js';
import type { PipelineDefinition } from '../schema.js';
import type { MissingReport, PlannedRecord } from '../types.js';
import { act, deactivatedHash, deactivationPayload, type Candidate } from './act.js';
import { massDeleteRefusal } from './guard.js';
import type { ReadTally } from './tally.js';

export { ReadTally, flaggedInactive } from './tally.js';
export { massDeleteRefusal, MASS_DELETE_REFUSED } from './guard.js';
export { act, deactivatedHash, deactivationPayload, type Candidate, type ActDeps, type ActResult } from './act.js';

/** References read per page. */
const PAGE = 1000;

/** What the step needs from its run. */
export interface MissingDeps {
  readonly def: PipelineDefinition;
  readonly resource: ResourceDef;
  readonly state: StateStore;
  readonly shop: ShopClient;
  readonly runId: number;
  readonly dryRun: boolean;
  readonly counts: RunCounts;
  readonly plan: PlannedRecord[];
  readonly logger: Logger;
  readonly events?: SyncEvents;
  readonly signal?: AbortSignal;
}

/** What the run read. */
export interface MissingInput {
  readonly tally: ReadTally;
  /** Undefined when the read was complete; otherwise why it cannot tell what is gone. */
  readonly incomplete?: string;
  readonly allowMassDelete: boolean;
}

/** The step's report, and the shop error that stopped it. */
export type MissingOutcome = MissingReport & { readonly fatal?: StoredIssue };

/** Pages of candidates, read again after each acted page (a forgotten reference shifts the pages after it). */
class Candidates {
  private offset = 0;
  private queue: string[];
  private done = false;

  constructor(
    private readonly deps: MissingDeps,
    private readonly input: MissingInput,
    private readonly complete: boolean,
  ) {
    this.queue = [...input.tally.inactive].filter((k) => !input.tally.seen.has(k));
  }

  /** The next page of records needing the action (deactivate: those not deactivated already); undefined at the end. */
  async next(forgotten: number): Promise<Candidate[] | undefined> {
    const { state, resource, def } = this.deps;
    while (!this.done) {
      let refs: { erpKey: string; shopId: Reference['shopId'] }[];
      if (this.complete) {
        this.offset -= forgotten;
        forgotten = 0;
        const page = await state.refs.list(resource.name, { limit: PAGE, offset: this.offset });
        this.offset += page.length;
        if (page.length < PAGE) this.done = true;
        refs = page.filter((r) => !this.input.tally.seen.has(r.erpKey));
      } else {
        const keys = this.queue.splice(0, PAGE);
        if (this.queue.length === 0) this.done = true;
        const ids = await state.refs.getMany(resource.name, keys);
        refs = keys.flatMap((erpKey) => (ids.has(erpKey) ? [{ erpKey, shopId: ids.get(erpKey)! }] : []));
      }
      if (refs.length === 0) continue;
      if (def.options.onMissing !== 'deactivate') return refs;
      const marker = deactivatedHash(resource);
      const hashes = await state.hashes.getMany(def.name, resource.name, refs.map((r) => r.erpKey));
      const open = refs.filter((r) => hashes.get(r.erpKey) !== marker);
      if (open.length > 0) return open;
    }
    return undefined;
  }
}

/** Run the `onMissing` step after the push; undefined when the pipeline ignores missing records. */
export async function handleMissing(deps: MissingDeps, input: MissingInput): Promise<MissingOutcome | undefined> {
  const { def, resource, state, logger } = deps;
  const action = def.options.onMissing;
  if (action === 'ignore') return undefined;
  const complete = input.incomplete === undefined;
  const empty = { action, candidates: 0, total: 0, deactivated: 0, deleted: 0, failed: 0 };
  if (!complete && input.tally.inactive.size === 0) return { decided: false, why: input.incomplete, ...empty };

  // First pass: count, so the guard decides before anything is touched.
  let candidates = 0;
  const sample: string[] = [];
  const counting = new Candidates(deps, input, complete);
  for (let page = await counting.next(0); page; page = await counting.next(0)) {
    candidates += page.length;
    for (const c of page) if (sample.length < 10) sample.push(c.erpKey);
  }
  const total = await state.refs.count(resource.name);
  const why = complete ? undefined : `${input.incomplete}; only records flagged inactive were judged`;
  const base = { decided: complete, ...(why ? { why } : {}), action, candidates, total };
  const refusal = input.allowMassDelete ? undefined : massDeleteRefusal(def, action, candidates, total, sample);
  if (refusal) {
    logger.warn({ candidates, total, sample, code: refusal.code }, refusal.message);
    return { ...base, deactivated: 0, deleted: 0, failed: 0, refused: refusal };
  }
  const result = { deactivated: 0, deleted: 0, failed: 0 };
  let fatal: StoredIssue | undefined;
  const acting = new Candidates(deps, input, complete);
  let forgotten = 0;
  for (let page = await acting.next(0); page; page = await acting.next(forgotten)) {
    forgotten = 0;
    if (deps.dryRun) {
      for (const c of page) {
        const reason = input.tally.inactive.has(c.erpKey) ? `flagged inactive in the ERP (${def.options.inactiveWhen?.field})` : 'gone from the ERP (not in the complete read)';
        deps.plan.push({ erpKey: c.erpKey, action, shopId: c.shopId, reason, ...(action === 'deactivate' ? { payload: deactivationPayload(resource) } : {}) });
      }
      continue;
    }
    if (deps.signal?.aborted) break;
    const r = await act({ state, shop: deps.shop, resource, pipeline: def.name, runId: deps.runId, counts: deps.counts, storePayloads: def.options.storePayloads, concurrency: def.options.concurrency, ...(deps.events ? { events: deps.events } : {}) }, action, page, def.batchSize);
    result.deactivated += r.deactivated;
    result.deleted += r.deleted;
    result.failed += r.failed;
    forgotten = r.forgotten;
    if (r.fatal) {
      fatal = r.fatal;
      break;
    }
  }
  if (candidates > 0) logger.info({ action, candidates, total, ...result, dryRun: deps.dryRun }, `records gone from the ERP: ${deps.dryRun ? `${candidates} would be ${action === 'delete' ? 'deleted' : 'deactivated'}` : `${result.deactivated} deactivated, ${result.deleted} deleted, ${result.failed} failed`}`);
  return { ...base, ...result, ...(fatal ? { fatal } : {}) };
}
