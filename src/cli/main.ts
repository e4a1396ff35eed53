/**
 * The `shopsync` command line. `bin/shopsync.js` calls `main(process.argv)` and exits with the
 * code it resolves to (see `EXIT` in ./exit.ts for what each code means).
 */
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, errorLine } from '../errors.js';
import { CliContext, type CliIo } from './context.js';
import { EXIT, exitCodeFor, UsageError } from './exit.js';
import { registerCommands } from './commands/index.js';
import { suggestUnknownCommands } from './suggest.js';
import { survivePipeClose } from './pipes.js';
import { version } from './version.js';
import { exitWhenAbandoned, holdOpen } from '../drain/index.js';

/** Build the program with every command (exported for help-text tests). */
export function buildProgram(ctx: CliContext): Command {
  const program = new Command('shopsync')
    .description('Sync products, stock, prices, customers and orders between your ERP and your shop')
    .version(version(), '-V, --version')
    .option('-c, --config <file>', 'config file (default: $SHOPSYNC_CONFIG or ./shopsync.yaml)')
    .addOption(new Option('--log-level <level>', 'log level (default: $LOG_LEVEL, log.level from the config, or info)').choices(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']))
    .option('--pretty', 'human-readable logs (default when the log goes to a terminal)')
    .option('--no-pretty', 'JSON log lines even on a terminal')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
    })
    .addHelpText(
      'after',
      `
Exit codes:
  0  ok
  1  a run failed or finished with failed/dead-lettered records
  2  usage or config error
  3  lock held: another process is running this pipeline
  4  interrupted by SIGINT/SIGTERM; state is consistent and a rerun continues
  5  abandoned: the process had nothing left to wait on with a run still open; the run is
     marked failed [RUN_ABANDONED], a rerun continues (a bug: please report it)`,
    );
  registerCommands(program, ctx);
  // Every subcommand reports usage errors like the program does.
  for (const cmd of program.commands) propagate(cmd, ctx);
  suggestUnknownCommands(program);
  return program;
}

function propagate(cmd: Command, ctx: CliContext): void {
  cmd.exitOverride().showHelpAfterError('(run with --help for usage)').configureOutput({ writeOut: (s) => ctx.io.stdout.write(s), writeErr: (s) => ctx.io.stderr.write(s) });
  for (const sub of cmd.commands) propagate(sub, ctx);
}

/** Run the CLI with `argv` (as in process.argv: node, script, args…); resolves to the exit code. */
export async function main(argv: readonly string[] = process.argv, io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  // `shopsync … | head -1`: a reader that goes away drops the rest of the output, nothing else (docs/cli.md#pipes).
  survivePipeClose(io.stdout);
  survivePipeClose(io.stderr);
  const ctx = new CliContext(io);
  const program = buildProgram(ctx);
  // The command, and every run it opens, keeps the process from ending quietly before it is done.
  exitWhenAbandoned(EXIT.abandoned);
  const open = holdOpen('command', `the command \`shopsync ${argv.slice(2).join(' ')}\``, () => 'no run of it was open');
  try {
    await open.race(program.parseAsync([...argv]));
    return ctx.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version end by "throwing" too; only real usage errors get code 2.
      return err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? EXIT.ok : EXIT.usage;
    }
    const code = exitCodeFor(err);
    // Config and usage errors are meant for a person reading them; a code prefix adds nothing there.
    const text = err instanceof ConfigError || err instanceof UsageError ? err.message : errorLine(err);
    ctx.say(`shopsync: ${text}`);
    return code;
  } finally {
    open.close();
  }
}
