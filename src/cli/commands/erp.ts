/** `shopsync erp notify-setup`: the ERP-side setup a trigger needs (docs/triggers.md). */
import { Command } from 'commander';
import { TABLE_NAME } from '../../erp/names.js';
import { durationTextMs } from '../../util/duration.js';
import { StateError } from '../../errors.js';
import { didYouMean } from '../../util/suggest.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../exit.js';

const tableList = (text: string, previous: string[] = []): string[] => {
  const tables = text.split(',').map((t) => t.trim()).filter((t) => t !== '');
  for (const t of tables) {
    if (!TABLE_NAME.test(t)) throw new UsageError(`--table ${t}: expected a table name such as artikel or erp.artikel (letters, digits and _, one optional schema part)`);
  }
  return [...previous, ...tables];
};

const lockTimeout = (text: string): number => {
  // As the config's durations (durationSchema), checked without loading the config's schemas.
  const ms = durationTextMs(text);
  if (ms === undefined || ms < 1) throw new UsageError(`--lock-timeout ${text}: expected a duration of at least 1ms such as 5s or 30s`);
  return ms;
};

/** Register the command group. */
export function erpCommand(ctx: CliContext): Command {
  const erp = new Command('erp').description('set up the ERP side of a pipeline (NOTIFY triggers for trigger: { notify: true })');

  erp
    .command('notify-setup')
    .description('print (or with --apply install) the PostgreSQL trigger function and statement-level triggers that NOTIFY the pipeline\'s channel when its source tables change')
    .argument('<pipeline>', 'a push pipeline whose source is a PostgreSQL connection')
    .option('--table <tables>', 'the source tables whose changes wake the pipeline, comma-separated (repeatable): artikel,lager or erp.artikel', tableList)
    .option('--apply', 'run the SQL on the source connection, in one transaction, and say what it did')
    .option('--drop', 'the removal instead: drop the triggers (and the function once no trigger uses it)')
    .option('--lock-timeout <duration>', 'how long the DDL may wait for each table\'s lock before it gives up (an open ERP transaction holds it; meanwhile the ERP\'s writers queue behind it), e.g. 30s; default 5s', lockTimeout)
    .addHelpText(
      'after',
      "\nWithout --apply nothing is changed: the SQL goes to stdout (pipe it into psql as the tables' owner).\n" +
        "Run it as the tables' owner (or a temporary setup role that is a member of it), never as shopsync's sync user:\n" +
        'a trigger function runs with the privileges of whoever writes the table. Do not grant TRIGGER or CREATE to the sync user.',
    )
    .action(async (name: string, opts: { table?: string[]; apply?: boolean; drop?: boolean; lockTimeout?: number }, cmd: Command) => {
      const loaded = await ctx.config(cmd);
      const logger = ctx.logger(cmd, 'stderr', loaded.config.log.level ?? 'error');
      const pipelines = loaded.config.pipelines;
      const index = pipelines.findIndex((p) => p.name === name);
      const pipeline = pipelines[index];
      if (!pipeline) {
        const near = didYouMean(name, pipelines.map((p) => p.name));
        throw new StateError('UNKNOWN_PIPELINE', `no pipeline named "${name}" in ${loaded.file}; known: ${pipelines.map((p) => p.name).join(', ') || '(none)'}${near ? `; did you mean "${near}"?` : ''}`);
      }
      const { notifySourceOf, notifySetupSql, notifySetupScript, applyNotifySetup, tablesNamedIn } = await import('../../triggers/notify/index.js');
      const source = notifySourceOf(pipeline, loaded.config.connections);
      const tables = opts.table ?? [];
      if (tables.length === 0) {
        const named = tablesNamedIn(source.queries);
        throw new UsageError(
          `pipeline "${name}" reads its source with a query; name the tables whose changes should wake it: --table ${named.length > 0 ? named.join(',') : '<table>[,<table>…]'}` +
            (named.length > 0 ? ` (the tables its queries name; leave out views and CTEs)` : ''),
        );
      }
      const setup = notifySetupSql({ channel: source.channel, tables, ...(opts.lockTimeout !== undefined ? { lockTimeoutMs: opts.lockTimeout } : {}), ...(source.connection.schema ? { schema: source.connection.schema } : {}) });
      const mode = opts.drop ? 'drop' : 'install';
      if (!opts.apply) {
        ctx.print(notifySetupScript(setup, mode, name));
        ctx.say(`nothing changed: this is the SQL only. Run it as the tables' owner (psql -f), or again with --apply to run it on connection "${source.connectionName}".`);
        return;
      }
      const { openPostgres } = await import('../../erp/sql/postgres.js');
      const { connectionOrigin } = await import('../../config/index.js');
      const driver = await openPostgres(source.connection, ctx.io.env, logger, false, loaded.baseDir, connectionOrigin(loaded, source.connectionName, { pipeline: index, side: 'source' }));
      try {
        const done = await applyNotifySetup(driver, setup, mode);
        const verb = mode === 'install' ? 'installed' : 'removed';
        ctx.print(`${verb} the NOTIFY setup of pipeline ${name} (channel ${setup.channel}) on connection "${source.connectionName}":`);
        ctx.print(`  function ${done.functionName}(): ${done.function}`);
        for (const t of done.triggers) ctx.print(`  trigger ${setup.triggerName} on ${t.table}: ${t.did}${mode === 'install' ? ' (AFTER INSERT OR UPDATE OR DELETE, FOR EACH STATEMENT)' : ''}`);
        for (const note of done.notes) ctx.say(note);
        if (mode === 'install' && !pipeline.trigger?.notify) ctx.say(`pipeline "${name}" has no trigger: { notify: true } yet: add it, so the daemon listens on ${setup.channel}`);
        if (mode === 'drop' && pipeline.trigger?.notify) ctx.say(notifyLeftAfterDrop(name, pipeline.schedule));
      } finally {
        await driver.close();
      }
    });

  return erp;
}

/**
 * What `--drop --apply` says of a pipeline that still has `trigger.notify`, by whether it has a
 * schedule: one with `*\/5` was told to "give it a schedule" (issue 45).
 */
export function notifyLeftAfterDrop(name: string, schedule: string | undefined): string {
  return schedule !== undefined
    ? `pipeline "${name}" still has trigger.notify: it still runs on its schedule ${schedule}; notify without triggers only wakes it after a reconnect of its listener: remove trigger.notify`
    : `pipeline "${name}" still has trigger.notify and no schedule: without the triggers nothing wakes it but a reconnect of its listener; give it a schedule or remove trigger.notify`;
}
