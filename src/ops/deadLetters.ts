/** Dead-letter actions across pipelines (the dashboard and `shopsync dlq` act on letter ids). */
import { dropDeadLetters as dropLetters, type RunSummary } from '../pipeline/index.js';
import type { Runtime } from './runtime.js';

/** Letter ids grouped by pipeline ('all' = every pipeline that has letters). */
function byPipeline(runtime: Runtime, ids: readonly number[] | 'all'): Map<string, number[] | undefined> {
  const groups = new Map<string, number[] | undefined>();
  if (ids === 'all') {
    for (const p of runtime.loaded.config.pipelines) if (runtime.state.deadLetters.count(p.name) > 0) groups.set(p.name, undefined);
    return groups;
  }
  for (const id of ids) {
    const letter = runtime.state.deadLetters.get(id);
    if (!letter) continue;
    const list = groups.get(letter.pipeline) ?? [];
    list.push(id);
    groups.set(letter.pipeline, list);
  }
  return groups;
}

/** Retry letters by id (or all); one retry run per pipeline concerned. Unknown ids are ignored. */
export async function retryDeadLetterIds(runtime: Runtime, ids: readonly number[] | 'all'): Promise<RunSummary[]> {
  const out: RunSummary[] = [];
  for (const [pipeline, list] of byPipeline(runtime, ids)) out.push(await runtime.retry(pipeline, list));
  return out;
}

/** Drop letters by id (or all); returns how many were removed. */
export function dropDeadLetters(runtime: Runtime, ids: readonly number[] | 'all'): number {
  let n = 0;
  for (const [pipeline, list] of byPipeline(runtime, ids)) n += dropLetters(runtime.state, pipeline, list ? { ids: list } : {});
  return n;
}
