/**
 * Dead-letter handling: retry re-runs stored records through the *current* mapping (so a fixed
 * mapping or fixed reference data takes effect); drop removes letters for good.
 */
import { isSourceRefusal } from '../erp/types.js';
import { silentLogger } from '../log.js';
import { emptyCounts, type DeadLetter, type RunCounts } from '../state/index.js';
import { LETTER_RECORD_MAX, truncatedBytes } from '../state/rows.js';
import { openSink } from './pull.js';
import { PullDelivery } from './pullDelivery.js';
import type { PushInput } from './push/keys.js';
import { PushEngine } from './push/runner.js';
import { checkMapping, openProvider, parseDefinition, waitingFor } from './run.js';
import { DUPLICATE_KEY } from './push/duplicates.js';
import type { Logger } from '../log.js';
import type { Source } from '../erp/types.js';
import { holdOpen } from '../drain/index.js';
import { finishOwnRun, markCrashedRuns, runOwner } from './crashed.js';
import type { PipelineDefinition, PipelineDefinitionInput } from './schema.js';
import type { PipelineDeps, RunStatusFinal, RunSummary } from './types.js';

/** Which letters to act on. */
export interface DeadLetterSelection {
  /** Letter ids; absent = every letter of the pipeline. */
  readonly ids?: readonly number[];
}

/** Retry dead letters (push: into the shop; pull: into the sink) through the current mapping; letters that succeed are removed, others count another attempt. */
export async function retryDeadLetters(definition: PipelineDefinition | PipelineDefinitionInput, shared: PipelineDeps, selection: DeadLetterSelection = {}): Promise<RunSummary> {
  const def = parseDefinition(definition);
  const deps: PipelineDeps = { ...shared, state: shared.state.forShop(def.shop) };
  const resource = checkMapping(def, deps);
  const base = (deps.logger ?? silentLogger).child({ pipeline: def.name, mode: 'retry' });
  const { state } = deps;
  const started = Date.now();
  const letters = selection.ids
    ? (await Promise.all(selection.ids.map((id) => state.deadLetters.get(id)))).filter((l): l is DeadLetter => l !== undefined && l.pipeline === def.name)
    : await state.deadLetters.list({ pipeline: def.name, limit: 1_000_000 });
  const lock = await state.locks.acquire(def.name);
  let runId: number;
  let crashed: number;
  try {
    crashed = await markCrashedRuns(state, def.name, def.name, deps.events, runOwner(lock));
    runId = await state.runs.start({ pipeline: def.name, mode: 'retry', lane: def.name, owner: runOwner(lock) });
  } catch (err) {
    await lock.release();
    throw err;
  }
  const logger = base.child({ runId });
  if (crashed > 0) logger.warn({ crashed }, 'earlier run(s) of this pipeline stopped without finishing');
  deps.events?.emit({ type: 'run-started', runId, pipeline: def.name, mode: 'retry', lane: def.name, at: new Date(started).toISOString() });
  const counts: RunCounts = emptyCounts();
  let status: RunStatusFinal = 'succeeded';
  let error: { code: string; message: string } | undefined;
  const open = holdOpen('run', `retry run ${runId} of ${def.name}`, () => waitingFor(deps, counts));
  try {
    await open.race((async () => {
      if (def.direction === 'pull') {
        // The stored shop record goes through the current mapping into the sink, as a pull would deliver it.
        const { sink, close } = await openSink(def, deps, false);
        try {
          const delivery = new PullDelivery({ def, deps, resource, runId, counts, ...(sink ? { sink } : {}), resolveUnchanged: true });
          // A letter that kept only the start of its record has nothing to deliver: it stays, counted as failing again.
          const whole = letters.filter((l) => truncatedBytes(l.record) === undefined);
          const cut = letters.length - whole.length;
          if (cut > 0) {
            counts.read += cut;
            counts.deadLettered += cut;
            logger.warn({ letters: cut }, `${cut} letter(s) kept only the start of their record (over ${LETTER_RECORD_MAX} bytes); a retry cannot deliver them: the next sync reads them again once they change, or drop the letters`);
          }
          try {
            await delivery.prefetch(whole.map((l) => l.record), whole.map((l) => l.erpKey));
            for (const l of whole) {
              counts.read++;
              await delivery.accept({ ...l.record }, l.erpKey);
            }
            await delivery.flush();
          } finally {
            await delivery.close();
          }
        } finally {
          await close();
        }
      } else {
        // A duplicate key's letter holds one of its rows, maybe the one that lost: the source says which rows it holds now.
        const source = letters.some((l) => l.code === DUPLICATE_KEY) ? await openRowsSource(deps, logger) : undefined;
        try {
          const engine = new PushEngine({ def, resource, mapping: deps.mapping, state, shop: deps.shop, runId, dryRun: false, counts, logger, ...(deps.events ? { events: deps.events } : {}), ...(source?.value.rowsOf ? { source: source.value } : {}) });
          await engine.pushRecords(letters.map(retryInput));
          if (engine.fatal) {
            status = 'failed';
            error = { code: engine.fatal.code, message: engine.fatal.message };
          }
        } finally {
          if (source?.owned) await source.value.close();
        }
      }
    })());
    if (status === 'succeeded' && counts.deadLettered > 0) status = 'partial';
  } catch (err) {
    status = 'failed';
    error = { code: (err as { code?: string }).code ?? 'INTERNAL', message: err instanceof Error ? err.message : String(err) };
  } finally {
    open.close();
    try {
      // Taken over meanwhile (marked crashed by another process): not this process's to finish; finishOwnRun throws.
      await finishOwnRun(state, { id: runId, owner: runOwner(lock) }, status, counts, error, logger);
    } finally {
      await lock.release();
    }
  }
  const summary: RunSummary = { runId, pipeline: def.name, mode: 'retry', status, counts, durationMs: Date.now() - started, ...(error ? { error } : {}) };
  if (error) logger.error({ error }, 'dead-letter retry failed');
  logger.info({ status, counts, durationMs: summary.durationMs, letters: letters.length }, 'dead-letter retry finished');
  deps.events?.emit({ type: 'run-finished', summary });
  return summary;
}

/**
 * A letter as a retry takes it. One the source refused (no key, a broken row, an unreadable file)
 * holds the row as it was read, not a record: mapped, it failed as something else
 * (MAPPING_OUTPUT_INVALID for a row without a key) or, worse, went out without a key. It stays
 * refused, with its code, place and reason, and the reason says once what would deliver it.
 */
function retryInput(l: DeadLetter): PushInput {
  const record = { ...l.record };
  const cut = truncatedBytes(l.record);
  if (cut !== undefined) {
    // Only the start of the record was kept (issue 42 item 9): mapped, it would send a wrong record.
    const advice = `A retry cannot deliver it: the letter kept only the start of its record (${cut} bytes, more than the ${LETTER_RECORD_MAX} a letter keeps). Fix the record in the ERP (the next sync reads it again), or drop the letter`;
    const message = l.reason.endsWith(advice) ? l.reason : `${l.reason}. ${advice}`;
    return { erpKey: l.erpKey, record, refused: { code: l.code, message }, letterKey: l.erpKey, ...(l.origin ? { origin: l.origin } : {}) };
  }
  if (!isSourceRefusal(l.code)) return { erpKey: l.erpKey, record };
  const advice = l.origin?.file !== undefined
    ? `A retry cannot deliver it: the source refused it as it was read. Fix it in the ERP and deliver ${l.origin.file} again (a delivery read whole closes this letter), or drop the letter`
    : 'A retry cannot deliver it: the source refused it as it was read. Fix the row in the ERP (the next sync reads it again), or drop the letter';
  const message = l.reason.endsWith(advice) ? l.reason : `${l.reason}. ${advice}`;
  return { erpKey: l.erpKey, record, refused: { code: l.code, message }, letterKey: l.erpKey, ...(l.origin ? { origin: l.origin } : {}) };
}

/** The pipeline's source, to look duplicate keys up again; a retry without it still runs (the letters' own rows, judged among themselves). */
async function openRowsSource(deps: PipelineDeps, logger: Logger): Promise<{ value: Source; owned: boolean } | undefined> {
  if (deps.source === undefined) return undefined;
  try {
    return await openProvider<Source>(deps.source, 'source');
  } catch (err) {
    logger.warn({ err }, 'the source could not be opened to look duplicate keys up again; their letters are retried as they were stored');
    return undefined;
  }
}

/** Drop dead letters (by id, or every letter of the pipeline); returns how many went. */
export async function dropDeadLetters(state: PipelineDeps['state'], pipeline: string, selection: DeadLetterSelection = {}): Promise<number> {
  return state.deadLetters.drop(pipeline, selection.ids);
}
