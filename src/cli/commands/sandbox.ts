/** `shopsync sandbox`: run the local shop sandbox until SIGINT/SIGTERM. */
import { Command, Option } from 'commander';
import type { CliContext } from '../context.js';
import { parsePort } from '../args.js';
import { onStopSignal } from '../signals.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Register the command. */
export function sandboxCommand(ctx: CliContext): Command {
  return new Command('sandbox')
    .description('run a local shop that speaks the Shop Administration JSON API (for trials and tests)')
    .addOption(new Option('--port <port>', 'TCP port (0 = a free port)').argParser(parsePort).default(0))
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .addOption(new Option('--seed <seed>', 'wipe and seed the shop: demo (sample catalogue) or empty').choices(['demo', 'empty']))
    .option('--db <file>', 'SQLite file of the shop', 'state/sandbox.sqlite')
    .option('--memory', 'keep the shop in memory only (forgotten on exit)')
    .option('--token <value[=scope,…]>', 'accept this bearer token (repeatable; default: sandbox-token with every scope)', collect)
    .option('--client <id:secret[=scope,…]>', 'accept this OAuth client at POST /oauth/token (repeatable)', collect)
    .addHelpText('after', '\nPrints one line with the base URL when ready; stops cleanly on Ctrl-C (SIGINT) or SIGTERM.')
    .action(async (opts: { port: number; host: string; seed?: 'demo' | 'empty'; db: string; memory?: boolean; token?: string[]; client?: string[] }, cmd: Command) => {
      // Loaded here, not at the top: `shopsync --help` should not load the whole shop.
      const { startSandbox, parseTokenSpec, parseClientSpec } = await import('../../sandbox/index.js');
      const tokens = opts.token?.map(parseTokenSpec);
      const clients = opts.client?.map(parseClientSpec);
      const logger = ctx.logger(cmd, 'stderr');
      const stop = onStopSignal();
      try {
        const sandbox = await startSandbox({
          port: opts.port,
          host: opts.host,
          seed: opts.seed,
          dbPath: opts.memory ? ':memory:' : opts.db,
          tokens,
          clients,
          logger,
        });
        const tokenHint = opts.token?.length ? '' : ` (token: ${sandbox.token})`;
        ctx.print(`shopsync sandbox listening on ${sandbox.url}${tokenHint}`);
        await stop.stopped;
        await sandbox.close();
        logger.info('sandbox stopped');
      } finally {
        stop.dispose();
      }
    });
}
