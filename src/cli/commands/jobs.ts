/** `shopsync jobs list|add`: the run jobs of a PostgreSQL state's replicas. */
import { Command } from 'commander';
import type { LoadedConfig } from '../../config/index.js';
import type { Logger } from '../../log.js';
import type { StateStore } from '../../state/index.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../exit.js';
import { table, when } from '../format.js';
import { withRuntime } from '../session.js';

/** The refusal on a SQLite state. */
function needsPostgres(loaded: LoadedConfig): UsageError {
  return new UsageError(`jobs exist only on a PostgreSQL state (state.kind: postgres); ${loaded.statePath} is a SQLite state, where \`shopsync run\` runs pipelines in-process (see docs/replicas.md)`);
}

/** Replicas and jobs of a PostgreSQL state, or undefined when no replica has ever run on it. */
export async function readReplicas(loaded: LoadedConfig, state: StateStore, logger: Logger) {
  if (loaded.state.kind !== 'postgres') return undefined;
  const { JobStore, jobsSchemaOf, replicasOverview } = await import('../../jobs/index.js');
  const schema = jobsSchemaOf(loaded);
  if (!(await JobStore.exists(loaded.state.url, schema))) return { replicas: [], jobs: [], schema, engine: false as const };
  const jobs = await JobStore.open({ url: loaded.state.url, schema, logger, migrate: false });
  try {
    return { ...(await replicasOverview(state, jobs, loaded.config.replicas.deadAfterMs)), schema, engine: true as const };
  } finally {
    await jobs.release();
  }
}

/** Register the command. */
export function jobsCommand(ctx: CliContext): Command {
  const jobs = new Command('jobs').description('the run jobs of the replicas (PostgreSQL state): list them, or ask for a run');
  jobs
    .command('list')
    .description('queued, running, retrying and failing jobs with their age and the replica running them')
    .option('--json', 'print as JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      await withRuntime(ctx, cmd, 'stderr', async ({ runtime, loaded, logger }) => {
        if (loaded.state.kind !== 'postgres') throw needsPostgres(loaded);
        const { ageText } = await import('../../jobs/index.js');
        const seen = await readReplicas(loaded, runtime.state, logger);
        if (opts.json) {
          ctx.print(JSON.stringify({ state: loaded.statePath, generatedAt: new Date().toISOString(), jobs: seen?.jobs ?? [] }, null, 2));
          return;
        }
        if (!seen || seen.jobs.length === 0) {
          ctx.print(seen?.engine ? 'no jobs queued, running or failing' : `no replica has run on this state yet (no jobs schema ${seen?.schema ?? ''})`);
          return;
        }
        ctx.print(
          table(
            ['JOB', 'PIPELINE', 'STATE', 'AGE', 'REPLICA', 'ATTEMPTS', 'RUN AT', 'LAST ERROR'],
            seen.jobs.map((j) => [j.id, j.pipeline ?? '-', j.state === 'failed' ? 'FAILING' : j.state, ageText(j.ageMs), j.replica ?? (j.state === 'running' ? '(unknown)' : '-'), `${j.attempts}/${j.maxAttempts}`, when(j.runAt), (j.lastError ?? '').slice(0, 120)]),
          ),
        );
      });
    });
  jobs
    .command('add')
    .description('ask the replicas for a run of a pipeline now (a job any replica takes; one waiting job per pipeline)')
    .argument('<pipeline>', 'pipeline name from the config')
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      await withRuntime(ctx, cmd, 'stderr', async ({ runtime, loaded, logger }) => {
        if (loaded.state.kind !== 'postgres') throw needsPostgres(loaded);
        runtime.pipeline(name);
        const { JobStore, jobsSchemaOf, replicaName } = await import('../../jobs/index.js');
        const store = await JobStore.open({ url: loaded.state.url, schema: jobsSchemaOf(loaded), logger });
        try {
          const r = await store.enqueueRun(name, { reason: 'manual', by: `cli ${replicaName()}`, maxAttempts: loaded.config.replicas.maxAttempts, shop: runtime.pipeline(name).shop });
          ctx.print(`job ${r.jobId ?? '?'} asks for a run of ${name}; a replica takes it (shopsync jobs list)`);
        } finally {
          await store.release();
        }
      });
    });
  return jobs;
}
