/**
 * What `shopsync status` prints (the command and its options are in ./status.ts): every pipeline's
 * last run, cursor, next run, dead letters and open conflicts, whether it is failing, and the shops
 * broken, paused or failing. Loaded when the command runs, with the state's and the scheduler's code.
 */
import { hostname } from 'node:os';
import { nextOccurrence, scheduleZone } from '../../scheduler/index.js';
import { processAlive, type StateStore } from '../../state/index.js';
import { asSeen } from '../../pipeline/crashed.js';
import { DEFAULT_STALE_AFTER_MINUTES, failingFirst, failingReasons, shopPauseOf, shopStreakView, type FailingReason, type ShopPause, type ShopStreakView } from '../../pipeline/failing.js';
import { EXIT } from '../exit.js';
import { WATERMARK_LANE, watermarkText, watermarkView, type WatermarkView } from '../../pipeline/sourceWatermark.js';
import type { PipelineConfig } from '../../config/index.js';
import type { CliContext } from '../context.js';
import { table, when } from '../format.js';
import type { Session } from '../session.js';
import { readReplicas } from './jobs.js';
import { followFiguresOf, type FollowFigures } from '../../ops/followFigures.js';

/** One pipeline's status (the `--json` shape). */
export interface PipelineStatus {
  readonly name: string;
  readonly shop: string;
  readonly direction: string;
  readonly resource: string;
  readonly schedule: string | null;
  readonly timezone: string | null;
  /** Next time the schedule fires (when a daemon is running). */
  readonly nextRun: string | null;
  /** A process holds the pipeline's lock right now. */
  readonly running: boolean;
  readonly lastRun: {
    readonly id: number;
    readonly mode: string;
    readonly status: string;
    readonly startedAt: string;
    readonly finishedAt: string | null;
    readonly counts: Readonly<Record<string, number>>;
    readonly error: Readonly<Record<string, unknown>> | null;
  } | null;
  readonly lastSuccessAt: string | null;
  readonly cursor: { readonly value: unknown; readonly key: string | null; readonly updatedAt: string } | null;
  /** What the ERP database said about its open transactions at the last run (SQL sources), null when it never said. */
  readonly watermark: WatermarkView | null;
  readonly backfills: readonly { readonly name: string; readonly value: unknown; readonly key: string | null; readonly updatedAt: string }[];
  readonly deadLetters: number;
  /** Open conflicts: guarded fields (`owner: guard`) the shop's people changed, waiting for a person (`shopsync conflicts list`). */
  readonly conflicts: number;
  /** Whether the pipeline is failing, and why (src/pipeline/failing.ts). */
  readonly failing: boolean;
  readonly reasons: readonly FailingReason[];
  /** A pull with `follow:` (issue 44): the orders it still follows, the oldest open one and its age in days, done ones, the last change delivered; null without `follow:`. */
  readonly follow: FollowFigures | null;
}

/** What decides staleness and given-up jobs, beside the state. */
export interface FailingContext {
  readonly now: number;
  /** `alerts.staleAfterMinutes`. */
  readonly staleAfterMinutes: number;
  /** Last error of the pipeline's run job the replicas gave up on, when there is one. */
  readonly jobFailing?: string;
  /** The pause of the pipeline's shop, when it is paused (its pipelines count as failing). */
  readonly shopPaused?: ShopPause;
}

/** One shop's failure streak and pause (the `--json` shape's `shops`). */
export interface ShopStatus extends ShopStreakView {
  readonly name: string;
}

/** Collect the status of each configured pipeline from the state. */
export async function pipelineStatus(state: StateStore, p: PipelineConfig, defaultTz?: string, failingCtx: FailingContext = { now: Date.now(), staleAfterMinutes: DEFAULT_STALE_AFTER_MINUTES }): Promise<PipelineStatus> {
  const [latest] = await state.runs.list({ pipeline: p.name, limit: 1 });
  const last = latest ? asSeen(latest) : undefined;
  const [success] = await state.runs.list({ pipeline: p.name, status: 'succeeded', limit: 1 });
  // A run in progress says nothing yet: failing is judged by the last finished one (a dead process's run counts as crashed).
  const finished = last && last.status !== 'running' ? last : (await state.runs.list({ pipeline: p.name, status: ['succeeded', 'partial', 'failed', 'aborted', 'crashed'], limit: 1 }))[0];
  const [good] = finished && (finished.status === 'succeeded' || finished.status === 'partial') ? [finished] : await state.runs.list({ pipeline: p.name, status: ['succeeded', 'partial'], limit: 1 });
  const deadLetters = await state.deadLetters.count(p.name);
  const conflicts = (await state.conflicts.openCounts()).get(p.name) ?? 0;
  const lock = await state.locks.get(p.name);
  const running = lock !== undefined && (lock.host !== hostname() || processAlive(lock.pid));
  const tz = p.timezone ?? defaultTz;
  // Overdue and stuck: the last sync run's start against the schedule's slots, and a running run against its lane's holder.
  const [lastSync] = p.schedule ? await state.runs.list({ pipeline: p.name, mode: 'sync', limit: 1 }) : [];
  const open = last?.status === 'running' ? last : undefined;
  const facts = {
    ...(p.schedule ? { schedule: { expression: p.schedule, ...(tz ? { timezone: tz } : {}) } } : {}),
    ...(lastSync ? { lastStartedAt: lastSync.startedAt } : {}),
    ...(open ? { running: { id: open.id, startedAt: open.startedAt, ...(running && lock ? { holderBeatAt: lock.heartbeatAt } : {}) } } : {}),
  };
  const reasons = failingReasons(
    { name: p.name, ...(finished ? { lastFinished: finished } : {}), ...(good?.finishedAt ? { lastSuccessAt: good.finishedAt } : {}), deadLetters, scheduled: p.schedule !== undefined, ...(failingCtx.jobFailing !== undefined ? { jobFailing: failingCtx.jobFailing } : {}), ...(failingCtx.shopPaused ? { shopPaused: failingCtx.shopPaused } : {}), ...facts },
    failingCtx,
  );
  const cursors = await state.cursors.list(p.name);
  const follow = p.follow ? await followFiguresOf(state, p.name, new Date(failingCtx.now)) : null;
  const incremental = cursors.find((c) => c.name === 'incremental');
  return {
    name: p.name,
    shop: p.shop,
    direction: p.direction,
    resource: p.resource,
    schedule: p.schedule ?? null,
    timezone: p.schedule ? scheduleZone(tz) : null,
    nextRun: p.schedule ? (nextOccurrence(p.schedule, tz)?.toISOString() ?? null) : null,
    running,
    lastRun: last
      ? { id: last.id, mode: last.mode, status: last.status, startedAt: last.startedAt, finishedAt: last.finishedAt ?? null, counts: { ...last.counts }, error: last.error ?? null }
      : null,
    lastSuccessAt: success?.finishedAt ?? null,
    cursor: incremental ? { value: incremental.value, key: incremental.key, updatedAt: incremental.updatedAt } : null,
    watermark: watermarkView(cursors.find((c) => c.name === WATERMARK_LANE)) ?? null,
    backfills: cursors.filter((c) => c.name !== 'incremental' && c.name !== WATERMARK_LANE).map((c) => ({ name: c.name, value: c.value, key: c.key, updatedAt: c.updatedAt })),
    deadLetters,
    conflicts,
    failing: reasons.length > 0,
    reasons,
    follow,
  };
}

/** `orders-to-erp: following 3 order(s), oldest #4711 placed 2026-11-28 (4 days), 12 done, last change …` (the FOLLOWED lines). */
export function followLine(s: Pick<PipelineStatus, 'name' | 'follow'>): string | undefined {
  const f = s.follow;
  if (!f) return undefined;
  const oldest = f.oldest ? `, oldest #${f.oldest.key} placed ${f.oldest.placedDay} (${f.oldestAgeDays ?? 0} day(s))` : '';
  return `  ${s.name}: following ${f.open} order(s)${oldest}, ${f.done} done, last change ${f.lastChangeAt ? when(f.lastChangeAt) : 'none yet'}`;
}

/** `10 read, 8 written`, and the records the source could not use said apart, so a partly read file never looks clean. */
function recordsCell(counts: Readonly<Record<string, number>>): string {
  const unreadable = counts.unreadable ?? 0;
  return `${counts.read ?? 0} read, ${(counts.created ?? 0) + (counts.updated ?? 0)} written${unreadable > 0 ? `, ${unreadable} unreadable` : ''}`;
}

/** ` (held back by a transaction open since 12:03:11 UTC, 4 min)` once an open ERP transaction held the cursor a minute or more. */
function heldNote(w: WatermarkView | null): string {
  return w && w.by === 'transactions' && w.heldForSeconds >= 60 ? ` (${watermarkText(w)})` : '';
}

/** Options of `shopsync status`. */
export interface StatusOptions {
  readonly json?: boolean;
  readonly shop?: string;
  readonly failing?: boolean;
}

/** Print the status report of the open session (`shopsync status`), and set the exit code `--failing` asks for. */
export async function printStatus(ctx: CliContext, opts: StatusOptions, { runtime, loaded, logger }: Session): Promise<void> {
  if (opts.shop !== undefined && !loaded.brokenShops.some((b) => b.name === opts.shop)) runtime.shop(opts.shop);
  const seen = await readReplicas(loaded, runtime.state, logger);
  const givenUp = new Map((seen?.jobs ?? []).filter((j) => j.state === 'failed' && j.pipeline !== undefined).map((j) => [j.pipeline!, j.lastError ?? `${j.attempts}/${j.maxAttempts} attempts failed`]));
  const now = Date.now();
  // A paused shop is skipped by every daemon: shown here, and its pipelines count as failing.
  const streaks = new Map((await runtime.state.streaks.list()).map((s) => [s.shop, s]));
  const all: PipelineStatus[] = [];
  for (const p of loaded.config.pipelines) {
    if (opts.shop !== undefined && p.shop !== opts.shop) continue;
    const jobFailing = givenUp.get(p.name);
    const shopPaused = shopPauseOf(streaks.get(p.shop));
    all.push(await pipelineStatus(runtime.state, p, loaded.config.timezone, { now, staleAfterMinutes: loaded.config.alerts.staleAfterMinutes, ...(jobFailing !== undefined ? { jobFailing } : {}), ...(shopPaused ? { shopPaused } : {}) }));
  }
  const shops: ShopStatus[] = [...new Set(all.map((s) => s.shop))].map((name) => ({ name, ...shopStreakView(name, streaks.get(name)) }));
  const pipelines = opts.failing ? failingFirst(all).filter((s) => s.failing) : all;
  const broken = loaded.brokenShops.filter((b) => opts.shop === undefined || b.name === opts.shop);
  // Only --failing makes the code say something (a broken shop's pipelines run nowhere): plain `status` is a report and exits 0.
  if (opts.failing) ctx.exitCode = pipelines.length > 0 || broken.length > 0 ? EXIT.failed : EXIT.ok;
  if (opts.json) {
    ctx.print(JSON.stringify({ config: loaded.file, state: loaded.statePath, generatedAt: new Date().toISOString(), pipelines, shops, brokenShops: broken, ...(seen ? { replicas: seen.replicas, jobs: seen.jobs } : {}) }, null, 2));
    return;
  }
  // A broken shop's pipelines are not in the config: say so first, or they would silently be missing from the table.
  for (const b of broken) ctx.print(`BROKEN SHOP ${b.name} (${b.file}:${b.line}): not run${b.pipelines.length ? `: ${b.pipelines.join(', ')}` : ''}; \`shopsync config check\` says why`);
  for (const s of shops) {
    if (s.paused) ctx.print(`PAUSED SHOP ${s.name} since ${s.paused.since}: ${s.paused.reason ?? 'kept failing'}; its scheduled runs are skipped; \`${s.paused.resume}\` resumes it`);
    else if (s.streak) ctx.print(`FAILING SHOP ${s.name}: ${s.streak.failedRuns} run(s) in a row failed since ${s.streak.since ?? 'unknown'}; last: ${s.streak.lastError ?? ''}${loaded.config.failingShops.pauseAfterRuns > 0 ? `; paused after ${loaded.config.failingShops.pauseAfterRuns} spanning ${loaded.config.failingShops.pauseAfterHours} h (failingShops)` : ''}`);
  }
  if (pipelines.length === 0) {
    ctx.print(opts.failing ? `no failing pipelines${opts.shop !== undefined ? ` in shop ${opts.shop}` : ''} (of ${all.length})` : `no pipelines in ${loaded.file}`);
    return;
  }
  ctx.print(
    table(
      ['PIPELINE', 'SHOP', 'LAST RUN', 'OUTCOME', 'RECORDS', 'CURSOR', 'NEXT RUN', 'DEAD LETTERS', 'CONFLICTS'],
      pipelines.map((s) => [
        `${s.name}${s.running ? ' (running)' : ''}`,
        s.shop,
        when(s.lastRun?.startedAt),
        s.lastRun ? `${s.lastRun.status}${s.lastRun.error ? ` [${String(s.lastRun.error.code ?? '')}]` : ''}` : 'never run',
        s.lastRun ? recordsCell(s.lastRun.counts) : '-',
        s.cursor ? `${JSON.stringify(s.cursor.value)}${s.cursor.key !== null ? ` / ${s.cursor.key}` : ''}${heldNote(s.watermark)}` : '-',
        s.reasons.some((r) => r.code === 'shop-paused') ? 'paused (shop)' : s.schedule ? when(s.nextRun) : 'on demand',
        String(s.deadLetters),
        String(s.conflicts),
      ]),
    ),
  );
  // Open conflicts wait for a person as dead letters do: said under the table, with the command that decides them.
  const conflicted = pipelines.filter((s) => s.conflicts > 0);
  if (conflicted.length > 0) {
    ctx.print('');
    ctx.print(`CONFLICTS (guarded fields edited in the shop, left as the shop has them):`);
    for (const s of conflicted) ctx.print(`  ${s.name}: ${s.conflicts} open; \`shopsync conflicts list ${s.name}\`, then \`shopsync conflicts resolve ${s.name} <erpKey> --take erp|shop\``);
  }
  const followed = pipelines.map(followLine).filter((l): l is string => l !== undefined);
  if (followed.length > 0) {
    ctx.print('');
    ctx.print('FOLLOWED (orders after checkout):');
    for (const l of followed) ctx.print(l);
  }
  const failing = pipelines.filter((s) => s.failing);
  if (failing.length > 0) {
    ctx.print('');
    ctx.print(`FAILING: ${failing.length} of ${all.length} pipeline(s)`);
    for (const s of failing) ctx.print(`  ${s.name} (shop ${s.shop}): ${s.reasons.map((r) => r.text).join('; ')}`);
  }
  if (seen) {
    const { ageText } = await import('../../jobs/index.js');
    ctx.print('');
    ctx.print(
      seen.replicas.length === 0
        ? 'REPLICAS: none running'
        : table(
            ['REPLICA', 'HOST', 'PID', 'STATE', 'HEARTBEAT', 'RUNNING'],
            seen.replicas.map((r) => [r.name, r.host, String(r.pid), r.state === 'silent' ? 'SILENT' : r.state, `${ageText(r.heartbeatAgeMs)} ago`, r.running.join(', ') || '-']),
          ),
    );
    const waiting = seen.jobs.filter((j) => j.state !== 'running');
    const failing = seen.jobs.filter((j) => j.state === 'failed');
    ctx.print(`JOBS: ${seen.jobs.length - waiting.length} running, ${waiting.filter((j) => j.state === 'queued').length} queued, ${waiting.filter((j) => j.state === 'retrying').length} retrying, ${failing.length} failing${waiting.length ? ` (oldest waiting ${ageText(Math.max(...waiting.map((j) => j.ageMs)))})` : ''}`);
    for (const j of failing) ctx.print(`  FAILING ${j.pipeline ?? j.id}: ${j.attempts}/${j.maxAttempts} attempts; ${j.lastError ?? ''}`);
  }
}
