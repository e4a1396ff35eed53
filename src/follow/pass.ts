/**
 * The follow pass (DESIGN-44 point 4): at the end of a sync run of a pull with `follow:`, when the
 * last pass is older than `every`, read the followed orders again — per placement day in pages or
 * each by id, whichever costs fewer requests — and deliver what changed through the run's own
 * delivery (mapping, hash, sink, settle). Days the run's delta read just now are skipped. Orders
 * placed before the age limit are no longer followed; open orders the shop no longer returns are
 * reported deleted. The pass time is kept in the pipeline's cursor lane `follow`.
 */
import type { Logger } from '../log.js';
import type { PullDelivery } from '../pipeline/pullDelivery.js';
import type { PipelineDefinition } from '../pipeline/schema.js';
import type { LaneRunOptions, PipelineDeps } from '../pipeline/types.js';
import type { FollowDef, ResourceDef } from '../shop/registry/types.js';
import type { RunCounts } from '../state/index.js';
import { addDays, chooseRead, daysFrom, type DayRead } from './days.js';
import type { FollowConfig } from './schema.js';

/** The cursor lane holding the last pass's time (ISO). */
export const FOLLOW_LANE = 'follow';

/** What a pass needs from its run. */
export interface FollowPassOptions {
  readonly pipeline: string;
  readonly config: FollowConfig;
  readonly resource: ResourceDef & { readonly follow: FollowDef };
  readonly deps: Pick<PipelineDeps, 'state' | 'shop'>;
  /** The run's delivery: records the pass reads go the same way as the delta's. */
  readonly delivery: PullDelivery;
  readonly counts: RunCounts;
  readonly logger: Logger;
  /** The shop's day now (YYYY-MM-DD). */
  readonly today: string;
  /** The first day the run's delta read (its filter's day); undefined: the delta read every day. */
  readonly deltaFromDay: string | undefined;
  readonly now: Date;
  readonly signal?: AbortSignal;
  readonly fence?: () => Promise<void>;
}

/** What one pass did, as its log line says. */
export interface FollowPassReport {
  /** Open rows before the pass (after ageing out). */
  readonly open: number;
  /** Records the pass read. */
  read: number;
  requests: number;
  /** Days read in pages and by id. */
  readonly days: { pages: number; ids: number };
  aged: number;
  deleted: number;
  /** The first pass of the pipeline (reads the whole age window: adoption). */
  readonly first: boolean;
}

/** What the end of a pull run hands over. */
export interface FollowRunContext {
  readonly def: PipelineDefinition;
  readonly deps: Pick<PipelineDeps, 'state' | 'shop'>;
  readonly resource: ResourceDef;
  readonly delivery: PullDelivery;
  readonly o: Pick<LaneRunOptions, 'counts' | 'logger' | 'signal' | 'fence'>;
  /** The shop's day at the run's start. */
  readonly today: string;
  /** The export filters the run's delta read with. */
  readonly deltaFilters: Readonly<Record<string, string | number>>;
  readonly started: Date;
}

/** At the end of a sync run: the follow pass of a pipeline with `follow:`, when due. */
export async function followDue(c: FollowRunContext): Promise<FollowPassReport | undefined> {
  const follow = c.resource.follow;
  if (!c.def.follow || !follow) return undefined;
  const delta = c.resource.ops.export?.delta;
  const from = delta ? c.deltaFilters[delta.param] : undefined;
  // The delta's filter on the placement date read its days from `from` on; a delta on another field read no day of it (the pass reads up to today).
  const deltaFromDay = from === undefined ? undefined : delta?.recordField === follow.placedAt ? String(from).slice(0, 10) : addDays(c.today, 1);
  return followPass({
    pipeline: c.def.name,
    config: c.def.follow,
    resource: { ...c.resource, follow },
    deps: c.deps,
    delivery: c.delivery,
    counts: c.o.counts,
    logger: c.o.logger,
    today: c.today,
    deltaFromDay,
    now: c.started,
    ...(c.o.signal ? { signal: c.o.signal } : {}),
    ...(c.o.fence ? { fence: c.o.fence } : {}),
  });
}

/** Run the pass if it is due; answers its report, or undefined when the last pass is recent enough. */
export async function followPass(o: FollowPassOptions): Promise<FollowPassReport | undefined> {
  const { state } = o.deps;
  const stored = await state.cursors.get(o.pipeline, FOLLOW_LANE);
  const last = typeof stored?.value === 'string' ? Date.parse(stored.value) : undefined;
  // A last pass in the future (the clock was stepped back since) is no reason to wait: the pass would stop until the clock catches up.
  if (last !== undefined && Number.isFinite(last) && o.now.getTime() >= last && o.now.getTime() - last < o.config.every) return undefined;
  const at = o.now.toISOString();
  const oldest = addDays(o.today, -o.config.maxAgeDays);
  const aged = await state.followed.ageOut(o.pipeline, oldest, at);
  // The days the delta just read are not read again; without a delta filter it read them all.
  const upTo = o.deltaFromDay ?? oldest;
  const openDays = await state.followed.openDays(o.pipeline, { fromDay: oldest, toDay: upTo });
  const first = stored === undefined;
  const pageSize = o.resource.ops.export?.paging.maxLimit ?? 250;
  // The first pass reads every day of the window in pages: orders delivered before `follow:` was on are adopted.
  const reads: (DayRead & { open: readonly string[] })[] = first
    ? daysFrom(oldest, upTo).map((day) => ({ day, how: 'pages' as const, requests: 1, open: openDays.find((d) => d.day === day)?.open ?? [] }))
    : openDays.map((d) => ({ ...chooseRead(d, pageSize), open: d.open }));
  const report: FollowPassReport = { open: openDays.reduce((n, d) => n + d.open.length, 0), read: 0, requests: 0, days: { pages: 0, ids: 0 }, aged: aged.length, deleted: 0, first };
  const gone: string[] = [];
  for (const read of reads) {
    if (o.signal?.aborted) break;
    const returned = read.how === 'pages' ? await readDay(o, read.day, pageSize, report) : await readIds(o, read.open, report);
    report.days[read.how]++;
    for (const key of read.open) if (!returned.has(key)) gone.push(key);
  }
  await o.delivery.flush();
  if (o.signal?.aborted) return report;
  if (gone.length > 0) await deleted(o, gone, at, report);
  await o.fence?.();
  await state.cursors.set(o.pipeline, FOLLOW_LANE, { value: at, key: null });
  const tally = o.delivery.followed;
  // `changed`/`done` count the whole run (the delta's reads deliver changes of recent orders too).
  o.logger.info({ followed: { open: report.open, read: report.read, changed: tally.changed, done: tally.done + report.aged + report.deleted, adopted: tally.adopted, deleted: report.deleted, aged: report.aged, requests: report.requests, days: report.days, first } }, first ? `first follow pass: read ${reads.length} day(s) of the age window in pages (a one-time cost) to follow the orders delivered before` : 'follow pass');
  return report;
}

/** Read one placement day in pages; answers the keys returned. */
async function readDay(o: FollowPassOptions, day: string, pageSize: number, report: FollowPassReport): Promise<Set<string>> {
  const { byDay } = o.resource.follow;
  const keys = new Set<string>();
  for await (const page of o.deps.shop.exportPages(o.resource.name as never, { filters: { [byDay.from]: day, [byDay.to]: day }, pageSize, ...(o.signal ? { signal: o.signal } : {}) })) {
    count(o, report);
    await deliver(o, page.records, keys, report);
    if (o.signal?.aborted) break;
  }
  return keys;
}

/** Read open records one by one by id (the export's id filter; whether it takes a list is not shown: docs/spec-gaps.md). */
async function readIds(o: FollowPassOptions, open: readonly string[], report: FollowPassReport): Promise<Set<string>> {
  const keys = new Set<string>();
  let ignored = 0;
  for (const id of open) {
    if (o.signal?.aborted) break;
    // One request: the first page of the filtered export holds the record or nothing.
    for await (const page of o.deps.shop.exportPages(o.resource.name as never, { filters: { [o.resource.follow.byId]: id }, pageSize: 1, ...(o.signal ? { signal: o.signal } : {}) })) {
      count(o, report);
      const mine = page.records.filter((r) => o.delivery.keyOf(r) === id);
      // Another record in the answer: the shop did not apply the id filter, so its absence proves no deletion.
      if (mine.length < page.records.length) {
        keys.add(id);
        ignored++;
      }
      await deliver(o, mine, keys, report);
      break;
    }
  }
  if (ignored > 0) {
    o.counts.warnings++;
    o.logger.warn({ filter: o.resource.follow.byId, records: ignored }, `the shop answered the ${o.resource.name} export filtered by ${o.resource.follow.byId} with other records: it seems not to apply that filter, so these orders are not followed by id (nor reported deleted); tell the shop's maintainer (docs/spec-gaps.md)`);
  }
  return keys;
}

function count(o: FollowPassOptions, report: FollowPassReport): void {
  o.counts.requests++;
  report.requests++;
}

async function deliver(o: FollowPassOptions, records: readonly Record<string, unknown>[], keys: Set<string>, report: FollowPassReport): Promise<void> {
  await o.delivery.prefetch(records);
  for (const record of records) {
    const key = o.delivery.keyOf(record);
    keys.add(key);
    o.counts.read++;
    report.read++;
    await o.delivery.accept(record, key);
  }
}

/** Open orders the shop no longer returns: reported, no longer followed, their reservations released. */
async function deleted(o: FollowPassOptions, keys: readonly string[], at: string, report: FollowPassReport): Promise<void> {
  const { state } = o.deps;
  await state.followed.finish(o.pipeline, keys, 'deleted', at);
  report.deleted = keys.length;
  o.counts.warnings += keys.length;
  o.logger.warn({ keys: keys.slice(0, 50), count: keys.length, resource: o.resource.name }, `${keys.length} followed ${o.resource.name} the shop no longer returns (deleted in the shop); they are no longer followed and their reservations are released. The ERP still holds them as last delivered: cancel them there if that is what the deletion meant`);
  const ids = keys.map(Number).filter(Number.isFinite);
  if (o.resource.books && ids.length > 0) await state.reservations.release(state.shop, ids, at);
}
