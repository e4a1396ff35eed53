/**
 * `runPipeline`: take the lane's lock, record the run, push or pull, and always leave the state
 * consistent: a crash at any moment leaves a cursor at or before the first unsettled record.
 */
import { lookupProblems } from './lookups/resolver.js';
import { AbortedError, ConfigError, errorCode, SyncError } from '../errors.js';
import { holdOpen } from '../drain/index.js';
import { finishOwnRun, markCrashedRuns, progressOf, runOwner } from './crashed.js';
import { finishRun, runStarted } from './finish.js';
import { closeSettledFileLetters } from './fileLetters.js';
import { checkedColumns } from './sourceColumns.js';
import { silentLogger } from '../log.js';
import { getResource, type ResourceDef } from '../shop/registry/index.js';
import { emptyCounts, type LockHandle, type RunCounts } from '../state/index.js';
import type { CursorPosition, Sink, Source, SourceWatermark } from '../erp/types.js';
import { pipelineSchema, type PipelineDefinition, type PipelineDefinitionInput } from './schema.js';
import { PushEngine } from './push/runner.js';
import { pullRun } from './pull.js';
import { LowWaterMark } from './watermark.js';
import { naiveOffsetOf } from './latency.js';
import { alignStart } from './cursorForm.js';
import { capOf, readWatermark, WATERMARK_LANE, watermarkRow } from './sourceWatermark.js';
import { reportExhausted, waitingLetters } from './waitingLetters.js';
import { handleMissing, ReadTally } from './missing/index.js';
import { StockPush } from '../reservations/push.js';
import { sendTaken } from '../conflicts/taken.js';
import type { LaneRunOptions, MissingReport, PipelineDeps, RunOptions, RunRange, RunStatusFinal, RunSummary, SinkProvider, SourceProvider } from './types.js';

const HEARTBEAT_MS = 15_000;
/**
 * How long a confirmation that this process still holds the lane lets requests leave without
 * asking again. Measured on the monotonic clock, which runs on while a process is frozen: a
 * process resumed after a freeze finds its confirmation old and asks the lock before its next
 * request, instead of writing to the shop for a lane another process took meanwhile.
 */
const FENCE_FRESH_MS = 1000;

/** A stable id for a backfill range, used in its lane and checkpoint names. */
export function rangeId(range: RunRange | undefined): string {
  return `${range?.from ?? ''}..${range?.to ?? ''}`;
}

/** Validate a definition (already-parsed definitions pass through unchanged). */
export function parseDefinition(def: PipelineDefinition | PipelineDefinitionInput): PipelineDefinition {
  // Once per run (the config was validated already): generating zod's compiled fast path would cost more than the parse.
  const parsed = pipelineSchema.safeParse(def, { jitless: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`pipeline ${(def as { name?: string }).name ?? '(unnamed)'}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`, { key: issue?.path.join('.') });
  }
  return parsed.data;
}

/** Check that the mapping fits the pipeline (direction and resource). */
export function checkMapping(def: PipelineDefinition, deps: PipelineDeps): ResourceDef {
  const resource = getResource(def.resource);
  const wanted = def.direction === 'push' ? 'erp-to-shop' : 'shop-to-erp';
  if (deps.mapping.direction !== wanted) {
    throw new ConfigError(`pipeline ${def.name} is a ${def.direction} but mapping ${deps.mapping.name} (${deps.mapping.file}) maps ${deps.mapping.direction}; use a ${wanted} mapping`, { file: deps.mapping.file });
  }
  if (deps.mapping.resource !== undefined && deps.mapping.resource !== def.resource) {
    throw new ConfigError(`pipeline ${def.name} writes ${def.resource} but mapping ${deps.mapping.name} targets ${deps.mapping.resource}`, { file: deps.mapping.file });
  }
  const [unknownLookup] = lookupProblems(def.name, def.lookups, deps.mapping.erpLookups, deps.mapping.file);
  if (unknownLookup) throw new ConfigError(unknownLookup, { file: deps.mapping.file });
  return resource;
}

/** A source or sink provider opened; `owned` when this call opened it (and must close it). */
export async function openProvider<T extends Source | Sink>(provider: SourceProvider | SinkProvider | undefined, what: string): Promise<{ value: T; owned: boolean }> {
  if (provider === undefined) throw new ConfigError(`the pipeline needs a ${what}`);
  if (typeof provider === 'function') return { value: (await provider()) as T, owned: true };
  return { value: provider as T, owned: false };
}

/** Run a pipeline once: `sync` (incremental), `backfill` (explicit range) or `dry-run` (writes nothing). */
export async function runPipeline(definition: PipelineDefinition | PipelineDefinitionInput, shared: PipelineDeps, options: RunOptions = {}): Promise<RunSummary> {
  const def = parseDefinition(definition);
  // Everything the run reads and writes is the pipeline's shop's: references, intents, history entries.
  const deps: PipelineDeps = { ...shared, state: shared.state.forShop(def.shop) };
  const mode = options.mode ?? 'sync';
  const resource = checkMapping(def, deps);
  const base = (deps.logger ?? silentLogger).child({ pipeline: def.name, mode });
  // Every line of a run names it; a dry run writes no run row and logs as run 0.
  let logger = base.child({ runId: 0 });
  const started = Date.now();
  // The finer clock of shared reads: what other pipelines read after this moment is as fresh as this run needs.
  const since = performance.timeOrigin + performance.now();
  const dryRun = mode === 'dry-run';
  const lane = mode === 'backfill' ? `${def.name}#backfill:${rangeId(options.range)}` : def.name;
  const cursorName = mode === 'backfill' ? `backfill:${rangeId(options.range)}` : 'incremental';
  if (mode === 'backfill' && options.range === undefined) throw new ConfigError(`a backfill of ${def.name} needs a range {from, to}`);

  let lock: LockHandle | undefined;
  let owner = '';
  let runId = 0;
  if (!dryRun) {
    lock = await deps.state.locks.acquire(lane);
    owner = runOwner(lock);
    try {
      const crashed = await markCrashedRuns(deps.state, lane, def.name, deps.events, owner);
      runId = await deps.state.runs.start({ pipeline: def.name, mode, lane, owner, ...(options.range ? { range: { ...options.range } } : {}) });
      runStarted(shared.state, runId, def.name);
      logger = base.child({ runId });
      if (crashed > 0) logger.warn({ crashed }, 'earlier run(s) of this pipeline stopped without finishing; resuming from the last checkpoint');
    } catch (err) {
      await lock.release();
      throw err;
    }
  }
  deps.events?.emit({ type: 'run-started', runId, pipeline: def.name, mode, lane, at: new Date(started).toISOString() });
  const counts: RunCounts = emptyCounts();
  let heartbeat: NodeJS.Timeout | undefined;
  let status: RunStatusFinal = 'succeeded';
  let error: { code: string; message: string } | undefined;
  let plan: RunSummary['plan'];
  // A run whose lane lock is lost stops at its next checkpoint: another process may own the lane now.
  const lockLost = new AbortController();
  let lostBecause: unknown;
  const signal = options.signal ? AbortSignal.any([options.signal, lockLost.signal]) : lockLost.signal;
  let missing: MissingReport | undefined;
  let watermark: SourceWatermark | undefined;
  // Until it is finished, this run keeps the process from ending quietly (src/drain).
  const open = holdOpen('run', dryRun ? `the dry run of ${def.name}` : `run ${runId} of ${def.name} (${mode})`, () => waitingFor(deps, counts));
  // One lock check at a time (the lock's PostgreSQL session takes one query at a time), shared by the heartbeat and the fence.
  let confirmedAt = performance.now();
  let checking: Promise<void> | undefined;
  const checkLock = (): Promise<void> => {
    const held = lock;
    if (!held) return Promise.resolve();
    checking ??= held
      .heartbeat()
      .then(
        () => {
          confirmedAt = performance.now();
        },
        (err: unknown) => {
          if (lostBecause === undefined) logger.error({ err }, 'lost the pipeline lock; the run stops at its next checkpoint');
          lostBecause ??= err;
          lockLost.abort(err);
          throw err;
        },
      )
      .finally(() => {
        checking = undefined;
      });
    return checking;
  };
  // Before a request leaves and before the cursor's final move: this process must still hold the lane.
  const fence = async (): Promise<void> => {
    if (lostBecause !== undefined) throw lostBecause;
    if (performance.now() - confirmedAt < FENCE_FRESH_MS) return;
    await checkLock();
  };
  try {
    if (lock) {
      heartbeat = setInterval(() => {
        checkLock().catch(() => undefined);
      }, options.heartbeatMs ?? HEARTBEAT_MS);
      heartbeat.unref();
    }
    if (def.direction === 'push') {
      const complete = options.complete === true || options.allowMassDelete === true;
      const result = await open.race(pushRun(def, deps, resource, { runId, mode, cursorName, counts, range: options.range, signal, logger, complete, allowMassDelete: options.allowMassDelete === true, since, ...(lock ? { fence } : {}) }));
      plan = result.plan;
      missing = result.missing;
      watermark = result.watermark;
      if (result.fatal) {
        status = 'failed';
        error = { code: result.fatal.code, message: result.fatal.message };
      } else if (missing?.refused) {
        // The push itself went through; the refused step waits for a person (alert, --allow-mass-delete).
        status = 'partial';
        error = { code: missing.refused.code, message: missing.refused.message };
      }
    } else {
      plan = await open.race(pullRun(def, deps, resource, { runId, mode, cursorName, counts, range: options.range, signal, logger, ...(lock ? { fence } : {}) }));
    }
    if (status === 'succeeded' && options.signal?.aborted) status = 'aborted';
    if (lostBecause !== undefined && status !== 'failed') {
      status = 'failed';
      error = { code: errorCode(lostBecause), message: lostBecause instanceof Error ? lostBecause.message : String(lostBecause) };
    }
    // A record that failed is never a success, in a dry run (nothing was dead-lettered) as in a real one.
    if (status === 'succeeded' && (counts.deadLettered > 0 || counts.failed > 0 || (missing?.failed ?? 0) > 0)) status = 'partial';
  } catch (err) {
    const cause = lostBecause ?? err;
    status = err instanceof AbortedError && lostBecause === undefined ? 'aborted' : 'failed';
    error = { code: errorCode(cause), message: cause instanceof SyncError || cause instanceof Error ? cause.message : String(cause) };
    logger.error({ err: cause }, 'run failed');
  } finally {
    open.close();
    if (heartbeat) clearInterval(heartbeat);
    // A lock check still under way ends first: the release goes over the same session.
    await checking?.catch(() => undefined);
    if (!dryRun) {
      try {
        // Retried while the state refuses it (a restart): a run must not stay `running` there while this process goes on.
        // A run another process took over (marked crashed) is not this process's to finish: finishOwnRun throws, and that is not retried.
        const finalWrite = () => finishOwnRun(deps.state, { id: runId, owner }, status, counts, error, logger);
        await finishRun(runId, status, finalWrite, { logger, giveUpAfterMs: options.finishRetryMs ?? 30_000, ...(options.signal ? { signal: options.signal } : {}) });
      } finally {
        await lock?.release().catch((err: unknown) => logger.warn({ err }, 'the pipeline lock could not be released (its session is gone, so the server released it)'));
      }
    }
  }
  const summary: RunSummary = { runId, pipeline: def.name, mode, status, counts, durationMs: Date.now() - started, ...(plan ? { plan } : {}), ...(error ? { error } : {}), ...(missing ? { missing } : {}), ...(watermark ? { watermark } : {}) };
  logger.info({ status, counts, durationMs: summary.durationMs }, 'run finished');
  deps.events?.emit({ type: 'run-finished', summary });
  return summary;
}

/** What an open run waits for, as far as this process can tell: the shop's queue and how far it got. */
export function waitingFor(deps: PipelineDeps, counts: Readonly<RunCounts>): string {
  const depth = deps.shop.queueDepth();
  const queue = depth.size + depth.pending > 0 ? `it waited for ${depth.size} queued shop request(s) and ${depth.pending} started but unanswered` : 'no shop request was queued, so it waited on the source, the sink or the state';
  return `${queue}; so far ${progressOf({ counts })}`;
}

/** A pipeline that acts on records gone from the ERP needs a mapping that brings a returning record back. */
function checkMissingSetup(def: PipelineDefinition, deps: PipelineDeps, resource: ResourceDef): void {
  if (def.options.onMissing === 'ignore') return;
  if (deps.mapping.recordKey) throw new ConfigError(`pipeline ${def.name}: onMissing needs one source record per ERP key, but mapping ${deps.mapping.name} declares row_key`, { file: deps.mapping.file });
  const field = resource.deactivate?.field;
  if (def.options.onMissing === 'deactivate' && field && deps.mapping.targets && !deps.mapping.targets.includes(field)) {
    throw new ConfigError(`pipeline ${def.name} deactivates ${resource.name} that leave the ERP (onMissing: deactivate), but mapping ${deps.mapping.name} does not write ${field}: a record that comes back would stay inactive. Map it, e.g. \`${field}: { value: 1 }\` or from the ERP's active flag`, { file: deps.mapping.file });
  }
}

async function pushRun(def: PipelineDefinition, deps: PipelineDeps, resource: ResourceDef, o: LaneRunOptions) {
  const dryRun = o.mode === 'dry-run';
  checkMissingSetup(def, deps, resource);
  const { value: source, owned } = await openProvider<Source>(deps.source, 'source');
  try {
    const stored = await deps.state.cursors.get(def.name, o.cursorName);
    // A complete read starts at the beginning; its checkpoints may move the cursor back, which only re-reads.
    const fromStart = o.complete === true && o.mode !== 'backfill';
    // The start values written like the cursor column's own values: a stored cursor or a --from in another form compares wrongly as text (cursorForm.ts).
    const start = await alignStart(source, {
      pipeline: def.name,
      ...(cursorColumnOf(def) ? { cursorColumn: cursorColumnOf(def) } : {}),
      ...(stored && !fromStart ? { stored: { value: stored.value, key: stored.key } } : {}),
      ...(o.mode === 'backfill' && o.range?.from !== undefined && o.range.from !== null ? { from: o.range.from } : {}),
      ...(o.mode === 'backfill' && o.range?.to !== undefined ? { until: o.range.to } : {}),
    }, o.logger);
    if (start.rewritten && !dryRun) await deps.state.cursors.set(def.name, o.cursorName, { value: start.rewritten.value, key: start.rewritten.key });
    const after: CursorPosition | undefined = start.after;
    // Only an incremental read from the stored cursor looks back for rows committed late; a backfill reads its range as given.
    const lookBack = o.mode === 'sync' && stored !== undefined && !fromStart;
    const open = await deps.state.intents.list(def.name);
    if (open.length > 0) o.logger.warn({ intents: open.length }, 'creates of the last run were interrupted; their records are re-read and looked up in the shop (id, shop key, natural key) before anything is created again');
    // Asked before the rows are read: a transaction open now may commit rows behind what this run reads.
    const safe = o.mode === 'sync' ? await readWatermark(source, def.name, o.logger) : undefined;
    if (safe) await deps.state.cursors.set(def.name, WATERMARK_LANE, watermarkRow(safe));
    const watermark = new LowWaterMark(after, capOf(safe, after));
    // Stock pipelines read the shop's orders first: what they booked and the ERP has not comes off the ERP's figures.
    const stock = await StockPush.open({ def, resource, mapping: deps.mapping, state: deps.state, shop: deps.shop, logger: o.logger, dryRun, ...(deps.lookups ? { lookups: deps.lookups } : {}) });
    const engine = new PushEngine({
      def,
      resource,
      mapping: deps.mapping,
      state: deps.state,
      shop: deps.shop,
      runId: o.runId,
      dryRun,
      counts: o.counts,
      logger: o.logger,
      ...(deps.events ? { events: deps.events } : {}),
      ...(dryRun ? {} : { cursorName: o.cursorName, watermark }),
      ...(o.fence ? { fence: o.fence } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(lookBack && after ? { readAgainUpTo: after } : {}),
      ...(source.rowsOf ? { source } : {}),
      ...(stock ? { stock } : {}),
      // Only changes read after a stored cursor measure the sync: a first sync, a backfill or a complete read delivers records changed long ago.
      ...(lookBack && !dryRun ? { changeLatency: { naiveOffsetMs: naiveOffsetOf(safe) ?? 0 } } : {}),
    });
    // Conflicts a person resolved "take ERP" go out first: an incremental read would not read their unchanged records again (src/conflicts/taken.ts).
    if (o.mode === 'sync' && (deps.mapping.owners?.guard.length ?? 0) > 0) {
      await sendTaken({ pipeline: def.name, resource, state: deps.state, shop: deps.shop, runId: o.runId, counts: o.counts, logger: o.logger, batchSize: def.batchSize, storePayloads: def.options.storePayloads, ...(o.fence ? { fence: o.fence } : {}), ...(o.signal ? { signal: o.signal } : {}) });
    }
    // Articles whose last write may have overwritten a shop order read only now go out again first, with ERP − unbooked.
    const corrections = await stock?.corrections(source);
    if (corrections && corrections.length > 0) await engine.acceptRecords(corrections);
    // Letters that only wait for another record (the article a stock update targets, a manufacturer) are tried again by sync runs once their back-off is over, before the source's newer versions.
    const due = o.mode === 'sync' ? await waitingLetters(deps.state, def.name) : undefined;
    if (due) {
      if (due.letters.length > 0) o.logger.info({ letters: due.letters.length, backingOff: due.backingOff }, 'dead letters that waited for another record are tried again');
      else if (due.backingOff > 0) o.logger.debug({ backingOff: due.backingOff }, 'dead letters that wait for another record back off; a later sync tries them');
      await engine.acceptRecords(due.letters);
    }
    const until = o.mode === 'backfill' ? start.until : undefined;
    const tally = new ReadTally(def.options.inactiveWhen, o.counts, def.options.onMissing !== 'ignore');
    const read = source.read({ ...(after ? { after } : {}), ...(until !== undefined ? { until } : {}), pageSize: def.options.pageSize, ...(o.since !== undefined ? { since: o.since } : {}), ...(o.signal ? { signal: o.signal } : {}), ...(dryRun ? { readOnly: true } : {}), ...(lookBack ? { lookBack } : {}) });
    // A column the mapping reads and the source lacks fails here, before anything is written.
    await engine.pushStream(tally.watch(checkedColumns(read, deps.mapping, source.kind)));
    if (due) await reportExhausted(deps.state, def.name, due.lastTries, o.logger);
    await stock?.finish();
    const { rechecked, late } = engine.lookback;
    if (late > 0) o.logger.info({ late, rechecked }, 'the lookback found records committed after the cursor had passed their time (a long transaction, a clock behind); they were delivered now');
    else if (rechecked > 0) o.logger.debug({ rechecked }, 'records read again by the lookback were unchanged');
    const position = watermark.position;
    if (!dryRun && position && !engine.fatal) {
      await o.fence?.();
      if (o.mode === 'backfill' && !o.signal?.aborted) await deps.state.cursors.set(def.name, o.cursorName, { value: position.value, key: position.key, boundary: { finished: true } });
      // Settles that committed side by side each wrote the mark as they knew it; everything has committed now, so the cursor takes the final one.
      else if (position !== after) await deps.state.cursors.set(def.name, o.cursorName, { value: position.value, key: position.key });
      const committed = await source.commit?.(position);
      if (committed?.settledFiles) await closeSettledFileLetters(deps.state, def.name, o.runId, committed.settledFiles, o.logger);
    }
    let missing: Awaited<ReturnType<typeof handleMissing>>;
    if (!engine.fatal && !o.signal?.aborted) {
      const incomplete = incompleteRead(def, source, o, after, tally);
      missing = await handleMissing(
        { def, resource, state: deps.state, shop: deps.shop, runId: o.runId, dryRun, counts: o.counts, plan: engine.plan, logger: o.logger, ...(deps.events ? { events: deps.events } : {}), ...(o.signal ? { signal: o.signal } : {}) },
        { tally, ...(incomplete ? { incomplete } : {}), allowMassDelete: o.allowMassDelete === true },
      );
    }
    const { fatal: missingFatal, ...report } = missing ?? { fatal: undefined };
    return { plan: dryRun ? engine.plan : undefined, fatal: engine.fatal ?? missingFatal, missing: missing ? (report as MissingReport) : undefined, watermark: safe };
  } finally {
    if (owned) await source.close();
  }
}

/** The cursor column a pipeline's source names, for messages (files and HTTP sources may have none). */
function cursorColumnOf(def: PipelineDefinition): string | undefined {
  const c = (def.source as { cursor?: unknown } | undefined)?.cursor;
  return typeof c === 'string' ? c : undefined;
}

/** Why this read cannot tell which records left the ERP; undefined when it read everything. */
function incompleteRead(def: PipelineDefinition, source: Source, o: LaneRunOptions, after: CursorPosition | undefined, tally: ReadTally): string | undefined {
  if (o.mode === 'backfill') return 'a backfill reads a range, not the whole source';
  if (!source.readsAll) return `a ${source.kind} source holds only what was dropped into it, never the whole catalog`;
  if (after) return `an incremental read (from the cursor); \`shopsync sync ${def.name} --complete\` or completeSchedule reads everything`;
  if (tally.unkeyed > 0) return `${tally.unkeyed} source row(s) had no key: a record behind one of them may still be in the ERP`;
  return undefined;
}
