/**
 * Delivering shop records to an ERP sink: map each record, drop those already delivered in this
 * version (key + content hash), write batches to the sink, and dead-letter a record the mapping
 * refuses or the sink refuses (a `CONNECTOR_INVALID_RECORD` or `SINK_ROW_REFUSED` batch is split
 * until the refused record is alone). Counts say what the sink committed, never what was queued.
 * Used by pull runs and by dead-letter retries of pull pipelines.
 */
import { createHash } from 'node:crypto';
import { ConfigError, ConnectorError } from '../errors.js';
import { CONNECTOR_CODES } from '../erp/errors.js';
import type { Sink, SinkOutcome, SinkResult } from '../erp/types.js';
import { withExportViews, type ResourceDef } from '../shop/registry/index.js';
import type { RunCounts, StoredIssue } from '../state/index.js';
import { contentHash } from './hash.js';
import { ReferenceCache, withReferences } from './references.js';
import { ErpLookups } from './lookups/resolver.js';
import type { MappingContext, MappingResult } from '../mapping/types.js';
import { issueOf } from './push/issues.js';
import { SinkRewindGuard } from './rewind.js';
import { FollowTracker, type FollowPrepared, type FollowTally } from '../follow/track.js';
import type { PipelineDefinition } from './schema.js';
import type { PipelineDeps, PlannedRecord } from './types.js';

/** Sink errors about one record of a batch (nothing of the batch written): split the batch, letter the record. */
const RECORD_REFUSALS: ReadonlySet<string> = new Set([CONNECTOR_CODES.invalidRecord, CONNECTOR_CODES.rowRefused]);

interface Pending {
  readonly key: string;
  readonly hash: string;
  readonly row: Record<string, unknown>;
  readonly record: Record<string, unknown>;
  /** Delivered before in another version (the seen-hash store knows the key): counted as `updated` once committed. */
  readonly known: boolean;
  /** A following pipeline: the record's followed row, stored with its hash, and the row it replaces. */
  readonly follow?: Pick<FollowPrepared, 'row' | 'before'>;
}

/** What a delivery needs. */
export interface DeliveryOptions {
  readonly def: PipelineDefinition;
  readonly deps: Pick<PipelineDeps, 'state' | 'mapping' | 'events' | 'logger' | 'lookups'>;
  readonly resource: ResourceDef;
  readonly runId: number;
  readonly counts: RunCounts;
  /** Absent in dry runs: nothing is written, a plan is collected instead. */
  readonly sink?: Sink;
  /** Dead-letter retries: a record found already delivered in this version also resolves its letter. */
  readonly resolveUnchanged?: boolean;
}

/** One run's delivery of shop records into the sink. */
export class PullDelivery {
  readonly plan: PlannedRecord[] = [];
  private batch: Pending[] = [];
  private readonly keysInBatch = new Map<string, number>();
  private readonly references: ReferenceCache;
  /** Seen hashes of the page being delivered, read in one query (`prefetch`). */
  private readonly seen = new Map<string, string | undefined>();
  /** Notices rows of ours in the sink that the state does not know (it went back in time). */
  private readonly guard: SinkRewindGuard | undefined;
  /** The pipeline's ERP lookups (`lookups:`), when it declares any. */
  private readonly lookups: ErpLookups | undefined;
  /** A pull with `follow:` of a resource the registry can follow: the records' followed rows. */
  private readonly follow: FollowTracker | undefined;

  constructor(private readonly o: DeliveryOptions) {
    this.references = new ReferenceCache(o.deps.state);
    if (o.def.lookups && Object.keys(o.def.lookups).length > 0) {
      if (!o.deps.lookups) throw new ConfigError(`pipeline ${o.def.name} declares lookups, and the run was given no ERP connections to ask them on`);
      this.lookups = new ErpLookups(o.def.lookups, o.deps.lookups(), !o.sink);
    }
    this.guard = o.sink ? new SinkRewindGuard(o.deps.state, o.def.name, o.sink) : undefined;
    this.follow = o.def.follow && o.resource.follow ? new FollowTracker(o.resource.follow, o.def.follow, o.def.name, o.deps.state, o.resource.books !== undefined, o.def.options.sinkBatchSize) : undefined;
  }

  /** What the follow did in this delivery (nothing without `follow:`). */
  get followed(): Readonly<FollowTally> {
    return this.follow?.tally ?? { changed: 0, done: 0, adopted: 0 };
  }

  /** Read the seen hashes of a page of shop records in one query before they are accepted one by one. */
  async prefetch(records: readonly Record<string, unknown>[], keys: readonly string[] = records.map((r) => this.keyOf(r))): Promise<void> {
    this.seen.clear();
    const found = await this.o.deps.state.seen.getMany(this.o.def.name, keys);
    for (const key of keys) this.seen.set(key, found.get(key));
    await this.follow?.prefetch(keys);
  }

  /** The key a shop record is known by (its id field, or the mapping's key). */
  keyOf(record: Record<string, unknown>): string {
    return String(record[this.o.resource.key.id] ?? record[this.o.deps.mapping.key] ?? '');
  }

  /** Map one shop record and queue it for the sink (or dead-letter it); flushes full batches. Returns whether it goes to the sink (false: unchanged or refused). */
  async accept(record: Record<string, unknown>, key = this.keyOf(record)): Promise<boolean> {
    const { def, deps, counts } = this.o;
    const { state, mapping } = deps;
    // Export views (registry): data the shop exports in another shape than it imports, converted for the mapping.
    const viewed = withExportViews(this.o.resource, record);
    // A followed record: what changed since its last delivery, and every change so far as `_changes`.
    const followed = this.follow ? await this.follow.prepare(key, record, viewed, new Date().toISOString()) : undefined;
    const input = followed?.input ?? viewed;
    const apply = async (lookupErp?: MappingContext['lookupErp']): Promise<MappingResult> =>
      (await withReferences(this.references, (ctx) => {
        const c = lookupErp ? { ...ctx, lookupErp } : ctx;
        return mapping.applySync ? mapping.applySync(input, c) : mapping.apply(input, c);
      })).result;
    const result = this.lookups ? await this.lookups.map(input, apply) : await apply();
    if (!result.ok) {
      const first = issueOf(result.errors[0]);
      await this.deadLetter(key, record, undefined, { ...first, message: result.errors.map((e) => e.message).join('; '), details: { ...first.details, errors: result.errors.map((e) => e.toJSON()) } });
      return false;
    }
    const hash = contentHash(result.payload);
    const seen = this.seen.has(key) ? this.seen.get(key) : await state.seen.get(def.name, key);
    if (seen === hash) {
      counts.unchanged++;
      if (!this.o.sink) this.plan.push({ erpKey: key, action: 'skip', reason: 'already delivered in this version' });
      else if (this.o.resolveUnchanged) await state.write((tx) => tx.deadLetters.resolve(def.name, key));
      // Delivered before (`follow:` turned on, or a change the mapping does not carry): its followed row is written on its own.
      if (this.o.sink && followed) await this.follow!.adopt(followed);
      return false;
    }
    // The key was delivered before in another version: a re-delivery updates, it does not create.
    const known = seen !== undefined;
    if (!this.o.sink) {
      this.plan.push({ erpKey: key, action: known ? 'update' : 'create', payload: result.payload });
      if (known) counts.updated++;
      else counts.created++;
      return true;
    }
    // The same record twice in one export (it changed while we paged): keep only the latest version.
    const dup = this.keysInBatch.get(key);
    const follow = followed ? { follow: { row: followed.row, ...(followed.before ? { before: followed.before } : {}) } } : {};
    if (dup !== undefined) this.batch[dup] = { key, hash, row: result.payload, record, known: this.batch[dup]!.known, ...follow };
    else {
      this.keysInBatch.set(key, this.batch.length);
      this.batch.push({ key, hash, row: result.payload, record, known, ...follow });
    }
    if (this.batch.length >= def.options.sinkBatchSize) await this.flush();
    return true;
  }

  /** Release what the delivery opened (the lookups' ERP connections). */
  async close(): Promise<void> {
    await this.lookups?.close();
  }

  /** Write what is queued; resolves once the sink committed it. */
  async flush(): Promise<void> {
    const done = this.batch;
    this.batch = [];
    this.keysInBatch.clear();
    if (done.length > 0) await this.write(done);
    await this.follow?.writeAdoptions();
  }

  private async write(batch: Pending[]): Promise<void> {
    const { def, deps, resource, runId, counts } = this.o;
    const { state } = deps;
    const id = `${def.name}:${createHash('sha256').update(batch.map((p) => `${p.key}:${p.hash}`).join('|')).digest('hex').slice(0, 32)}`;
    // Rows the sink holds already are updates of our own earlier delivery, counted so, never a second create.
    const guarded = this.guard ? await this.guard.before(batch) : undefined;
    const held = guarded?.held ?? new Set<string>();
    let result: void | SinkResult;
    try {
      // `owned`: which rows under these keys the pipeline proves its own; a sink updates no other (SINK_FOREIGN_ROW).
      result = await this.o.sink!.write({ id, records: batch.map((p) => p.row), ...(guarded ? { owned: guarded.owned } : {}) });
    } catch (err) {
      // The sink refused a record of this batch and wrote nothing: halve until the refused record is alone.
      // Splitting, each half in a transaction of its own, rather than a savepoint per record: a batch
      // nobody refuses stays one statement per table with no per-record round trip, every sink keeps
      // its "whole batch or nothing" contract, and one bad record in n costs about 2·log2(n) more writes.
      if (!(err instanceof ConnectorError) || !RECORD_REFUSALS.has(err.code)) throw err;
      // Nothing of it was written: its keys are not in flight on this attempt's account.
      if (guarded) await this.guard!.notWritten(guarded.added);
      if (batch.length === 1) {
        await this.deadLetter(batch[0]!.key, batch[0]!.record, batch[0]!.row, issueOf(err));
        return;
      }
      const mid = Math.ceil(batch.length / 2);
      await this.write(batch.slice(0, mid));
      await this.write(batch.slice(mid));
      return;
    }
    const outcomes = result?.outcomes;
    if (outcomes !== undefined && outcomes.length !== batch.length) {
      throw new ConnectorError('SINK_OUTCOMES_MISMATCH', `${this.o.sink!.target ?? this.o.sink!.kind} answered ${outcomes.length} outcome(s) for a batch of ${batch.length}, so which records it wrote is unknown; nothing of the batch is counted delivered. This is a bug of the sink: report it`, { connector: this.o.sink!.kind, details: { batch: id } });
    }
    // A record the sink refused on its own (nothing of it written) becomes a letter; the rest stands.
    const refused: { p: Pending; outcome: Extract<SinkOutcome, { kind: 'refused' }> }[] = [];
    const written: Pending[] = [];
    const kept = new Map<string, StoredIssue>();
    batch.forEach((p, i) => {
      const outcome = outcomes?.[i];
      if (outcome?.kind === 'refused') refused.push({ p, outcome });
      else if (outcome?.kind === 'kept') {
        // Already in the ERP and left as it is: a newer version of a record the state had delivered did not reach it, and the run says so.
        written.push(p);
        counts.unchanged++;
        if (p.known) {
          counts.warnings++;
          kept.set(p.key, { code: 'SINK_KEPT_EXISTING', message: outcome.message, ...(outcome.details ? { details: { ...outcome.details } } : {}) });
          this.o.deps.logger?.warn({ pipeline: def.name, key: p.key, ...outcome.details }, outcome.message);
        }
      } else {
        written.push(p);
        // The sink's own word wins (an insert is `created`, nothing else); without one, the state's.
        if (outcome?.kind === 'created') counts.created++;
        else if (outcome?.kind === 'updated' || p.known || held.has(p.key)) counts.updated++;
        else counts.created++;
      }
    });
    if (refused.length > 0) await this.guard?.notWritten(refused.map((r) => r.p.key));
    for (const { p, outcome } of refused) {
      await this.deadLetter(p.key, p.record, p.row, { code: outcome.code, message: outcome.message, ...(outcome.details ? { details: { ...outcome.details } } : {}) });
    }
    if (written.length === 0) return;
    await this.settle(written, runId, kept);
  }

  /** Record what the sink committed: hashes, letters closed, events, counts. */
  private async settle(batch: readonly Pending[], runId: number, kept: ReadonlyMap<string, StoredIssue>): Promise<void> {
    const { def, deps, resource, counts } = this.o;
    const { state } = deps;
    await state.write((tx) => {
      for (const p of batch) {
        tx.seen.put(def.name, p.key, p.hash);
        tx.deadLetters.resolve(def.name, p.key);
        tx.events.add({ runId, pipeline: def.name, resource: resource.name, erpKey: p.key, shopId: p.key, outcome: 'delivered', payloadHash: p.hash, ...(kept.has(p.key) ? { warnings: [kept.get(p.key)!] } : {}), ...(def.options.storePayloads ? { payload: p.row } : {}) });
        // The changes it carried reached the ERP in this commit: from now on they are the row's, never found again.
        if (p.follow) tx.followed.put(p.follow.row);
      }
      tx.runs.saveCounts(runId, counts);
    });
    // Orders book stock: from now on they are in the ERP, and a stock record that changes later booked them (`booked: { changedAfter: true }`).
    if (resource.books) await state.reservations.delivered(state.shop, batch.map((p) => Number(p.key)).filter(Number.isFinite), new Date().toISOString());
    for (const p of batch) if (this.seen.has(p.key)) this.seen.set(p.key, p.hash);
    if (this.follow) await this.follow.settled(batch.flatMap((p) => (p.follow ? [p.follow] : [])));
    for (const p of batch) deps.events?.emit({ type: 'record-settled', runId, pipeline: def.name, resource: resource.name, erpKey: p.key, shopId: p.key, outcome: 'delivered', codes: [] });
  }

  /** A record the mapping or the sink refused: kept with the shop record as its payload, the rest goes on. */
  private async deadLetter(key: string, record: Record<string, unknown>, row: Record<string, unknown> | undefined, error: StoredIssue): Promise<void> {
    const { def, deps, resource, runId, counts } = this.o;
    const { state } = deps;
    counts.failed++;
    if (!this.o.sink) {
      this.plan.push({ erpKey: key, action: 'fail', reason: `[${error.code}] ${error.message}` });
      return;
    }
    counts.deadLettered++;
    await state.write((tx) => {
      // The shop record is what a retry maps again; the row the sink refused (if any) stays with the event.
      tx.deadLetters.add({ pipeline: def.name, resource: resource.name, erpKey: key, record, payload: record, code: error.code, reason: error.message, runId });
      tx.events.add({ runId, pipeline: def.name, resource: resource.name, erpKey: key, shopId: key, outcome: 'dead-lettered', error, ...(row && def.options.storePayloads ? { payload: row } : {}) });
      tx.runs.saveCounts(runId, counts);
    });
    deps.events?.emit({ type: 'record-settled', runId, pipeline: def.name, resource: resource.name, erpKey: key, shopId: key, outcome: 'dead-lettered', codes: [error.code] });
  }
}
