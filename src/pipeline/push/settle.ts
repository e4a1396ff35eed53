/**
 * Writing outcomes to the state: references, hashes, events, dead letters, append-only entries,
 * run counters and the cursor checkpoint of one batch land in ONE state transaction, so a crash
 * leaves either all of a batch's bookkeeping or none of it (and then the batch is simply redone).
 */
import type { CursorPosition } from '../../erp/types.js';
import type { RunCounts, StateStore, StateWriter } from '../../state/index.js';
import type { SyncEvents } from '../events.js';
import type { LowWaterMark } from '../watermark.js';
import { deliveredStamp } from '../latency.js';
import { markPending, markSent } from './history.js';
import { sentPayload } from './prepare.js';
import type { PushEngineOptions } from './runner.js';
import type { Settlement, WorkItem } from './work.js';
import { rememberSent } from '../../conflicts/settle.js';
import type { ResourceDef } from '../../shop/registry/index.js';
import { shopDeduplicates } from './lookup.js';

const NO_CODES: readonly string[] = Object.freeze([]);

/** Where settlements go. */
export interface SettleTarget {
  readonly state: StateStore;
  readonly pipeline: string;
  readonly resource: string;
  readonly runId: number;
  /** Cursor lane to checkpoint (`incremental`, `backfill:…`), or undefined to never move a cursor. */
  readonly cursorName?: string;
  readonly watermark?: LowWaterMark;
  readonly counts: RunCounts;
  readonly events?: SyncEvents;
  readonly storePayloads: boolean;
  /** Record ERP key ↔ shop id (false when records are addressed by the shop id itself). @default true */
  readonly recordReferences?: boolean;
  /** The identity of a record among those sharing its ERP key (mapping `row_key`), for hashes and dead letters. */
  readonly recordKey?: (erpKey: string, record: Record<string, unknown>) => string;
  /** The mapping's `owner: guard` fields: what the shop accepted of them is remembered (src/conflicts/settle.ts). */
  readonly guarded?: readonly string[];
  /** More bookkeeping of one settlement in its commit (renames: numbers, adopted references; src/renames), quiet ones included. */
  readonly onSettled?: (tx: StateWriter, s: Settlement, recordKey: string) => void;
}

/** Where a push engine's settlements go. */
export function settleTargetOf(o: PushEngineOptions): SettleTarget {
  return {
    state: o.state,
    pipeline: o.def.name,
    resource: o.resource.name,
    runId: o.runId,
    ...(o.cursorName !== undefined ? { cursorName: o.cursorName } : {}),
    ...(o.watermark ? { watermark: o.watermark } : {}),
    counts: o.counts,
    ...(o.events ? { events: o.events } : {}),
    storePayloads: o.def.options.storePayloads,
    // Records addressed by the shop's own id (order status by orders_id) need no reference; recording one would mix ERP event keys into the orders' references.
    recordReferences: !(o.def.options.keyIsShopId || o.mapping.shopKey === o.resource.key.id),
    ...(o.mapping.recordKey ? { recordKey: o.mapping.recordKey } : {}),
    ...(o.mapping.owners && o.mapping.owners.guard.length > 0 ? { guarded: o.mapping.owners.guard } : {}),
  };
}

/** Commit a group of settlements; returns the new checkpoint when the cursor moved. */
export async function settle(target: SettleTarget, settlements: readonly Settlement[]): Promise<CursorPosition | undefined> {
  if (settlements.length === 0) return undefined;
  const { state, pipeline, resource, runId, counts } = target;
  const seqs = settlements.flatMap((s) => (s.item.seq !== undefined ? [s.item.seq] : []));
  const before = target.watermark?.position;
  let checkpoint: CursorPosition | undefined;
  await state.write((tx) => {
    for (const s of settlements) {
      // Hashes and letters are per record: several rows of one ERP key (mapping `row_key`) keep their own.
      // A refused row keeps its identity when the source could read its fields (so the fixed row resolves its letter); a whole file has none.
      const bare = s.kind === 'dead' && s.unreadable === true && Object.keys(s.item.record).length === 0;
      const letterKey = s.kind === 'dead' ? s.item.letterKey : undefined;
      const rk = letterKey ?? (target.recordKey && !bare ? target.recordKey(s.item.erpKey, s.item.record) : s.item.erpKey);
      if (s.quiet === true) {
        // Read again by the lookback as an earlier run left it: only a first source hash is worth writing.
        if (s.kind === 'done' && s.storeHash) tx.hashes.put(pipeline, resource, rk, s.item.hash, s.item.sourceHash);
        target.onSettled?.(tx, s, rk);
        continue;
      }
      if (s.kind === 'done') {
        const { item } = s;
        // An unchanged record whose reference came from the state and that has no open intent leaves both as they are.
        if (s.shopId !== undefined && target.recordReferences !== false && s.stateHolds !== true) tx.refs.put(resource, item.erpKey, s.shopId);
        // A delivery records when its version changed: a later delivery of the same or an older version is no new change (push/latency.ts).
        const stamp = s.outcome !== 'unchanged' && item.position ? deliveredStamp(item.position.value) : undefined;
        if (s.storeHash) tx.hashes.put(pipeline, resource, rk, item.hash, item.sourceHash, stamp);
        if (s.stateHolds !== true && item.intent !== false) tx.intents.delete(resource, item.erpKey);
        if (s.shopId !== undefined && item.history.length > 0) {
          // A record found existing (lost create answer, duplicate order) may or may not hold the entries: leave them pending for a read-back.
          if (item.foundExisting) markPending(tx, resource, s.shopId, item.history, runId);
          else markSent(tx, resource, s.shopId, item.history, runId);
        }
        tx.deadLetters.resolve(pipeline, rk);
        const sent = s.outcome !== 'unchanged';
        // The stock figures the shop accepted, in the commit of the hash: a last-sent figure that outlived a lost write would hide the next one (stock travels on its own).
        if (sent && s.item.stockSent) for (const row of s.item.stockSent) tx.stockSent.put(row);
        // Likewise the guarded fields' values: the next update compares the shop's with them.
        if (sent && target.guarded) rememberSent(tx, pipeline, rk, item, target.guarded);
        // An unchanged record without warnings is counted in the run, not written as a row: a daily full re-read of
        // 100,000 unchanged articles would otherwise add 100,000 rows a day (disk) and was half of the re-read's time.
        // Literals of fixed shape (absent values undefined) in this per-record loop: conditional spreads cost microseconds each.
        if (sent || s.warnings.length > 0) {
          const payload = sent && target.storePayloads ? sentPayload(item) : undefined;
          const payloadText = payload !== undefined && payload === item.textOf ? item.payloadText : undefined;
          tx.events.add({ runId, pipeline, resource, erpKey: item.erpKey, shopId: s.shopId, outcome: s.outcome, warnings: s.warnings, payloadHash: item.hash, payload, payloadText });
        }
        counts[s.outcome]++;
        counts.warnings += s.warnings.length;
      } else {
        const { item } = s;
        tx.intents.delete(resource, item.erpKey);
        tx.deadLetters.add({ pipeline, resource, erpKey: rk, record: item.record, payload: item.payload, code: s.error.code, reason: s.error.message, runId, ...(item.origin ? { origin: item.origin } : {}) });
        tx.events.add({
          runId,
          pipeline,
          resource,
          erpKey: item.erpKey,
          shopId: item.shopId,
          outcome: 'dead-lettered',
          warnings: item.warnings,
          error: s.error,
          payloadHash: item.hash ? item.hash : undefined,
          payload: item.payload !== undefined && target.storePayloads ? item.payload : undefined,
        });
        counts.failed++;
        counts.deadLettered++;
        if (s.unreadable) counts.unreadable++;
        counts.warnings += item.warnings.length;
      }
      target.onSettled?.(tx, s, rk);
    }
    const position = target.watermark?.peek(seqs);
    if (position && position !== before && target.cursorName) {
      checkpoint = position;
      tx.cursors.set(pipeline, target.cursorName, { value: position.value, key: position.key });
    }
    tx.runs.saveCounts(runId, counts);
  });
  // Only now, committed, do these records count as settled: an earlier write that failed keeps the cursor before its records.
  for (const seq of seqs) target.watermark?.settle(seq);
  if (target.events) {
    for (const s of settlements) {
      if (s.quiet === true) continue;
      const warnings = s.kind === 'done' ? s.warnings : s.item.warnings;
      const codes = warnings.length === 0 && s.kind === 'done' ? NO_CODES : [...warnings.map((w) => w.code), ...(s.kind === 'dead' ? [s.error.code] : [])];
      target.events.emit({
        type: 'record-settled',
        runId,
        pipeline,
        resource,
        erpKey: s.item.erpKey,
        shopId: s.kind === 'done' ? s.shopId : undefined,
        outcome: s.kind === 'done' ? s.outcome : 'dead-lettered',
        codes,
        unreadable: s.kind === 'dead' && s.unreadable ? true : undefined,
      });
    }
  }
  if (checkpoint && target.cursorName) target.events?.emit({ type: 'checkpoint', runId, pipeline, lane: target.cursorName, position: checkpoint });
  return checkpoint;
}

/**
 * Before a send: intents for creates and pending marks for append-only entries, committed; nothing
 * when there is nothing to mark. A create the shop itself refuses to repeat (an enforced natural key
 * in the payload: `Already exists` names the record, orders answer `DUPLICATE_EXTERNAL_REFERENCE`)
 * needs no intent: a run after a crash sends it again and is told the record, as `verifyCreates`
 * already relied on (it never looked such a record up).
 */
export async function beforeSend(state: StateStore, pipeline: string, resource: ResourceDef, runId: number, op: 'create' | 'update', items: readonly WorkItem[], naturalKey?: string): Promise<void> {
  const marked = items.filter((item) => (op === 'create' ? !shopDeduplicates(resource, item.payload) : item.shopId !== undefined && item.history.length > 0) || item.stockSentBefore);
  if (marked.length === 0) return;
  await state.write((tx) => {
    for (const item of marked) {
      if (op === 'create') {
        if (!shopDeduplicates(resource, item.payload)) {
          const natural = naturalKey !== undefined && item.payload[naturalKey] !== undefined ? { [naturalKey]: item.payload[naturalKey] } : undefined;
          tx.intents.put({ resource: resource.name, erpKey: item.erpKey, pipeline, hash: item.hash, runId, ...(natural ? { naturalKey: natural } : {}) });
          item.intent = true;
        }
      } else if (item.shopId !== undefined && item.history.length > 0) markPending(tx, resource.name, item.shopId, item.history, runId);
      // A figure on its way may land even if its answer is lost or its settle fails: the last one sent is unknown until settled.
      if (item.stockSentBefore) for (const row of item.stockSent ?? []) tx.stockSent.forget(row.pipeline, row.recordKey, row.field);
    }
  });
}
