/** `shopsync run`: the daemon. */
import { Command, Option } from 'commander';
import { parsePort } from '../args.js';
import { EXIT } from '../exit.js';
import type { CliContext } from '../context.js';
import { onStopSignal } from '../signals.js';
import { version } from '../version.js';

/** Register the command. */
export function runCommand(ctx: CliContext): Command {
  return new Command('run')
    .description('run the daemon: pipelines on their schedules, dashboard, /healthz, /readyz and /metrics')
    .addOption(new Option('--port <port>', 'override dashboard.port').argParser(parsePort))
    .option('--host <host>', 'override dashboard.host (anything but loopback needs dashboard.token)')
    .option('--no-dashboard', 'serve only /healthz, /readyz and /metrics')
    .addHelpText(
      'after',
      `
Runs until SIGTERM or SIGINT: then it stops scheduling, lets in-flight runs settle or checkpoint
within daemon.shutdownGraceMs, closes the state database and exits 0. A run that outlives the
grace period is cut off and the exit code is 4. A run whose final status the state refuses (it is
down or restarting) is tried again until it lands; if it still cannot be written at shutdown, the
run is named on stderr and the exit code is 1. Runs left unfinished (cut off, or by a crash) are
marked crashed at the next start and continue from their last checkpoint.

With the state in PostgreSQL (state.kind: postgres) start it as many times as you like: runs become
jobs any replica may take, one replica at a time per pipeline; SIGTERM hands running jobs back to the
other replicas, and a replica silent for replicas.deadAfterMs counts as dead (its jobs run elsewhere).
SHOPSYNC_REPLICA names the replica (default host:pid). A SQLite state takes one daemon only.`,
    )
    .action(async (opts: { port?: number; host?: string; dashboard: boolean }, cmd: Command) => {
      const loaded = await ctx.config(cmd);
      const logger = ctx.logger(cmd, 'stdout', loaded.config.log.level);
      for (const w of loaded.warnings) logger.warn(w);
      const stop = onStopSignal();
      try {
        const { startDaemon } = await import('../../ops/daemon.js');
        const daemon = await startDaemon(loaded, { logger, port: opts.port, host: opts.host, dashboard: opts.dashboard ? undefined : false, version: version() });
        const signal = await stop.stopped;
        logger.info({ signal }, 'stopping: no new runs; waiting for in-flight runs to checkpoint');
        const result = await daemon.close();
        if (result.leftRunning.length > 0) {
          // The state shows these runs `running` although this process is about to end: never exit 0 over that.
          for (const r of result.leftRunning) ctx.say(`run #${r.runId} of ${r.pipeline} is still \`running\` in the state: its final status could not be written (${r.error}); the next start marks it crashed`);
          ctx.exitCode = EXIT.failed;
          setTimeout(() => process.exit(ctx.exitCode), 1000).unref();
        } else if (!result.settled) {
          // A run outlived the grace period: it is cut off here like a crash (every write is
          // transactional; it is marked crashed and continues from its last checkpoint, and on
          // replicas its job is freed once this replica counts as dead). Exit 4 says so; it still
          // holds sockets, so do not let it keep the process alive.
          ctx.exitCode = EXIT.interrupted;
          setTimeout(() => process.exit(ctx.exitCode), 1000).unref();
        }
      } finally {
        stop.dispose();
      }
    });
}
