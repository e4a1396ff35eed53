/** `shopsync state prune|backup|restore`: keep the state bounded, and copy it safely. */
import { copyFileSync, existsSync, renameSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { Command } from 'commander';
import Database from 'better-sqlite3';
import type { CliContext } from '../context.js';
import { UsageError } from '../exit.js';
import { withRuntime } from '../session.js';

function bytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;
}

/** Register the command group. */
export function stateCommand(ctx: CliContext): Command {
  const state = new Command('state').description('the state database: prune old history, back up, restore');

  state
    .command('prune')
    .description('delete events, stored payloads and runs older than state.retention (dead letters stay), and give the space back')
    .option('--dry-run', 'only count what would go')
    .option('--json', 'print the report as JSON')
    .action(async (opts: { dryRun?: boolean; json?: boolean }, cmd: Command) => {
      await withRuntime(ctx, cmd, 'stderr', async ({ runtime, loaded }) => {
        const { policyOf } = await import('../../ops/retention.js');
        const report = await runtime.state.retention.prune(policyOf(loaded.config), { dryRun: opts.dryRun === true });
        if (opts.json) ctx.print(JSON.stringify(report, null, 2));
        else {
          const verb = report.dryRun ? 'would delete' : 'deleted';
          ctx.print(`${verb} ${report.events} events, cleared ${report.payloads} stored payloads, ${verb} ${report.runs} runs${report.dryRun ? '' : `; reclaimed ${bytes(report.reclaimedBytes)}`}`);
          ctx.print(report.historySince ? `history now goes back to ${report.historySince}` : 'no history kept');
        }
      });
    });

  state
    .command('backup')
    .description('write a consistent copy of the state to a file, also while the daemon runs (SQLite online backup)')
    .argument('<file>', 'where to write the copy (must not exist)')
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      if (existsSync(file)) throw new UsageError(`${file} exists; give a new file name (a backup never overwrites)`);
      await withRuntime(ctx, cmd, 'stderr', async ({ runtime }) => {
        await runtime.state.backup(file);
        ctx.print(`backed up ${runtime.state.path} to ${file} (schema version ${runtime.state.schemaVersion()})`);
      });
    });

  state
    .command('restore')
    .description('put a backup in place of the state; refused while a daemon (or a run) holds the state')
    .argument('<file>', 'a file written by `shopsync state backup`')
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      if (!existsSync(file)) throw new UsageError(`${file} does not exist`);
      const loaded = await ctx.config(cmd);
      const target = loaded.statePath;
      if (target === ':memory:') throw new UsageError('the state is in memory (state.path: :memory:); nothing to restore into');
      // The backup must be a state database this version can open.
      const check = new Database(file, { readonly: true, fileMustExist: true });
      let version: number;
      try {
        version = check.pragma('user_version', { simple: true }) as number;
        check.prepare('SELECT COUNT(*) FROM runs').get();
      } catch (err) {
        throw new UsageError(`${file} is not a shopsync state backup: ${(err as Error).message}`);
      } finally {
        check.close();
      }
      if (existsSync(target)) {
        await withRuntime(ctx, cmd, 'stderr', async ({ runtime }) => {
          const { processAlive } = await import('../../state/index.js');
          const held = runtime.state.locks.list().filter((l) => l.host !== hostname() || processAlive(l.pid));
          if (held.length > 0) {
            throw new UsageError(`the state is in use (${held.map((l) => `${l.name} by pid ${l.pid} on ${l.host}`).join(', ')}); stop the daemon first, then restore`);
          }
        });
        // Keep the replaced state beside it, until the restored one has been seen to work.
        renameSync(target, `${target}.before-restore`);
        for (const suffix of ['-wal', '-shm']) rmSync(`${target}${suffix}`, { force: true });
      }
      copyFileSync(file, target);
      ctx.print(`restored ${file} to ${target} (schema version ${version}); the previous state is ${target}.before-restore`);
    });

  return state;
}
