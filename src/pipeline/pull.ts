/**
 * Pull (shop → ERP): export with the resource's delta filter where it has one, re-reading the
 * boundary (a day-granular filter re-reads the whole last day), drop records already delivered by
 * key and content hash, write to the sink in batches, and save the cursor only after the sink
 * committed everything the export returned. Resources without a delta filter are scanned in
 * full and diffed by hash.
 */
import { ConfigError } from '../errors.js';
import type { Sink } from '../erp/types.js';
import type { ResourceDef } from '../shop/registry/index.js';
import { deltaCeiling, deltaFilterValue, deltaFuture } from './delta.js';
import { followDue } from '../follow/pass.js';
import { PullDelivery } from './pullDelivery.js';
import { checkRestore } from './rewind.js';
import type { PipelineDefinition } from './schema.js';
import type { LaneRunOptions, PipelineDeps, PlannedRecord, RunRange } from './types.js';

export { deltaCeiling, deltaFilterValue } from './delta.js';

/** Export filters of this run: the delta since the cursor, or a backfill range. */
function exportFilters(def: PipelineDefinition, resource: ResourceDef, stored: string | undefined, range: RunRange | undefined): Record<string, string | number> {
  const delta = resource.ops.export?.delta;
  const filters: Record<string, string | number> = {};
  if (range) {
    if (!delta) throw new ConfigError(`${resource.name} has no date filter for a backfill range; back-fill it by id range with a push, or run a full pull`);
    if (range.from !== undefined && range.from !== null) filters[delta.param] = String(range.from);
    const upper = delta.param === 'date_from' && resource.ops.export?.filters.date_to ? 'date_to' : undefined;
    if (upper && range.to !== undefined && range.to !== null) filters[upper] = String(range.to);
    return filters;
  }
  if (delta && stored) filters[delta.param] = deltaFilterValue(stored, delta.granularity, def.options.overlapDays);
  return filters;
}

/** Run a pull; returns the dry-run plan when in dry-run mode. */
export async function pullRun(def: PipelineDefinition, deps: PipelineDeps, resource: ResourceDef, o: LaneRunOptions): Promise<PlannedRecord[] | undefined> {
  const dryRun = o.mode === 'dry-run';
  const { state, shop } = deps;
  // Before the sink is opened or anything is read: a restored state nobody accepted delivers nothing.
  if (!dryRun) await checkRestore(state, def.name);
  const { sink, close } = await openSink(def, deps, dryRun);
  let closeDelivery = async (): Promise<void> => {};
  try {
    const delta = resource.ops.export?.delta;
    const started = new Date();
    const ceiling = deltaCeiling(started, def.options.shopTimeZone);
    const future = deltaFuture(started, def.options.shopTimeZone);
    const stored = await state.cursors.get(def.name, o.cursorName);
    const storedValue = typeof stored?.value === 'string' ? stored.value : undefined;
    // A value stored in the future (by a version without the ceiling) is read back from the ceiling too.
    const fromValue = storedValue !== undefined && storedValue > ceiling ? ceiling : storedValue;
    let maxValue = fromValue;
    let ahead = 0;
    const delivery = new PullDelivery({ def, deps, resource, runId: o.runId, counts: o.counts, ...(sink ? { sink } : {}) });
    closeDelivery = () => delivery.close();
    const handle = async (record: Record<string, unknown>): Promise<void> => {
      o.counts.read++;
      let inFuture = false;
      if (delta) {
        let v = record[delta.recordField];
        if (typeof v === 'string' && v > ceiling) {
          inFuture = v > future;
          v = ceiling;
        }
        if (typeof v === 'string' && v !== '' && (maxValue === undefined || v > maxValue)) maxValue = v;
      }
      // Reported when delivered, not on every re-read until its date comes.
      if ((await delivery.accept(record)) && inFuture) ahead++;
    };

    const range = o.mode === 'backfill' ? o.range : undefined;
    if (range && resource.ops.range && typeof range.from === 'number' && typeof range.to === 'number') {
      // Id-range backfill ({start}:{end} export): chunk by chunk, each chunk's checkpoint saved after the sink committed it.
      const chunk = resource.ops.export?.paging.maxLimit ?? 250;
      let start = typeof stored?.value === 'number' ? stored.value + 1 : range.from;
      while (start <= range.to && !o.signal?.aborted) {
        const end = Math.min(start + chunk - 1, range.to);
        const records = await shop.exportRange(resource.name as never, start, end);
        o.counts.requests++;
        await delivery.prefetch(records);
        for (const record of records) await handle(record);
        await delivery.flush();
        if (!dryRun) {
          await o.fence?.();
          await state.cursors.set(def.name, o.cursorName, { value: end, key: null, boundary: { finished: end >= range.to } });
        }
        start = end + 1;
      }
      return dryRun ? delivery.plan : undefined;
    }
    const filters = exportFilters(def, resource, fromValue, range);
    for await (const page of shop.exportPages(resource.name as never, { filters, ...(o.signal ? { signal: o.signal } : {}) })) {
      o.counts.requests++;
      await delivery.prefetch(page.records);
      for (const record of page.records) await handle(record);
      if (o.signal?.aborted) break;
    }
    await delivery.flush();
    if (ahead > 0) o.logger.warn({ records: ahead, field: delta?.recordField, cursorCeiling: ceiling }, 'records dated in the future (bad data or a shop clock running ahead) were delivered; the cursor stays at the run start so newer records stay visible, and their hashes keep them from being delivered twice');
    // Only now, with everything the export returned durable in the sink, may the cursor move.
    if (!dryRun && !o.signal?.aborted && o.mode !== 'backfill' && delta && maxValue !== undefined && maxValue !== storedValue) {
      await o.fence?.();
      await state.cursors.set(def.name, o.cursorName, { value: maxValue, key: null });
    }
    // Everything since the cursor was read and delivered: the state knows its deliveries again.
    if (!dryRun && !o.signal?.aborted && o.mode === 'sync') await state.rewinds.caughtUp(def.name);
    // Orders after checkout: the delivered ones are read again until they are done (`follow:`).
    if (!dryRun && !o.signal?.aborted && o.mode === 'sync') await followDue({ def, deps, resource, delivery, o, today: ceiling.slice(0, 10), deltaFilters: filters, started });
    return dryRun ? delivery.plan : undefined;
  } finally {
    await closeDelivery();
    await close();
  }
}

/** The pipeline's sink (none in a dry run) and how to release it: a factory's sink is closed after the run. */
export async function openSink(def: PipelineDefinition, deps: PipelineDeps, dryRun: boolean): Promise<{ sink?: Sink; close(): Promise<void> }> {
  if (!deps.sink) throw new ConfigError(`pull pipeline ${def.name} needs a sink`);
  if (dryRun) return { close: async () => {} };
  if (typeof deps.sink !== 'function') return { sink: deps.sink, close: async () => {} };
  const sink = await deps.sink();
  return { sink, close: () => sink.close() };
}
