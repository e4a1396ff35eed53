/**
 * `shopsync status [--json] [--shop <name>] [--failing]`: every pipeline's last run, cursor, next run,
 * dead letters and open conflicts, and whether it is failing (src/pipeline/failing.ts, the dashboard's definition);
 * broken shops, paused shops (since when, why, how to resume) and shops whose runs keep failing first.
 * With `--failing` only the failing pipelines, and exit code 1 when there are any (0 when none).
 *
 * The report itself (./statusReport.ts) loads when the command runs: every other command starts without it.
 */
import { Command } from 'commander';
import type { PipelineConfig } from '../../config/index.js';
import type { StateStore } from '../../state/index.js';
import type { CliContext } from '../context.js';
import { withRuntime } from '../session.js';
import type { FailingContext, PipelineStatus, StatusOptions } from './statusReport.js';

export type { FailingContext, PipelineStatus, ShopStatus } from './statusReport.js';

/** One pipeline's status as `status --json` shows it (./statusReport.ts). */
export async function pipelineStatus(state: StateStore, p: PipelineConfig, defaultTz?: string, failingCtx?: FailingContext): Promise<PipelineStatus> {
  return (await import('./statusReport.js')).pipelineStatus(state, p, defaultTz, failingCtx);
}

/** Register the command. */
export function statusCommand(ctx: CliContext): Command {
  return new Command('status')
    .description('show every pipeline: last run and outcome, cursor, next run, dead letters, open conflicts')
    .option('--json', 'print as JSON')
    .option('--shop <name>', 'only the pipelines of this shop')
    .option('--failing', 'only failing pipelines (last run failed or left records failed, dead letters wait, stale, overdue, stuck, run job given up, shop paused) and broken shops; exit code 1 when any, 0 when none')
    .action(async (opts: StatusOptions, cmd: Command) => {
      await withRuntime(ctx, cmd, 'stderr', async (session) => (await import('./statusReport.js')).printStatus(ctx, opts, session), {
        // status only reads: a state on a full disk (or read-only) is shown read-only, with a warning line, rather than not at all.
        readOnlyFallback: true,
      });
    });
}
