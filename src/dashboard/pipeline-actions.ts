/**
 * The dashboard's actions wired to the real pipeline functions for an embedder that holds pipeline
 * definitions and deps rather than a daemon runtime: run now, retry and drop dead letters, preview. The
 * grouping and acting is the daemon's own (`src/ops/deadLetters.ts`), so both behave the same.
 */
import { ConfigError } from '../errors.js';
import { pipelineActions } from '../ops/deadLetters.js';
import { previewPipeline, retryDeadLetters, runPipeline, type PipelineDefinition, type PipelineDefinitionInput, type PipelineDeps } from '../pipeline/index.js';
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

/** `runNow`, `retryDeadLetters`, `dropDeadLetters` and `preview` for `registerDashboard`. */
export function dashboardActions(options: DashboardActionsOptions): Pick<DashboardDeps, 'runNow' | 'retryDeadLetters' | 'dropDeadLetters' | 'preview'> {
  const byName = new Map(options.pipelines.map((p) => [p.definition.name, p]));
  const find = (name: string): ActionPipeline => {
    const p = byName.get(name);
    if (!p) throw new ConfigError(`There is no pipeline named ${name}; known: ${[...byName.keys()].join(', ')}`);
    return p;
  };
  const host = {
    state: options.state,
    pipelineNames: [...byName.keys()],
    retry: (name: string, ids?: readonly number[]) => retryDeadLetters(find(name).definition, find(name).deps, ids ? { ids } : {}),
  };
  return {
    ...pipelineActions(host, (name) => (options.run ? options.run(name) : runPipeline(find(name).definition, find(name).deps, { mode: 'sync' }))),
    preview: (name, previewOptions) => previewPipeline(find(name).definition, find(name).deps, previewOptions),
  };
}
