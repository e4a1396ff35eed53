/**
 * `reconcile --repair`: a run of the pipeline (mode `repair`, on the pipeline's lane, so it never
 * races its syncs) that pushes the ERP records the shop lacks or holds differently through the
 * push engine (mapping, guard rails, references, dead letters: everything a sync does), and applies
 * the pipeline's `onMissing` to shop records no ERP record maps to, behind the mass-deletion guard.
 * The records' sent hashes are forgotten first: the shop changed behind shopsync's back, so "the
 * same as last sent" no longer means "the same as the shop has"; so is the last stock sent of each
 * (its `sent` emptied), or "stock travels on its own" would leave a drifted figure alone. With
 * `stock: reserved` the push subtracts the unbooked shop orders, read fresh from the shop at the
 * repair's start: a repair never sends more than ERP − unbooked.
 */
import { errorCode } from '../errors.js';
import { silentLogger } from '../log.js';
import { act, massDeleteRefusal, type Candidate } from '../pipeline/missing/index.js';
import { PushEngine } from '../pipeline/push/runner.js';
import type { PushInput } from '../pipeline/push/keys.js';
import { waitingFor } from '../pipeline/run.js';
import { holdOpen } from '../drain/index.js';
import { finishOwnRun, markCrashedRuns, runOwner } from '../pipeline/crashed.js';
import type { PipelineDefinition } from '../pipeline/schema.js';
import type { PipelineDeps, RunStatusFinal, RunSummary } from '../pipeline/types.js';
import type { ResourceDef } from '../shop/registry/index.js';
import { emptyCounts, readShopId, type RunCounts } from '../state/index.js';
import type { RepairResult } from './report.js';
import { openStock } from './reserved.js';
import type { Scratch } from './scratch.js';

const CHUNK = 500;

/** What the repair needs besides the pipeline. */
export interface RepairOptions {
  /** Shop records the reconciliation read (the guard's base for shop-only records). */
  readonly shopRecords: number;
  readonly allowMassDelete: boolean;
  readonly signal?: AbortSignal;
}

/** Push the drift of a reconciliation back; returns what the repair run did. */
export async function repairDrift(def: PipelineDefinition, deps: PipelineDeps, resource: ResourceDef, scratch: Scratch, o: RepairOptions): Promise<RepairResult> {
  const { state } = deps;
  const started = Date.now();
  const lock = await state.locks.acquire(def.name);
  let runId: number;
  try {
    await markCrashedRuns(state, def.name, def.name, deps.events, runOwner(lock));
    runId = await state.runs.start({ pipeline: def.name, mode: 'repair', lane: def.name, owner: runOwner(lock) });
  } catch (err) {
    await lock.release();
    throw err;
  }
  const logger = (deps.logger ?? silentLogger).child({ pipeline: def.name, mode: 'repair', runId });
  deps.events?.emit({ type: 'run-started', runId, pipeline: def.name, mode: 'repair', lane: def.name, at: new Date(started).toISOString() });
  const counts: RunCounts = emptyCounts();
  const result = { pushed: 0, deactivated: 0, deleted: 0, failedShopOnly: 0 };
  let status: RunStatusFinal = 'succeeded';
  let error: { code: string; message: string } | undefined;
  let shopOnly: string | undefined;
  const open = holdOpen('run', `repair run ${runId} of ${def.name}`, () => waitingFor(deps, counts));
  try {
    await open.race((async () => {
      // The same reservations as a stock push: the shop's orders read again now, so an order placed since the comparison counts too.
      const stock = await openStock(def, deps, resource, logger);
      const engine = new PushEngine({ def, resource, mapping: deps.mapping, state, shop: deps.shop, runId, dryRun: false, counts, logger, ...(deps.events ? { events: deps.events } : {}), ...(o.signal ? { signal: o.signal } : {}), ...(stock ? { stock } : {}) });
      let chunk: PushInput[] = [];
      const send = async () => {
        const records = chunk;
        chunk = [];
        await state.write((tx) => {
          for (const r of records) tx.hashes.delete(def.name, resource.name, r.erpKey);
        });
        if (stock) await forgetStockSent(state, def.name, records.map((r) => r.erpKey));
        await engine.acceptRecords(records);
        result.pushed += records.length;
      };
      for (const r of scratch.toRepair()) {
        chunk.push(r);
        if (chunk.length >= CHUNK) await send();
      }
      await send();
      await engine.pushRecords([]);
      await stock?.finish();
      if (engine.fatal) {
        status = 'failed';
        error = { code: engine.fatal.code, message: engine.fatal.message };
      } else shopOnly = await retire(def, deps, resource, scratch, o, runId, counts, result);
      if (shopOnly?.startsWith('MASS_DELETE_REFUSED')) error = { code: 'MASS_DELETE_REFUSED', message: shopOnly };
    })());
    if (status === 'succeeded' && (counts.deadLettered > 0 || result.failedShopOnly > 0 || error)) status = 'partial';
  } catch (err) {
    status = 'failed';
    error = { code: errorCode(err), message: err instanceof Error ? err.message : String(err) };
    logger.error({ err }, 'repair failed');
  } finally {
    open.close();
    try {
      // Taken over meanwhile (marked crashed by another process): not this process's to finish; finishOwnRun throws.
      await finishOwnRun(state, { id: runId, owner: runOwner(lock) }, status, counts, error, logger);
    } finally {
      await lock.release();
    }
  }
  const summary: RunSummary = { runId, pipeline: def.name, mode: 'repair', status, counts, durationMs: Date.now() - started, ...(error ? { error } : {}) };
  logger.info({ status, counts, ...result }, 'repair finished');
  deps.events?.emit({ type: 'run-finished', summary });
  return {
    runId,
    status,
    pushed: result.pushed,
    created: counts.created,
    updated: counts.updated,
    failed: counts.failed,
    deactivated: result.deactivated,
    deleted: result.deleted,
    ...(shopOnly ? { shopOnly } : {}),
    ...(error ? { error } : {}),
  };
}

/** Forget what stock was last sent to these records: the shop's figure is not known any more. */
async function forgetStockSent(state: PipelineDeps['state'], pipeline: string, recordKeys: readonly string[]): Promise<void> {
  const rows = [...(await state.stockSent.get(pipeline, recordKeys)).values()].flat();
  if (rows.length > 0) await state.stockSent.put(rows.map((r) => ({ ...r, sent: '' })));
}

/** Apply `onMissing` to the shop-only records; returns why some were left alone. */
async function retire(def: PipelineDefinition, deps: PipelineDeps, resource: ResourceDef, scratch: Scratch, o: RepairOptions, runId: number, counts: RunCounts, result: { deactivated: number; deleted: number; failedShopOnly: number }): Promise<string | undefined> {
  const action = def.options.onMissing;
  const all = [...scratch.shopOnly()];
  if (all.length === 0) return undefined;
  if (action === 'ignore') return `onMissing is ignore: ${all.length} shop record(s) without an ERP record were left alone`;
  const refusal = o.allowMassDelete ? undefined : massDeleteRefusal(def, action, all.length, o.shopRecords, all.slice(0, 10).map((s) => s.match));
  if (refusal) return `${refusal.code}: ${refusal.message.replace(`shopsync sync ${def.name} --allow-mass-delete`, `shopsync reconcile ${def.name} --repair --allow-mass-delete`)}`;
  for (let i = 0; i < all.length && !o.signal?.aborted; i += 1000) {
    const group: Candidate[] = [];
    for (const s of all.slice(i, i + 1000)) {
      const shopId = readShopId(s.shopId);
      // The reference (if shopsync knows the record) names its ERP key: that one is forgotten or marked.
      const [ref] = await deps.state.refs.byShopId(resource.name, shopId);
      group.push({ erpKey: ref?.erpKey ?? s.match, shopId });
    }
    const r = await act({ state: deps.state, shop: deps.shop, resource, pipeline: def.name, runId, counts, storePayloads: def.options.storePayloads, concurrency: def.options.concurrency, ...(deps.events ? { events: deps.events } : {}) }, action, group, def.batchSize);
    result.deactivated += r.deactivated;
    result.deleted += r.deleted;
    result.failedShopOnly += r.failed;
    if (r.fatal) return `stopped: [${r.fatal.code}] ${r.fatal.message}`;
  }
  return undefined;
}
