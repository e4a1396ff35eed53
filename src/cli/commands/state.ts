/** `shopsync state prune|backup|restore|copy`: keep the state bounded, copy it safely, move it between backends. */
import { chmodSync, copyFileSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { PRIVATE_FILE_MODE } from '../../util/privateFiles.js';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { StateError } from '../../errors.js';
import type { LockInfo, RestoreMark, StateLocation, StateStore } from '../../state/index.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../exit.js';
import { withRuntime } from '../session.js';

function bytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;
}

/** A `--from`/`--to` argument: a postgres:// URL, or a SQLite file. */
export function placeOf(text: string, schema: string): StateLocation {
  return /^postgres(ql)?:\/\//i.test(text) ? { kind: 'postgres', url: text, schema } : { kind: 'sqlite', path: resolve(text) };
}

/** The password of a URL, to scrub from anything printed. */
function passwordOf(place: StateLocation): string[] {
  if (place.kind !== 'postgres') return [];
  try {
    const password = decodeURIComponent(new URL(place.url).password);
    return password ? [password] : [];
  } catch {
    return [];
  }
}

/** Locks of processes that still run (SQLite keeps rows of dead ones on this host until taken over). */
async function liveLocks(state: StateStore): Promise<LockInfo[]> {
  const { processAlive } = await import('../../state/index.js');
  return (await state.locks.list()).filter((l) => state.backend === 'postgres' || l.host !== hostname() || processAlive(l.pid));
}

const inUse = (held: readonly LockInfo[]) => held.map((l) => `${l.name} by pid ${l.pid} on ${l.host}`).join(', ');

/** Write the restore mark into the state just put in place (migrating it, as its next opening would). */
async function markRestored(target: string, file: string): Promise<RestoreMark> {
  const { openState } = await import('../../state/index.js');
  const restored = await openState(target);
  try {
    const newest = (await restored.runs.latestByPipeline()).map((r) => r.startedAt).sort().at(-1);
    const mark: RestoreMark = { restoredAt: Date.now(), file: resolve(file), backupWrittenAt: statSync(file).mtimeMs, ...(newest ? { newestRunAt: newest } : {}) };
    await restored.rewinds.markRestored(mark);
    return mark;
  } finally {
    await restored.close();
  }
}

/** Register the command group. */
export function stateCommand(ctx: CliContext): Command {
  const state = new Command('state').description('the state: prune old history, back up, restore, copy between SQLite and PostgreSQL');

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
          const reclaimed = report.dryRun ? '' : runtime.state.backend === 'postgres' ? '; PostgreSQL reclaims the space by autovacuum' : `; reclaimed ${bytes(report.reclaimedBytes)}`;
          ctx.print(`${verb} ${report.events} events, cleared ${report.payloads} stored payloads, ${verb} ${report.runs} runs${reclaimed}`);
          ctx.print(report.historySince ? `history now goes back to ${report.historySince}` : 'no history kept');
        }
      });
    });

  state
    .command('backup')
    .description('write a consistent copy of the state to a file, also while the daemon runs (SQLite online backup; PostgreSQL: use pg_dump)')
    .argument('<file>', 'where to write the copy (must not exist)')
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      if (existsSync(file)) throw new UsageError(`${file} exists; give a new file name (a backup never overwrites)`);
      await withRuntime(ctx, cmd, 'stderr', async ({ runtime }) => {
        try {
          await runtime.state.backup(file);
        } catch (err) {
          if (err instanceof StateError && err.code === 'STATE_BACKUP_UNSUPPORTED') throw new UsageError(err.message);
          throw err;
        }
        ctx.print(`backed up ${runtime.state.location} to ${file} (schema version ${await runtime.state.schemaVersion()})`);
      });
    });

  state
    .command('restore')
    .description('put a backup in place of the SQLite state; refused while a daemon (or a run) holds the state')
    .argument('<file>', 'a file written by `shopsync state backup`')
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      if (!existsSync(file)) throw new UsageError(`${file} does not exist`);
      const loaded = await ctx.config(cmd);
      const target = loaded.statePath;
      if (target === ':memory:') throw new UsageError('the state is in memory (state.path: :memory:); nothing to restore into');
      // The backup must be a state database this version can open.
      const { default: Database } = await import('better-sqlite3');
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
      const existed = existsSync(target);
      // Opened also when there is no file yet: only the runtime knows whether the state is in PostgreSQL.
      await withRuntime(ctx, cmd, 'stderr', async ({ runtime }) => {
        if (runtime.state.backend !== 'sqlite') {
          throw new UsageError(
            `restore puts a SQLite file in place; this state is in PostgreSQL (${runtime.state.location}): restore a pg_dump with pg_restore or psql, or load a SQLite backup with \`shopsync state copy --from ${file} --to <postgres url> --force\``,
          );
        }
        const held = await liveLocks(runtime.state);
        if (held.length > 0) throw new UsageError(`the state is in use (${inUse(held)}); stop the daemon first, then restore`);
      });
      if (existed) {
        // Keep the replaced state beside it, until the restored one has been seen to work.
        renameSync(target, `${target}.before-restore`);
      } else {
        rmSync(target, { force: true });
      }
      for (const suffix of ['-wal', '-shm']) rmSync(`${target}${suffix}`, { force: true });
      copyFileSync(file, target);
      // The copy takes the backup's mode (an old backup's may be 0644); the state is the shopsync user's alone.
      chmodSync(target, PRIVATE_FILE_MODE);
      const mark = await markRestored(target, file);
      ctx.print(`restored ${file} to ${target} (schema version ${version})${existed ? `; the previous state is ${target}.before-restore` : ''}`);
      ctx.print(
        `pull pipelines deliver nothing until you accept the restore: the state ${mark.newestRunAt ? `(newest run ${mark.newestRunAt}) ` : ''}does not know what they delivered since the backup. Run \`shopsync state accept-restore [pipeline]\` once the ERP side is checked (docs/operations.md, "The state goes back in time")`,
      );
    });

  state
    .command('accept-restore')
    .description('let pull pipelines deliver again after a restore or a deleted state: rows the sink already holds are updated in place, never inserted twice')
    .argument('[pipeline]', 'one pull pipeline (default: every pull pipeline of the config)')
    .action(async (name: string | undefined, _opts: unknown, cmd: Command) => {
      await withRuntime(ctx, cmd, 'stderr', async ({ runtime, loaded }) => {
        const pulls = loaded.config.pipelines.filter((p) => p.direction === 'pull').map((p) => p.name);
        if (name !== undefined && !pulls.includes(name)) {
          const known = loaded.config.pipelines.some((p) => p.name === name);
          throw new UsageError(`${known ? `${name} is a push; only pull pipelines are held back after a restore (the shop side keeps pushes from creating twice)` : `no pipeline ${name} in the config`}; pull pipelines: ${pulls.join(', ') || 'none'}`);
        }
        const names = name !== undefined ? [name] : pulls;
        if (names.length === 0) return ctx.print('the config has no pull pipeline: nothing is held back after a restore (only pulls are)');
        const mark = await runtime.state.rewinds.restored();
        for (const pipeline of names) {
          await runtime.state.rewinds.accept(pipeline, Date.now());
          ctx.print(`accepted for ${pipeline}${mark ? `: the restore of ${mark.file} (${new Date(mark.restoredAt).toISOString()})` : ''}; rows its sink already holds are updated in place until a run has read everything since its cursor`);
        }
      });
    });

  state
    .command('copy')
    .description('copy a whole state between a SQLite file and PostgreSQL (either way), ids kept; stop every shopsync process using the source first')
    .requiredOption('--from <place>', 'the state to read: a SQLite file or a postgres:// URL')
    .requiredOption('--to <place>', 'the state to write: a postgres:// URL or a SQLite file (created when missing)')
    .option('--schema <name>', 'the PostgreSQL schema on the PostgreSQL side(s)', 'shopsync')
    .option('--dry-run', 'only count the rows that would be copied')
    .option('--force', 'replace what the target already holds')
    .option('--json', 'print the report as JSON')
    .action(async (opts: { from: string; to: string; schema: string; dryRun?: boolean; force?: boolean; json?: boolean }, cmd: Command) => {
      const from = placeOf(opts.from, opts.schema);
      const to = placeOf(opts.to, opts.schema);
      ctx.addSecrets([...passwordOf(from), ...passwordOf(to)]);
      if (from.kind === 'sqlite' && !existsSync(from.path)) throw new UsageError(`${from.path} does not exist; --from names the state to copy`);
      const logger = ctx.logger(cmd, 'stderr');
      const { openState } = await import('../../state/index.js');
      const { copyState, planCopy } = await import('../../state/copy.js');
      const { peekState } = await import('../../state/peek.js');
      const source = await openState(from, { logger });
      try {
        // A dry run only looks at the target: opening it would create the file or schema and apply the migrations.
        const target = opts.dryRun === true ? undefined : await openState(to, { logger });
        try {
          const held = await liveLocks(source);
          if (held.length > 0) throw new UsageError(`the source state is in use (${inUse(held)}); stop every shopsync process using it, then copy`);
          const run = target
            ? copyState(source, target, { force: opts.force === true, onTable: (table, copied, total) => logger.debug({ table, copied, total }, 'state copy progress') })
            : peekState(to).then((peeked) => planCopy(source, peeked, { force: opts.force === true }));
          const report = await run.catch((err: unknown) => {
            if (err instanceof StateError && (err.code === 'STATE_TARGET_NOT_EMPTY' || err.code === 'STATE_COPY_SAME')) throw new UsageError(err.message);
            throw err;
          });
          if (opts.json) return ctx.print(JSON.stringify(report, null, 2));
          const width = Math.max(...Object.keys(report.counts).map((t) => t.length));
          for (const [table, n] of Object.entries(report.counts)) ctx.print(`${table.padEnd(width)}  ${n}`);
          const rows = Object.values(report.counts).reduce((a, b) => a + b, 0);
          ctx.print(`${report.dryRun ? 'would copy' : 'copied'} ${rows} rows from ${report.from} to ${report.to}`);
        } finally {
          await target?.close();
        }
      } finally {
        await source.close();
      }
    });

  return state;
}
