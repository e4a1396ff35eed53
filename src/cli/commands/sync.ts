/** `shopsync sync <pipeline> [--dry-run]`: one incremental run now. */
import { Command } from 'commander';
import type { MissingReport, PlannedRecord, RunSummary } from '../../pipeline/index.js';
import { countWords } from '../../pipeline/countWords.js';
import type { CliContext } from '../context.js';
import { exitCodeOfRun, summaryLine } from '../format.js';
import { withRuntime } from '../session.js';
import { onStopSignal } from '../signals.js';
import type { StateStore } from '../../state/index.js';

function planLine(p: PlannedRecord): string {
  const id = p.shopId !== undefined ? ` → shop ${p.shopId}` : '';
  const why = p.reason ? ` (${p.reason})` : '';
  const diff = p.diff ? Object.entries(p.diff).map(([f, d]) => `\n    ${f}: ${JSON.stringify(d.shop)} → ${JSON.stringify(d.next)}`).join('') : '';
  return `  ${p.action.padEnd(6)} ${p.erpKey}${id}${why}${diff}`;
}

/** What the `onMissing` step did (a dry run: what it would do), in one line. */
export function missingLine(m: MissingReport, mode: RunSummary['mode'] = 'sync'): string {
  if (m.refused) return `  gone from the ERP: ${m.candidates} of ${m.total}, REFUSED [${m.refused.code}]: nothing ${mode === 'dry-run' ? 'would be' : 'was'} ${m.action === 'delete' ? 'deleted' : 'deactivated'}`;
  if (!m.decided && m.candidates === 0) return `  gone from the ERP: not decided (${m.why ?? 'incomplete read'})`;
  const why = m.decided ? '' : ` (${m.why ?? ''})`;
  // A dry run acts on none of them: its plan lists each; the count is of what it would do.
  if (mode === 'dry-run' && m.action !== 'ignore') return `  gone from the ERP (onMissing: ${m.action}): ${m.candidates} of ${m.total}; ${countWords(mode)[m.action === 'delete' ? 'deleted' : 'deactivated']} ${m.candidates}${why}`;
  return `  gone from the ERP (onMissing: ${m.action}): ${m.candidates} of ${m.total}; deactivated ${m.deactivated}, deleted ${m.deleted}, failed ${m.failed}${why}`;
}

/** Register the command. */
export function syncCommand(ctx: CliContext): Command {
  return new Command('sync')
    .description('run one pipeline once, now (incremental: continues from its cursor)')
    .argument('<pipeline>', 'pipeline name from the config')
    .option('--dry-run', 'read, map and compare with the shop, but write nothing; prints what would happen')
    .option('--complete', 'read the whole source, not from the cursor, then handle records gone from the ERP (options.onMissing)')
    .option('--allow-mass-delete', 'let this run deactivate or delete more records than options.massDelete allows (implies --complete)')
    .option('--json', 'print the run summary (and dry-run plan) as JSON')
    .option('--accept-restore', 'a pull after a restore or a deleted state: accept (recorded in the state, so the daemon goes on too) that rows its sink already holds are updated in place')
    .addHelpText('after', '\nExit code 0 when every record settled, 1 when some failed or were dead-lettered (or the mass-deletion guard refused), 3 when another process runs the pipeline, 4 when interrupted.')
    .action(async (name: string, opts: { dryRun?: boolean; json?: boolean; complete?: boolean; allowMassDelete?: boolean; acceptRestore?: boolean }, cmd: Command) => {
      const stop = onStopSignal();
      try {
        await withRuntime(ctx, cmd, 'stderr', async ({ runtime, loaded }) => {
          // Recorded before the run (not passed to it), so the daemon's later runs go on as well.
          if (opts.acceptRestore && !opts.dryRun && loaded.config.pipelines.some((p) => p.name === name)) await runtime.state.rewinds.accept(name, Date.now());
          const summary = await runtime.run(name, { mode: opts.dryRun ? 'dry-run' : 'sync', signal: stop.signal, ...(opts.complete ? { complete: true } : {}), ...(opts.allowMassDelete ? { allowMassDelete: true } : {}) });
          // A partial run says which records it refused and why, not only how many (the letters stay for `dlq`).
          const letters = summary.counts.deadLettered > 0 ? await lettersOfRun(runtime.state, name, summary.runId) : [];
          if (opts.json) ctx.print(JSON.stringify(letters.length > 0 ? { ...summary, letters: letters.slice(0, SHOWN_LETTERS_JSON) } : summary, null, 2));
          else {
            const { hintSettingsOf } = await import('../hints.js');
            ctx.print(summaryLine(summary, hintSettingsOf(loaded, name)));
            for (const l of letters.slice(0, SHOWN_LETTERS)) ctx.print(`  refused ${l.erpKey}: [${l.code}] ${l.reason}`);
            if (letters.length > SHOWN_LETTERS) ctx.print(`  … and ${letters.length - SHOWN_LETTERS} more: shopsync dlq list ${name}`);
            if (summary.missing) ctx.print(missingLine(summary.missing, summary.mode));
            if (summary.plan) for (const p of summary.plan) ctx.print(planLine(p));
          }
          ctx.exitCode = exitCodeOfRun(summary);
        });
      } finally {
        stop.dispose();
      }
    });
}

/** Letters shown under a run's line, and in its JSON. */
const SHOWN_LETTERS = 5;
const SHOWN_LETTERS_JSON = 50;

/** The dead letters this run wrote or touched last (newest first), as key, code and reason. */
async function lettersOfRun(state: StateStore, pipeline: string, runId: number): Promise<{ erpKey: string; code: string; reason: string }[]> {
  const all = await state.deadLetters.list({ pipeline, limit: 500 });
  return all.filter((l) => l.runId === runId).map((l) => ({ erpKey: l.erpKey, code: l.code, reason: l.reason }));
}
