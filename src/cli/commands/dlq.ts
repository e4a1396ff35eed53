/** `shopsync dlq list|retry|drop`: inspect and act on dead letters. */
import { Command } from 'commander';
import { parseIds, parsePositive } from '../args.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../exit.js';
import { exitCodeOfRun, summaryLine, table, when } from '../format.js';
import { withRuntime } from '../session.js';
import type { DeadLetter, StateStore } from '../../state/index.js';

interface ActOptions {
  all?: boolean;
  pipeline?: string;
  json?: boolean;
}

/** The ids an action targets (raw arguments, comma or space separated): given ids, or 'all' (optionally of one pipeline). */
function selection(raw: readonly string[], opts: ActOptions): number[] | 'all' {
  const ids = raw.flatMap((r) => parseIds(r));
  if (ids.length > 0 && opts.all) throw new UsageError('give dead-letter ids or --all, not both');
  if (ids.length === 0 && !opts.all) throw new UsageError('give dead-letter ids (see `shopsync dlq list`) or --all');
  return ids.length > 0 ? ids : 'all';
}

/**
 * Ids the state does not hold (delivered or dropped since they were listed) are named on stderr;
 * when none of the given ids exists the command fails with exit 2 instead of "nothing to do".
 */
async function existingIds(ctx: CliContext, state: StateStore, target: number[] | 'all'): Promise<number[] | 'all'> {
  if (target === 'all') return target;
  const missing: number[] = [];
  for (const id of target) if ((await state.deadLetters.get(id)) === undefined) missing.push(id);
  if (missing.length === 0) return target;
  const text = `no dead letter with id ${missing.join(', ')} (delivered or dropped already? see \`shopsync dlq list\`)`;
  if (missing.length === target.length) throw new UsageError(text);
  ctx.say(`shopsync: ${text}`);
  return target.filter((id) => !missing.includes(id));
}

/** `retry` and `drop` select letters the same way: ids, or --all (optionally of one --pipeline). */
function actionCommand(dlq: Command, name: string, description: string, jsonHelp: string): Command {
  return dlq
    .command(name)
    .description(description)
    .argument('[ids...]', 'dead-letter ids (comma or space separated)')
    .option('--all', 'every dead letter (of --pipeline, or of every pipeline)')
    .option('-p, --pipeline <name>', 'with --all: only this pipeline')
    .option('--json', jsonHelp);
}

/** Register the command group. */
export function dlqCommand(ctx: CliContext): Command {
  const dlq = new Command('dlq').description('dead letters: records that failed and wait to be retried or dropped');

  dlq
    .command('list')
    .description('list dead letters, newest failure first')
    .option('-p, --pipeline <name>', 'only this pipeline')
    .option('--shop <name>', 'only letters of pipelines of this shop')
    .option('--code <code>', 'only letters with this error code')
    .option('--limit <n>', 'at most this many', parsePositive, 100)
    .option('--json', 'print as JSON (with the stored record)')
    .action(async (opts: { pipeline?: string; shop?: string; code?: string; limit: number; json?: boolean }, cmd: Command) => {
      await withRuntime(ctx, cmd, 'stderr', async ({ runtime }) => {
        if (opts.pipeline) runtime.pipeline(opts.pipeline);
        if (opts.shop !== undefined) runtime.shop(opts.shop);
        const letters = await runtime.state.deadLetters.list({ ...(opts.pipeline ? { pipeline: opts.pipeline } : {}), ...(opts.shop ? { shop: opts.shop } : {}), ...(opts.code ? { code: opts.code } : {}), limit: opts.limit });
        const { nextAutoRetry } = await import('../../pipeline/waitingLetters.js');
        // When a sync tries the letter on its own; null: only `dlq retry` (or the dashboard) will.
        const next = (l: DeadLetter) => nextAutoRetry(l)?.toISOString() ?? null;
        if (opts.json) ctx.print(JSON.stringify(letters.map((l) => ({ ...l, nextAutoRetryAt: next(l) })), null, 2));
        else if (letters.length === 0) ctx.print('no dead letters');
        else ctx.print(table(['ID', 'PIPELINE', 'SHOP', 'ERP KEY', 'CODE', 'ATTEMPTS', 'LAST FAILED', 'NEXT TRY', 'REASON'], letters.map((l) => [String(l.id), l.pipeline, l.shop, l.erpKey, l.code, String(l.attempts), when(l.lastFailedAt), next(l) === null ? 'by hand' : when(next(l)), l.origin?.raw !== undefined ? `${l.reason} | raw: ${l.origin.raw}` : l.reason])));
      });
    });

  actionCommand(dlq, 'retry', 'send dead letters again through the current mapping; those that succeed are removed', 'print the retry run summaries as JSON')
    .addHelpText('after', '\nExit code 0 when every retried letter went through, 1 when some failed again.')
    .action(async (raw: string[], opts: ActOptions, cmd: Command) => {
      const selected = selection(raw, opts);
      await withRuntime(ctx, cmd, 'stderr', async ({ runtime, loaded }) => {
        const target = await existingIds(ctx, runtime.state, selected);
        const { retryDeadLetterIds, runtimeHost } = await import('../../ops/deadLetters.js');
        const { hintSettingsOf } = await import('../hints.js');
        const summaries = opts.pipeline && target === 'all' ? [await runtime.retry(runtime.pipeline(opts.pipeline).name)] : await retryDeadLetterIds(runtimeHost(runtime), target);
        if (opts.json) ctx.print(JSON.stringify(summaries, null, 2));
        else if (summaries.length === 0) ctx.print('nothing to retry');
        else for (const s of summaries) ctx.print(summaryLine(s, hintSettingsOf(loaded, s.pipeline)));
        ctx.exitCode = Math.max(0, ...summaries.map(exitCodeOfRun));
      });
    });

  actionCommand(dlq, 'drop', 'delete dead letters for good (the records are not sent)', 'print {"dropped": n} as JSON')
    .action(async (raw: string[], opts: ActOptions, cmd: Command) => {
      const selected = selection(raw, opts);
      await withRuntime(ctx, cmd, 'stderr', async ({ runtime }) => {
        const target = await existingIds(ctx, runtime.state, selected);
        const { dropDeadLetterIds, runtimeHost } = await import('../../ops/deadLetters.js');
        const { dropDeadLetters: dropOfPipeline } = await import('../../pipeline/index.js');
        const dropped = opts.pipeline && target === 'all' ? await dropOfPipeline(runtime.state, runtime.pipeline(opts.pipeline).name) : await dropDeadLetterIds(runtimeHost(runtime), target);
        ctx.print(opts.json ? JSON.stringify({ dropped }) : `dropped ${dropped} dead letter${dropped === 1 ? '' : 's'}`);
      });
    });
  return dlq;
}
