/** `shopsync doctor`: check an installation end to end; exit 0 when every check passes. */
import { Command } from 'commander';
import type { CliContext } from '../context.js';
import { EXIT } from '../exit.js';

/** Register the command. */
export function doctorCommand(ctx: CliContext): Command {
  return new Command('doctor')
    .description('check the config, every connection, the shop and the token\'s scopes per pipeline, the state and the clock')
    .option('--json', 'print the checks as JSON')
    .addHelpText('after', '\nExit code 0 when every check passes, 1 when one fails, 2 when the config does not load.')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const loaded = await ctx.config(cmd);
      const logger = ctx.logger(cmd, 'stderr', loaded.config.log.level ?? 'error');
      const { runDoctor } = await import('../../ops/doctor.js');
      const checks = await runDoctor(loaded, logger);
      const failed = checks.filter((c) => !c.ok);
      if (opts.json) ctx.print(JSON.stringify({ ok: failed.length === 0, checks }, null, 2));
      else {
        for (const c of checks) ctx.print(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
        ctx.print(failed.length === 0 ? `all ${checks.length} checks passed` : `${failed.length} of ${checks.length} checks failed`);
      }
      ctx.exitCode = failed.length === 0 ? EXIT.ok : EXIT.failed;
    });
}
