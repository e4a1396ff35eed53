/**
 * The push engine: prepared records are queued by operation, sent in batches with several batches
 * in flight (the shop client's queue rate-limits the requests), and every outcome is settled to
 * the state. A batch the shop rejects as a whole is split until the bad record is isolated.
 */
import type { CursorPosition, Source, SourceItem } from '../../erp/types.js';
import { atOrBeforeOf } from '../../erp/sql/lookback.js';
import { contentHash } from '../hash.js';
import { AbortedError } from '../../errors.js';
import { OutcomeUnknownError, ShopApiError, ShopUnreachableError } from '../../shop/errors.js';
import type { Logger } from '../../log.js';
import type { RunCounts, StoredIssue } from '../../state/index.js';
import type { SyncEvents } from '../events.js';
import type { PlannedRecord } from '../types.js';
import { LowWaterMark } from '../watermark.js';
import { appendOnlyFields, pruneSentHistory } from './history.js';
import { issueOf } from './issues.js';
import { findExisting, shopDeduplicates } from './lookup.js';
import { rejectedAsWhole, verdictOf } from './outcomes.js';
import { planSend, planSettled } from './plan.js';
import { prepare, wirePayload, type PrepareDeps } from './prepare.js';
import { BatchState, ReferenceCache } from '../references.js';
import { beforeSend, settle, settleTargetOf, type SettleTarget } from './settle.js';
import { KeyLanes, type PushInput } from './keys.js';
import { WaitingRoom } from './waiting.js';
import { sourceFingerprint } from './sourceHash.js';
import type { Settlement, WorkItem } from './work.js';
import { ChangeLatencyRecorder, type ChangeLatencyOptions } from './latency.js';
import { DUPLICATE_KEY, DuplicateGuard, type DuplicateRefusal } from './duplicates.js';
import { StatusGuard } from '../../follow/guard.js';
import { FieldGuard } from '../../conflicts/guard.js';
import { RenameTracker } from '../../renames/tracker.js';
import { GROUP_COMMIT_MS, PendingSettlements } from './commits.js';

/** What a push engine needs besides the preparation deps. */
export interface PushEngineOptions extends Omit<PrepareDeps, 'references' | 'batch'> {
  readonly counts: RunCounts;
  readonly logger: Logger;
  readonly events?: SyncEvents;
  /** Cursor lane to checkpoint; absent for dry runs and dead-letter retries. */
  readonly cursorName?: string;
  readonly watermark?: LowWaterMark;
  readonly signal?: AbortSignal;
  /** The cursor an earlier run stored, when the source reads from before it (lookback): records up to it are read again. */
  readonly readAgainUpTo?: CursorPosition;
  /** Observe the change latency of delivered records (incremental syncs from a stored cursor). */
  readonly changeLatency?: ChangeLatencyOptions;
  /** Rejects once this process no longer holds the lane (`LaneRunOptions.fence`); asked before each request leaves. */
  readonly fence?: () => Promise<void>;
  /** The source read, when it can look rows up by key: two live rows of one key are told from one row read twice (duplicates.ts). */
  readonly source?: Pick<Source, 'rowsOf'>;
}

/** What the lookback of one run found: rows read again as an earlier run left them, and rows committed late. */
export interface LookbackTally {
  rechecked: number;
  late: number;
}

type Op = 'create' | 'update';

/**
 * Records settled without a request (unchanged, refused before sending) are committed in groups of
 * this many: one commit per 100 unchanged records cost about 1.8 ms of SQLite's commit work each in
 * a no-change re-read. A crash loses at most this many records' bookkeeping, and the cursor, moved
 * in the same commit, stays before them: they are read again, at no request.
 */
const IMMEDIATE_SETTLE = 1000;
/**
 * Records whose state (references, hashes, intents) is read in one go. Larger than a batch: on
 * PostgreSQL each read is a round trip, and a no-change re-read of 20,000 records spent a third of
 * its time waiting for 200 of them. Batches still leave as soon as they are full.
 */
const STATE_READ = 1000;

/** One push run's engine. */
export class PushEngine {
  readonly plan: PlannedRecord[] = [];
  fatal: StoredIssue | undefined;
  private readonly queues: Record<Op, WorkItem[]> = { create: [], update: [] };
  private readonly splits: { op: Op; items: WorkItem[] }[] = [];
  private readonly inflight = new Set<Promise<void>>();
  private readonly immediate: Settlement[] = [];
  /** Answered batches' settlements waiting for their group commit (commits.ts). */
  private readonly pending = new PendingSettlements();
  private readonly waiting = new WaitingRoom();
  private readonly lanes = new KeyLanes();
  private readonly settleTarget: SettleTarget;
  /** Records the shop no longer has, judged in the batch being answered: re-created once their reference is forgotten. */
  private readonly gone: WorkItem[] = [];
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly o: PrepareDeps & PushEngineOptions;
  readonly lookback: LookbackTally = { rechecked: 0, late: 0 };
  private readonly latency: ChangeLatencyRecorder | undefined;
  private readonly duplicates: DuplicateGuard;
  /** Order statuses the shop cancelled or changed meanwhile are not overwritten (issue 44, src/follow/guard.ts). */
  private readonly statusGuard: StatusGuard | undefined;
  /** Guarded fields the shop's people changed are not overwritten (issue 46, src/conflicts/guard.ts). */
  private readonly fieldGuard: FieldGuard | undefined;
  /** Mappings with a surrogate key: renamed records keep their shop record and old URL (issue 46, src/renames). */
  private readonly renames: RenameTracker | undefined;

  constructor(options: PushEngineOptions) {
    const references = new ReferenceCache(options.state);
    // A dry run (preview) shows every record's payload, unchanged ones included: it maps them all.
    const fingerprint = options.dryRun ? undefined : sourceFingerprint(options.mapping, options.resource);
    const renames = RenameTracker.open({ mapping: options.mapping, resource: options.resource, state: options.state, shop: options.shop, pipeline: options.def.name, runId: options.runId });
    this.renames = renames;
    this.o = { ...options, references, batch: new BatchState(options.state, references, options.def.name, options.resource.name), ...(fingerprint !== undefined ? { sourceFingerprint: fingerprint } : {}), ...(renames ? { renames } : {}) };
    this.batchSize = options.def.batchSize;
    this.concurrency = options.def.options.concurrency;
    this.settleTarget = { ...settleTargetOf(options), ...(renames ? { onSettled: (tx, s, rk) => renames.settled(tx, s, rk) } : {}) } satisfies SettleTarget;
    this.duplicates = new DuplicateGuard({ mapping: options.mapping, resource: options.resource, references, ...(options.source ? { source: options.source } : {}) });
    const { state, runId, def, resource, events, logger } = options;
    this.statusGuard = StatusGuard.open({ def, resource, mapping: options.mapping, state, shop: options.shop, logger, counts: options.counts });
    this.fieldGuard = FieldGuard.open({ pipeline: def.name, resource, mapping: options.mapping, state, shop: options.shop, logger, counts: options.counts, runId: options.runId, dryRun: options.dryRun });
    this.latency = options.changeLatency && !options.dryRun ? new ChangeLatencyRecorder({ ...options.changeLatency, state, runId, pipeline: def.name, resource: resource.name, logger, ...(events ? { events } : {}) }) : undefined;
  }

  private get stopping(): boolean {
    return this.fatal !== undefined || this.o.signal?.aborted === true;
  }

  /** Push every item of a source stream (sync and backfill). */
  async pushStream(items: AsyncIterable<SourceItem>): Promise<void> {
    const wm = this.o.watermark ?? new LowWaterMark();
    let readError: unknown;
    const chunk: PushInput[] = [];
    try {
      const readAgain = this.o.readAgainUpTo ? atOrBeforeOf(this.o.readAgainUpTo) : undefined;
      for await (const it of items) {
        // A row read again by the lookback counts only once it turns out new or changed (see `lookedAgain`).
        const reread = readAgain !== undefined && readAgain(it.position);
        if (!reread) this.o.counts.read++;
        const seq = wm.track(it.position);
        chunk.push({ seq, erpKey: it.key, record: it.record, position: it.position, refused: it.refused, origin: it.origin, reread });
        if (chunk.length >= Math.max(this.batchSize, STATE_READ)) await this.acceptChunk(chunk.splice(0));
        if (this.stopping) break;
      }
    } catch (err) {
      readError = err;
    }
    // Records read before the source ended, stopped (abort, timeout) or failed are judged as if taken one by one: a partly filled chunk must not hide them.
    await this.acceptChunk(chunk.splice(0), true);
    // Whatever stopped the read, batches in flight settle and checkpoint before we return or throw.
    await this.finish();
    if (readError !== undefined && !(readError instanceof AbortedError && this.o.signal?.aborted)) throw readError;
  }

  /** Push loose records (dead-letter retries): no positions, no cursor. */
  async pushRecords(records: readonly PushInput[]): Promise<void> {
    await this.acceptRecords(records);
    await this.finish();
  }

  /** Take loose records (no positions) into this run without finishing it; a source stream may follow. */
  async acceptRecords(records: readonly PushInput[]): Promise<void> {
    // A letter of a mapping with `row_key` is stored under the record's identity; its ERP key (references, lanes) is read from the record.
    const inputs = records.map((r) => (this.o.mapping.recordKey ? { ...r, erpKey: this.o.mapping.sourceKey(r.record) ?? r.erpKey } : r));
    for (let i = 0; i < inputs.length && !this.stopping; i += this.batchSize) {
      const chunk = inputs.slice(i, i + this.batchSize);
      this.o.counts.read += chunk.length;
      await this.acceptChunk(chunk);
    }
  }

  /** Read the state of a chunk of records in one query per table, then take them one by one. */
  private async acceptChunk(chunk: readonly PushInput[], evenIfAborted = false): Promise<void> {
    if (chunk.length === 0 || this.fatal !== undefined) return;
    const readable = chunk.filter((input) => !input.refused);
    const recordKey = (input: PushInput) => (input.refused !== undefined && Object.keys(input.record).length === 0 ? input.erpKey : (this.o.mapping.recordKey?.(input.erpKey, input.record) ?? input.erpKey));
    const hashKeys = readable.map((input) => this.o.mapping.recordKey?.(input.erpKey, input.record) ?? input.erpKey);
    await this.o.batch.load(
      readable.map((input) => input.erpKey),
      hashKeys,
      chunk.filter((input) => input.reread === true).map(recordKey),
    );
    await this.o.stock?.load(hashKeys);
    if (this.renames) {
      // References follow the surrogate: a source keyed by another column would file every record under the wrong key.
      const wrong = this.renames.wrongKey(chunk);
      if (wrong) {
        this.fatal ??= wrong;
        return;
      }
      await this.renames.load(chunk, (erpKey) => this.o.references.lookup(this.o.resource.name, erpKey) !== undefined);
    }
    // Two records claiming one shop record are refused together before either is prepared or sent.
    const { pass, refused } = await this.duplicates.screen(chunk);
    await this.refuseDuplicates(refused);
    for (const input of pass) {
      if (this.fatal !== undefined || (this.stopping && !evenIfAborted)) return;
      await this.accept(input);
    }
  }

  private async accept(input: PushInput): Promise<void> {
    // Another version of this key is on its way: this one is held (unsettled, so the cursor stays before it) until that one settled.
    if (this.lanes.claim(input)) await this.admit(input);
    await this.pump(false);
  }

  /** Dead-letter records refused as duplicates; one read again by the lookback whose letter says so already stands quietly. */
  private async refuseDuplicates(refused: readonly DuplicateRefusal[]): Promise<void> {
    for (const { input, error } of refused) {
      const item = { seq: input.seq, erpKey: input.erpKey, record: input.record, warnings: [], ...(input.origin ? { origin: input.origin } : {}) };
      if (!this.o.dryRun && input.reread === true && this.o.batch.letter(input.erpKey)?.code === DUPLICATE_KEY) {
        this.lookback.rechecked++;
        this.immediate.push({ kind: 'dead', item, error, quiet: true });
        continue;
      }
      if (input.reread === true) this.o.counts.read++;
      if (this.o.dryRun) planSettled(this.o.counts, this.plan, { kind: 'dead', item, error });
      else this.immediate.push({ kind: 'dead', item, error });
    }
    if (this.immediate.length >= Math.max(this.batchSize, IMMEDIATE_SETTLE)) await this.flushImmediate();
  }

  /**
   * A record the lookback read again: unchanged, it settles quietly (an earlier run counted it);
   * anything else was committed late (or changed since) and counts as read now.
   */
  private lookedAgain(input: PushInput, prepared: Awaited<ReturnType<typeof prepare>>): Awaited<ReturnType<typeof prepare>> {
    if (input.reread !== true) return prepared;
    if (prepared.kind === 'settled' && prepared.settlement.kind === 'done' && prepared.settlement.outcome === 'unchanged') {
      this.lookback.rechecked++;
      return { ...prepared, settlement: { ...prepared.settlement, quiet: true } };
    }
    this.lookback.late++;
    this.o.counts.read++;
    return prepared;
  }

  /**
   * A record read again exactly as its dead letter holds it failed before and would fail again:
   * the letter stands (retried by \`dlq retry\` or, for letters waiting on another record, by every
   * sync), and the run neither counts nor sends it a second time.
   */
  private stillLettered(input: PushInput): boolean {
    if (input.reread !== true) return false;
    const bare = input.refused !== undefined && Object.keys(input.record).length === 0;
    const letter = this.o.batch.letter(this.o.mapping.recordKey && !bare ? this.o.mapping.recordKey(input.erpKey, input.record) : input.erpKey);
    // A duplicate key's letter is about the other row, not this one's content: a record that passed
    // this read's duplicate screen (acceptChunk) has its key to itself again and goes out, where the
    // screen asked the source for the key's live rows. A source that cannot be asked only shows its
    // twin when both are read together, so there the letter stands as any other.
    if (letter?.code === DUPLICATE_KEY && this.duplicates.seesLiveTwins) return false;
    return letter !== undefined && contentHash(letter.record) === contentHash(input.record);
  }

  /** Prepare a record that owns its key, and queue or settle it. */
  private async admit(input: PushInput): Promise<void> {
    if (this.stillLettered(input)) {
      this.lanes.release(input.erpKey);
      this.lookback.rechecked++;
      this.immediate.push({ kind: 'dead', item: { seq: input.seq, erpKey: input.erpKey, record: input.record, warnings: [] }, error: { code: 'LETTER_STANDS', message: 'read again as its dead letter holds it' }, quiet: true });
      if (this.immediate.length >= Math.max(this.batchSize, IMMEDIATE_SETTLE)) await this.flushImmediate();
      return;
    }
    // A newer version of a waiting record (changed while we read) replaces it: the old one must never be sent after it.
    const stale = this.waiting.remove(this.o.mapping.recordKey?.(input.erpKey, input.record) ?? input.erpKey);
    if (stale?.input.seq !== undefined) this.o.watermark?.settle(stale.input.seq);
    const prepared = this.lookedAgain(input, await prepare(this.o, input));
    this.o.counts.requests += prepared.requests;
    if (prepared.kind === 'send' && !this.o.dryRun) {
      this.queues[prepared.item.op].push(prepared.item);
      return;
    }
    // Not sent now: the key is free for the next version (which replaces a waiting one, see above).
    this.lanes.release(input.erpKey);
    // A dry run creates nothing, so a reference it misses stays missing: it plans the failure at once.
    if (prepared.kind === 'waiting' && !this.o.dryRun && this.waiting.add({ input, settlement: prepared.settlement, missing: prepared.missing }, this.o.mapping.recordKey?.(input.erpKey, input.record))) return;
    if (prepared.kind === 'send') {
      // A dry run shows what the status guard would refuse, from the shop's current records, and the guarded fields it would hold.
      const refused = (await this.statusGuard?.screen([prepared.item]))?.refused[0];
      const unsent = refused ? undefined : (await this.fieldGuard?.screen([prepared.item]))?.settled[0];
      if (refused ?? unsent) planSettled(this.o.counts, this.plan, (refused ?? unsent)!);
      else this.o.counts.requests += await planSend(this.o, this.plan, prepared.item);
      return;
    }
    if (this.o.dryRun) planSettled(this.o.counts, this.plan, prepared.settlement);
    else this.immediate.push(prepared.settlement);
    if (this.immediate.length >= Math.max(this.batchSize, IMMEDIATE_SETTLE)) await this.flushImmediate();
  }

  /** Prepare the held versions whose predecessor settled meanwhile. */
  private async admitReleased(): Promise<void> {
    while (this.lanes.pending && !this.stopping) for (const input of this.lanes.takeReady()) await this.admit(input);
  }

  /** Send what is left and wait for every batch in flight, then map the records waiting for a reference again. */
  private async finish(): Promise<void> {
    await this.pump(true);
    await this.retryWaiting();
    await this.flushImmediate();
    await this.latency?.flush();
  }

  /**
   * Records whose reference lookup missed are mapped again once everything sent before has
   * settled (their parent may have been created meanwhile); repeated while a pass resolves any
   * (deeper trees). Those still missing are dead-lettered; a stopping run leaves them unsettled.
   */
  private async retryWaiting(): Promise<void> {
    const initially = this.waiting.size;
    while (this.waiting.size > 0 && !this.stopping) {
      let progress = false;
      for (const w of this.waiting.takeAll()) {
        const prepared = this.lookedAgain(w.input, await prepare(this.o, w.input));
        this.o.counts.requests += prepared.requests;
        if (prepared.kind === 'waiting') {
          this.waiting.add({ input: w.input, settlement: prepared.settlement, missing: prepared.missing }, this.o.mapping.recordKey?.(w.input.erpKey, w.input.record));
          continue;
        }
        progress = true;
        this.waiting.resolved++;
        if (prepared.kind === 'settled') this.immediate.push(prepared.settlement);
        else {
          this.lanes.reclaim(w.input.erpKey);
          this.queues[prepared.item.op].push(prepared.item);
        }
      }
      await this.pump(true);
      if (!progress) break;
    }
    if (initially > 0) this.o.logger.info({ waited: initially, resolved: this.waiting.resolved, missing: this.waiting.size, sample: this.waiting.missingSample() }, 'records whose reference was unknown when read were mapped again after the rest of the run settled');
    if (this.stopping) return;
    for (const w of this.waiting.takeAll()) this.immediate.push(w.settlement);
  }

  private async flushImmediate(): Promise<void> {
    if (this.immediate.length === 0 || this.o.dryRun) return;
    await this.settle(this.immediate.splice(0));
  }

  /** Commit settlements; the references they record are known to the rest of the run at once. */
  private async settle(settlements: readonly Settlement[], remembered = false): Promise<void> {
    // A settle moves the cursor: not for a lane taken over meanwhile. What it would have recorded is what a crash at
    // this point leaves: its intents are looked up by the next run before anything is created again.
    await this.o.fence?.();
    await settle(this.settleTarget, settlements);
    for (const s of settlements) {
      this.o.batch.settled(s.item.erpKey);
      this.o.stock?.settled(this.o.mapping.recordKey?.(s.item.erpKey, s.item.record) ?? s.item.erpKey);
    }
    if (!remembered) this.remember(settlements);
  }

  /** The references settlements record, known to the rest of the run (a reference the state already held was cached when its batch was read). */
  private remember(settlements: readonly Settlement[]): void {
    if (this.settleTarget.recordReferences === false) return;
    for (const s of settlements) if (s.kind === 'done' && s.shopId !== undefined && s.stateHolds !== true) this.o.references.remember(this.o.resource.name, s.item.erpKey, s.shopId);
  }

  /**
   * Settle with the next group commit (commits.ts); `after` runs once committed. The references are
   * known to the rest of the run at once: the shop confirmed those records, so a child may name its parent.
   */
  private settleSoon(settlements: readonly Settlement[], after: () => void): void {
    this.remember(settlements);
    this.pending.add(settlements, after);
  }

  /** Commit the settlements waiting for their group commit; throws what the state threw (nothing of them is then assumed). */
  private async commitPending(): Promise<void> {
    const { settlements, after } = this.pending.take();
    if (settlements.length === 0) return;
    await this.settle(settlements, true);
    for (const f of after) f();
  }

  private async pump(final: boolean): Promise<void> {
    for (;;) {
      await this.admitReleased();
      this.dispatchReady(final);
      // Committed once the next batches have left, never before them: the commit overlaps their requests.
      // With nothing in flight to wait for, what waits lands now (held versions of its keys wait for it).
      if (this.pending.due || (this.inflight.size === 0 && this.pending.size > 0)) {
        try {
          await this.commitPending();
        } catch (err) {
          this.fatal ??= issueOf(err);
          this.o.logger.error({ err }, 'settling answered batches failed');
        }
        continue;
      }
      if (this.inflight.size === 0 && (!this.lanes.pending || this.stopping)) return;
      if (this.inflight.size === 0) continue;
      if (!final && this.inflight.size < this.concurrency) return;
      await this.nextAnswer();
    }
  }

  /** Wait for a batch in flight to be answered; with settlements waiting, no longer than their commit may wait (a slow shop still commits). */
  private async nextAnswer(): Promise<void> {
    if (this.pending.size === 0) return Promise.race(this.inflight);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, GROUP_COMMIT_MS)));
    try {
      await Promise.race([...this.inflight, waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  private dispatchReady(final: boolean): void {
    // Stopping (abort or a fatal error): nothing new goes out; queued records stay unsettled, so the cursor stays before them.
    while (!this.stopping && this.inflight.size < this.concurrency) {
      const split = this.splits.shift();
      if (split) {
        this.dispatch(split.op, split.items);
        continue;
      }
      const op: Op | undefined = (['update', 'create'] as const).find((k) => this.queues[k].length >= this.batchSize || (final && this.queues[k].length > 0));
      if (!op) return;
      this.dispatch(op, this.queues[op].splice(0, this.batchSize));
    }
  }

  private dispatch(op: Op, items: WorkItem[]): void {
    const p: Promise<void> = this.send(op, items)
      .catch((err: unknown) => {
        this.fatal ??= issueOf(err);
        this.o.logger.error({ err }, 'batch failed unexpectedly');
      })
      .finally(() => this.inflight.delete(p));
    this.inflight.add(p);
  }

  private async send(op: Op, batch: WorkItem[]): Promise<void> {
    const { state, shop, resource, def, runId } = this.o;
    let items = op === 'create' ? await this.verifyCreates(batch) : batch;
    if (items.length === 0) return;
    for (const item of items) {
      if (!item.reconcile || item.shopId === undefined) continue;
      // The entries are marked pending: this reads the record back and drops those the shop already holds.
      this.o.counts.requests += await pruneSentHistory(item, item.shopId, appendOnlyFields(resource, this.o.mapping), { state, shop, resource, runId, dryRun: false });
      item.reconcile = false;
    }
    if (op === 'update' && this.statusGuard) {
      const pass = await this.screenStatus(items);
      if (pass === undefined || pass.length === 0) return;
      items = pass;
    }
    if (op === 'update' && this.fieldGuard) {
      items = await this.screenFields(items);
      if (items.length === 0) return;
    }
    // A process frozen while it held the lane may find it taken over on waking: then nothing more leaves.
    await this.o.fence?.();
    // Intents and pending marks are committed before the request leaves: a crash after it is reconciled, never repeated blind.
    await beforeSend(state, def.name, resource, runId, op, items, this.o.mapping.shopKey);
    if (op === 'update') await this.renames?.beforeSend(items);
    if (op === 'create') for (const item of items) item.triedCreate = true;
    const started = Date.now();
    const payloads = items.map((item) => wirePayload(resource, item));
    // The run's signal stops requests still waiting for the shop's rate (their records stay unsettled, NOT_SENT), so a
    // stopping run reaches its checkpoint without draining a queue of batches; a request already on its way is answered.
    const write = { batchSize: items.length, ...(this.o.signal ? { signal: this.o.signal } : {}) };
    const result = op === 'create' ? await shop.create(resource.name as never, payloads, write) : await shop.update(resource.name as never, payloads, write);
    // The shop's confirmation of what this request carried: the end of each delivered record's change latency.
    const answeredAt = Date.now();
    this.o.counts.requests += result.requests;
    this.o.events?.emit({ type: 'batch-sent', runId, pipeline: def.name, resource: resource.name, operation: op, size: items.length, requests: result.requests, durationMs: Date.now() - started });
    const whole = rejectedAsWhole(result.outcomes);
    if (whole) {
      const mid = Math.ceil(items.length / 2);
      this.o.events?.emit({ type: 'batch-split', runId, pipeline: def.name, size: items.length, code: whole.code });
      this.splits.push({ op, items: items.slice(0, mid) }, { op, items: items.slice(mid) });
      return;
    }
    if (op === 'create' && result.outcomes.some((o) => o.error instanceof OutcomeUnknownError || o.error?.details?.afterLostAnswer === true)) {
      // One lost answer covers the whole request: every record of it may have been created by us.
      for (const item of items) item.createMayHaveLanded = true;
    }
    let verdicts = result.outcomes.map((outcome) => verdictOf(resource, op, outcome));
    if (this.renames) {
      // A landed rename gets its old URL redirected before it settles; a claimed shop record or taken number is refused.
      const reviewed = await this.renames.review(op, items, verdicts);
      verdicts = reviewed.verdicts;
      this.o.counts.requests += reviewed.requests;
    }
    const settled: Settlement[] = [];
    verdicts.forEach((v, i) => {
      const s = this.judge(op, items[i]!, v);
      if (s) settled.push(s);
    });
    const gone = this.gone.splice(0);
    if (gone.length > 0) await this.forgetGone(gone);
    this.settleSoon([...this.immediate.splice(0), ...settled], () => {
      this.latency?.delivered(settled, answeredAt);
      for (const s of settled) this.lanes.release(s.item.erpKey);
    });
  }

  /**
   * The status guard's screen of an update batch: refused orders are dead-lettered at once (before
   * anything of the batch leaves) and their keys freed; returns the items to send. A shop that
   * could not be read (retryable) sends nothing blind: the batch is queued again (undefined).
   */
  private async screenStatus(items: WorkItem[]): Promise<WorkItem[] | undefined> {
    let screened: Awaited<ReturnType<StatusGuard['screen']>>;
    try {
      screened = await this.statusGuard!.screen(items);
    } catch (err) {
      if (!(err instanceof ShopApiError) || !err.retryable || err instanceof ShopUnreachableError) throw err;
      for (const item of items) this.judge('update', item, { kind: 'retry', error: issueOf(err), countsAttempt: true });
      return undefined;
    }
    if (screened.refused.length > 0) {
      await this.settle(screened.refused);
      for (const s of screened.refused) this.lanes.release(s.item.erpKey);
    }
    return screened.pass;
  }

  /**
   * The field guard's screen of an update batch: guarded fields the shop changed are held (the rest of
   * each record goes out); a record left with nothing to send settles at once and frees its key.
   */
  private async screenFields(items: WorkItem[]): Promise<WorkItem[]> {
    const { pass, settled, retry, retryError } = await this.fieldGuard!.screen(items);
    // Never sent blind: a batch whose shop records could not be read now goes again, as after a transient failure.
    for (const item of retry) this.judge('update', item, { kind: 'retry', error: retryError ?? { code: 'GUARD_READ_FAILED', message: 'the shop could not be read' }, countsAttempt: true });
    if (settled.length > 0) {
      await this.settle(settled);
      for (const s of settled) this.lanes.release(s.item.erpKey);
    }
    return pass;
  }

  /** Forget the references and hashes of records the shop no longer has, then queue them as creates. */
  private async forgetGone(items: readonly WorkItem[]): Promise<void> {
    const { state, resource, def, mapping } = this.o;
    await state.write((tx) => {
      for (const item of items) {
        tx.refs.delete(resource.name, item.erpKey);
        tx.hashes.delete(def.name, resource.name, mapping.recordKey?.(item.erpKey, item.record) ?? item.erpKey);
      }
    });
    for (const item of items) {
      this.o.references.forget(resource.name, item.erpKey);
      this.o.batch.settled(item.erpKey);
      item.op = 'create';
      delete item.shopId;
      // A create sends every field: nothing the shop had is left to keep.
      item.held = undefined;
      item.hashStays = false;
      this.queues.create.push(item);
    }
  }

  /**
   * Creates that may have landed already (lost answer, open intent of a crashed run) are looked up
   * in the shop first; a record found becomes an update of it. Returns the items still to create.
   */
  private async verifyCreates(items: WorkItem[]): Promise<WorkItem[]> {
    const unsure = items.filter((item) => item.verify && !shopDeduplicates(this.o.resource, item.payload));
    for (const item of items) item.verify = false;
    if (unsure.length === 0) return items;
    let lookup: Awaited<ReturnType<typeof findExisting>>;
    try {
      lookup = await findExisting(this.o, unsure);
    } catch (err) {
      if (!(err instanceof ShopApiError) || !err.retryable || err instanceof ShopUnreachableError) throw err;
      // The shop could not be read: these records wait (still unverified) for another try; never create them blind.
      for (const item of unsure) this.judge('create', item, { kind: 'unknown', error: issueOf(err) });
      return items.filter((item) => !unsure.includes(item));
    }
    const { found, requests } = lookup;
    this.o.counts.requests += requests;
    if (found.size === 0) return items;
    for (const [item, shopId] of found) {
      item.op = 'update';
      item.shopId = shopId;
      item.foundExisting = true;
      this.queues.update.push(item);
    }
    this.o.logger.info({ found: found.size, looked: unsure.length }, 'records of interrupted creates found in the shop; updating them instead of creating again');
    return items.filter((item) => !found.has(item));
  }

  /** Settle, requeue or stop for one outcome; returns the settlement when the record is settled. */
  private judge(op: Op, item: WorkItem, v: ReturnType<typeof verdictOf>): Settlement | undefined {
    const { resource, mapping, state, def } = this.o;
    switch (v.kind) {
      case 'ok':
        return { kind: 'done', item, outcome: op === 'create' ? 'created' : 'updated', shopId: v.shopId ?? item.shopId, warnings: [...item.warnings, ...v.warnings], storeHash: !item.hashStays };
      case 'duplicate-order':
        if (v.ours || item.createMayHaveLanded) return { kind: 'done', item, outcome: 'created', ...(v.shopId !== undefined ? { shopId: v.shopId } : {}), warnings: item.warnings, storeHash: true };
        item.foundExisting = true;
        return {
          kind: 'done',
          item,
          outcome: 'unchanged',
          ...(v.shopId !== undefined ? { shopId: v.shopId } : {}),
          warnings: [...item.warnings, { code: 'DUPLICATE_EXTERNAL_REFERENCE', message: `the order already exists in the shop${v.shopId !== undefined ? ` as ${v.shopId}` : ''}; recorded, not created again` }],
          storeHash: true,
        };
      case 'exists':
        if (v.shopId === undefined && (mapping.shopKey === undefined || item.payload[mapping.shopKey] === undefined)) {
          return { kind: 'dead', item, error: { code: 'ALREADY_EXISTS', message: 'the shop says the record already exists but names no id, and the mapping has no shopKey to update it by' } };
        }
        item.op = 'update';
        if (v.shopId !== undefined) item.shopId = v.shopId;
        item.foundExisting = true;
        this.queues.update.push(item);
        return undefined;
      case 'gone':
        if (item.triedCreate || mapping.operation === 'update') return { kind: 'dead', item, error: v.error };
        // The reference and hash are forgotten (committed) before the record is queued as a create again.
        this.gone.push(item);
        return undefined;
      case 'unknown':
      case 'retry':
        if (v.kind === 'unknown' || v.countsAttempt) item.attempts++;
        // The lost write may have landed: a create is looked up in the shop before it goes out again.
        if (v.kind === 'unknown' && op === 'create') item.verify = true;
        if (op === 'update' && item.history.length > 0) item.reconcile = true;
        if (item.attempts >= def.options.maxAttempts) {
          this.fatal ??= { ...v.error, message: `gave up after ${item.attempts} attempts: ${v.error.message}` };
          return undefined;
        }
        this.queues[item.op].push(item);
        return undefined;
      case 'fatal':
        this.fatal ??= v.error;
        return undefined;
      case 'wait':
        // Prepared again once the rest of the run settled (retryWaiting); a full waiting room dead-letters it now.
        return this.waitForRun(item, v.error) ? undefined : { kind: 'dead', item, error: v.error };
      case 'reject':
        return { kind: 'dead', item, error: v.error };
    }
  }

  /** Keep a record waiting until everything else of the run settled; false when the waiting room is full. */
  private waitForRun(item: WorkItem, error: StoredIssue): boolean {
    const holders = Array.isArray(error.details?.holders) ? error.details.holders.filter((h): h is string => typeof h === 'string') : [];
    const input = { ...(item.seq !== undefined ? { seq: item.seq } : {}), erpKey: item.erpKey, record: item.record, ...(item.position ? { position: item.position } : {}) };
    if (!this.waiting.add({ input, settlement: { kind: 'dead', item, error }, missing: holders.map((h) => ({ resource: this.o.resource.name, erpKey: h })) }, this.o.mapping.recordKey?.(item.erpKey, item.record))) return false;
    this.lanes.release(item.erpKey);
    return true;
  }
}
