/** `shopsync backfill <pipeline> --from X --to Y`: re-send a range, resumable. */
import { Command } from 'commander';
import type { CursorValue } from '../../erp/types.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../exit.js';
import { exitCodeOfRun, summaryLine } from '../format.js';
import { withRuntime } from '../session.js';
import { onStopSignal } from '../signals.js';

/** Numbers stay numbers (id and counter cursors); anything else is compared as text (dates). */
function cursorValue(v: string): CursorValue {
  return /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
}

/** Register the command. */
export function backfillCommand(ctx: CliContext): Command {
  return new Command('backfill')
    .description('run a pipeline over a range of its cursor (e.g. changed dates or ids), independent of the incremental cursor')
    .argument('<pipeline>', 'pipeline name from the config')
    .requiredOption('--from <value>', 'start of the range (cursor value, e.g. 2024-01-01 or 1000)')
    .requiredOption('--to <value>', 'end of the range, inclusive')
    .option('--json', 'print the run summary as JSON')
    .addHelpText(
      'after',
      `
Resumable: an interrupted backfill (Ctrl-C, SIGTERM, crash) keeps its own checkpoint; run the
same command again to continue where it stopped. The incremental cursor is never moved.
Shows a progress bar on a terminal, log lines otherwise.`,
    )
    .action(async (name: string, opts: { from: string; to: string; json?: boolean }, cmd: Command) => {
      const from = cursorValue(opts.from);
      const to = cursorValue(opts.to);
      // Swapped bounds would read nothing and "succeed"; say so before touching anything.
      if (from !== null && to !== null && typeof from === typeof to && from > to) throw new UsageError(`--from ${opts.from} is after --to ${opts.to}: the range is empty (swap them?)`);
      const stop = onStopSignal();
      try {
        await withRuntime(ctx, cmd, 'stderr', async ({ runtime, logger, loaded }) => {
          const range = { from, to };
          runtime.pipeline(name);
          // The progress bar (cli-progress) loads with the backfill that shows it, not with every command.
          const { trackProgress } = await import('../progress.js');
          const done = trackProgress({
            pipeline: name,
            events: runtime.events,
            ...range,
            logger,
            terminal: ctx.io.stderr.isTTY && !opts.json ? ctx.io.stderr : undefined,
          });
          let summary;
          try {
            summary = await runtime.run(name, { mode: 'backfill', range, signal: stop.signal });
          } finally {
            done(summary !== undefined && (summary.status === 'succeeded' || summary.status === 'partial'));
          }
          const { hintSettingsOf } = await import('../hints.js');
          ctx.print(opts.json ? JSON.stringify(summary, null, 2) : summaryLine(summary, hintSettingsOf(loaded, name)));
          if (summary.status === 'aborted' && !opts.json) ctx.say(`interrupted; run the same command again to continue the backfill of ${name} from its checkpoint`);
          ctx.exitCode = exitCodeOfRun(summary);
        });
      } finally {
        stop.dispose();
      }
    });
}
