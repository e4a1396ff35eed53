/**
 * The dashboard's actions wired to the real pipeline functions: run now, retry and drop dead letters
 * (letters are grouped by pipeline, since each pipeline retries through its own mapping and shop).
 */
import { ConfigError } from '../errors.js';
import { dropDeadLetters, retryDeadLetters, runPipeline, type PipelineDefinition, type PipelineDefinitionInput, type PipelineDeps, type RunSummary } from '../pipeline/index.js';
import type { StateStore } from '../state/index.js';
import type { DashboardDeps } from './types.js';

/** A pipeline the dashboard can act on. */
export interface ActionPipeline {
  readonly definition: PipelineDefinition | PipelineDefinitionInput;
  readonly deps: PipelineDeps;
}

/** Options of `dashboardActions`. */
export interface DashboardActionsOptions {
  readonly state: StateStore;
  readonly pipelines: readonly ActionPipeline[];
  /** How "run now" starts a run; the daemon passes its scheduler's trigger so manual and scheduled runs never overlap. @default runPipeline in sync mode */
  readonly run?: (name: string) => Promise<unknown>;
}

/** Dead-letter ids grouped by their pipeline (`'all'`: every letter). */
export function lettersByPipeline(state: StateStore, ids: readonly number[] | 'all'): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const letters = ids === 'all' ? state.deadLetters.list({ limit: 1_000_000 }) : ids.map((id) => state.deadLetters.get(id)).filter((l) => l !== undefined);
  for (const l of letters) out.set(l.pipeline, [...(out.get(l.pipeline) ?? []), l.id]);
  return out;
}

/** `runNow`, `retryDeadLetters` and `dropDeadLetters` for `registerDashboard`. */
export function dashboardActions(options: DashboardActionsOptions): Pick<DashboardDeps, 'runNow' | 'retryDeadLetters' | 'dropDeadLetters'> {
  const byName = new Map(options.pipelines.map((p) => [p.definition.name, p]));
  const find = (name: string): ActionPipeline => {
    const p = byName.get(name);
    if (!p) throw new ConfigError(`There is no pipeline named ${name}; known: ${[...byName.keys()].join(', ')}`);
    return p;
  };
  return {
    runNow: (name) => (options.run ? options.run(name) : runPipeline(find(name).definition, find(name).deps, { mode: 'sync' })),
    async retryDeadLetters(ids) {
      const summaries: RunSummary[] = [];
      // One pipeline after another: each retry takes its pipeline's lock, and letters of one
      // pipeline may depend on another's (a product on its manufacturer).
      for (const [pipeline, letterIds] of lettersByPipeline(options.state, ids)) {
        const p = find(pipeline);
        summaries.push(await retryDeadLetters(p.definition, p.deps, ids === 'all' ? {} : { ids: letterIds }));
      }
      return summaries;
    },
    async dropDeadLetters(ids) {
      let dropped = 0;
      for (const [pipeline, letterIds] of lettersByPipeline(options.state, ids)) dropped += dropDeadLetters(options.state, pipeline, { ids: letterIds });
      return dropped;
    },
  };
}
