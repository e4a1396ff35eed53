/** `shopsync demo` (what `npm start` runs). */
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { parsePort, parsePositive } from '../args.js';
import type { CliContext } from '../context.js';
import { createCliLogger, envLogLevel } from '../logging.js';
import { onStopSignal } from '../signals.js';
import { version } from '../version.js';

/** Register the command. */
export function demoCommand(ctx: CliContext): Command {
  return new Command('demo')
    .description('start a sandbox shop, a sample ERP and the shipped pipelines, with the dashboard (what `npm start` runs)')
    .addOption(new Option('--port <port>', 'dashboard port (default 8080, or a free one when taken)').argParser(parsePort))
    .addOption(new Option('--sandbox-port <port>', 'sandbox shop port (default 8081, or a free one when taken)').argParser(parsePort))
    .option('--dir <folder>', 'where the demo keeps the shop, the ERP and the state', join('state', 'demo'))
    .option('--interval <seconds>', 'seconds between scheduled runs', parsePositive, 10)
    .option('--order-every <seconds>', 'seconds between demo orders placed in the shop', parsePositive, 20)
    .option('--fresh', 'start over: delete the demo folder first')
    .addHelpText(
      'after',
      `
Prints the dashboard URL, the sandbox's URL and token, and where the demo ERP's files are, then
what happens as it happens. The full JSON log goes to <dir>/demo.log. Ctrl-C stops cleanly; the
next start continues with the same shop, ERP and state.`,
    )
    .action(async (opts: { port?: number; sandboxPort?: number; dir: string; interval: number; orderEvery: number; fresh?: boolean }, cmd: Command) => {
      const dir = resolve(opts.dir);
      if (opts.fresh) rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const logFile = createWriteStream(join(dir, 'demo.log'), { flags: 'a' });
      const { logger } = createCliLogger({ level: ctx.flags(cmd).logLevel ?? envLogLevel(ctx.io.env) ?? 'info', pretty: false, destination: logFile });
      const stop = onStopSignal();
      const clock = () => new Date().toTimeString().slice(0, 8);
      try {
        const { startDemo } = await import('../../ops/demo/index.js');
        ctx.print('Starting the shopsync demo…');
        const demo = await startDemo({
          dir,
          port: opts.port,
          sandboxPort: opts.sandboxPort,
          intervalSec: opts.interval,
          orderEverySec: opts.orderEvery,
          logger,
          say: (line) => ctx.print(line.startsWith('Dashboard:') || line.startsWith('Sandbox shop:') || line.startsWith('Demo ERP:') || line.startsWith('Pipelines run') ? line : `${clock()}  ${line}`),
          version: version(),
        });
        await stop.stopped;
        ctx.print('Stopping the demo…');
        await demo.close();
        ctx.print('Demo stopped. `npm start` continues where it left off.');
      } finally {
        stop.dispose();
        await new Promise<void>((r) => logFile.end(r));
      }
    });
}
