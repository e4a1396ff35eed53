/** Open a runtime for a one-off command and always close it. */
import type { Command } from 'commander';
import type { LoadedConfig } from '../config/index.js';
import type { Logger } from '../log.js';
import type { Runtime } from '../ops/runtime.js';
import type { CliContext } from './context.js';

/** What a command body receives. */
export interface Session {
  readonly runtime: Runtime;
  readonly loaded: LoadedConfig;
  readonly logger: Logger;
}

/** Options of `withRuntime`. */
export interface SessionOptions {
  /** The command only reads: a SQLite state that cannot be written (full disk, read-only) opens read-only with a warning. @default false */
  readonly readOnlyFallback?: boolean;
}

/** Load the config, open the runtime, run `body`, close everything (even when `body` throws). */
export async function withRuntime<T>(ctx: CliContext, cmd: Command, logTo: 'stdout' | 'stderr', body: (s: Session) => Promise<T>, options: SessionOptions = {}): Promise<T> {
  const loaded = await ctx.config(cmd);
  const logger = ctx.logger(cmd, logTo, loaded.config.log.level);
  for (const w of loaded.warnings) logger.warn(w);
  const { openRuntime } = await import('../ops/runtime.js');
  // A one-off command serves no /metrics: its runtime counts none (and loads no prom-client).
  const runtime = await openRuntime(loaded, { logger, metrics: false, ...(options.readOnlyFallback ? { readOnlyFallback: true } : {}) });
  // A one-off run (cron, systemd, a backfill by hand) alerts as the daemon's would: a failed,
  // abandoned or crashed run reaches a person even when nobody reads this command's output.
  // Without a channel `startAlerts` starts nothing: its module (and nodemailer) is not loaded then.
  const alerts = hasAlertChannel(loaded.config.alerts) ? await startSessionAlerts(runtime, loaded, logger) : undefined;
  try {
    return await body({ runtime, loaded, logger });
  } finally {
    try {
      await alerts?.stop();
    } finally {
      await runtime.close();
    }
  }
}

/** Whether the config names a channel alerts go to (`channelsOf` in src/alerts builds one for each). */
function hasAlertChannel(cfg: LoadedConfig['config']['alerts']): boolean {
  return cfg.webhook !== undefined || cfg.email !== undefined;
}

/** The one-off command's alert watcher, as the daemon's would watch its runs. */
async function startSessionAlerts(runtime: Runtime, loaded: LoadedConfig, logger: Logger) {
  const { alertShopsOf, reservationLanesOf, startAlerts } = await import('../alerts/index.js');
  return startAlerts(loaded.config.alerts, { events: runtime.events, state: runtime.state, scheduled: [], secrets: loaded.secrets, shops: alertShopsOf(loaded), reservations: reservationLanesOf(loaded.config), logger });
}
