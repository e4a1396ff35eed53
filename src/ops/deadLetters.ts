/**
 * Dead-letter actions across pipelines, the one implementation behind the daemon's dashboard,
 * `shopsync dlq` and the dashboard's `dashboardActions`: act on letter ids, grouped by pipeline,
 * since each pipeline retries through its own mapping and shop.
 */
import type { DashboardDeps } from '../dashboard/types.js';
import { dropDeadLetters as dropLetters, type RunSummary } from '../pipeline/index.js';
import type { StateStore } from '../state/index.js';
import type { Runtime } from './runtime.js';

/** What the dead-letter actions act on. */
export interface DeadLetterHost {
  readonly state: StateStore;
  /** The configured pipelines, in order; `'all'` covers those of them that hold letters. */
  readonly pipelineNames: readonly string[];
  /** Retry one pipeline's letters (all when `ids` is undefined). */
  retry(name: string, ids?: readonly number[]): Promise<RunSummary>;
}

/** The dead-letter host of an open runtime. */
export function runtimeHost(runtime: Runtime): DeadLetterHost {
  return {
    state: runtime.state,
    pipelineNames: runtime.loaded.config.pipelines.map((p) => p.name),
    retry: (name, ids) => runtime.retry(name, ids),
  };
}

/** Letter ids grouped by pipeline ('all' = every configured pipeline that has letters, `undefined` = all of its letters). */
async function byPipeline(host: DeadLetterHost, ids: readonly number[] | 'all'): Promise<Map<string, number[] | undefined>> {
  const groups = new Map<string, number[] | undefined>();
  if (ids === 'all') {
    for (const name of host.pipelineNames) if ((await host.state.deadLetters.count(name)) > 0) groups.set(name, undefined);
    return groups;
  }
  for (const id of ids) {
    const letter = await host.state.deadLetters.get(id);
    if (!letter) continue;
    const list = groups.get(letter.pipeline) ?? [];
    list.push(id);
    groups.set(letter.pipeline, list);
  }
  return groups;
}

/** Retry letters by id (or all); one retry run per pipeline concerned. Unknown ids are ignored. */
export async function retryDeadLetterIds(host: DeadLetterHost, ids: readonly number[] | 'all'): Promise<RunSummary[]> {
  const out: RunSummary[] = [];
  // One pipeline after another: each retry takes its pipeline's lock, and letters of one
  // pipeline may depend on another's (a product on its manufacturer).
  for (const [pipeline, list] of await byPipeline(host, ids)) out.push(await host.retry(pipeline, list));
  return out;
}

/** Drop letters by id (or all); returns how many were removed. */
export async function dropDeadLetterIds(host: DeadLetterHost, ids: readonly number[] | 'all'): Promise<number> {
  let n = 0;
  for (const [pipeline, list] of await byPipeline(host, ids)) n += await dropLetters(host.state, pipeline, list ? { ids: list } : {});
  return n;
}

/** `runNow`, `retryDeadLetters` and `dropDeadLetters` for `registerDashboard`, given how "run now" starts a run. */
export function pipelineActions(host: DeadLetterHost, runNow: (name: string) => Promise<unknown>): Pick<DashboardDeps, 'runNow' | 'retryDeadLetters' | 'dropDeadLetters'> {
  return {
    runNow,
    retryDeadLetters: (ids) => retryDeadLetterIds(host, ids),
    dropDeadLetters: (ids) => dropDeadLetterIds(host, ids),
  };
}
