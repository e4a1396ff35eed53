/** What every command gets: output streams, the environment, global flags and a logger factory. */
import type { Command } from 'commander';
import { scrubSecrets, type Logger } from '../log.js';
import type { LoadedConfig } from '../config/index.js';
import { createCliLogger, envLogLevel, type CliLogger } from './logging.js';

/** Flags every command accepts. */
export interface GlobalFlags {
  readonly config?: string;
  readonly logLevel?: string;
  readonly pretty?: boolean;
}

/** Process I/O of the CLI (swappable for tests). */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
}

/** Shared state of one CLI invocation. */
export class CliContext {
  exitCode = 0;
  private log?: CliLogger;
  private secrets: string[] = [];

  constructor(readonly io: CliIo) {}

  /** Global flags as seen from a (sub)command. */
  flags(cmd: Command): GlobalFlags {
    return cmd.optsWithGlobals<GlobalFlags>();
  }

  /**
   * The root logger. Long-running commands log to stdout (the log is their output); one-shot
   * commands log to stderr so their stdout stays data.
   */
  logger(cmd: Command, to: 'stdout' | 'stderr', levelFromConfig?: string): Logger {
    if (!this.log) {
      const flags = this.flags(cmd);
      this.log = createCliLogger({
        level: flags.logLevel ?? envLogLevel(this.io.env) ?? levelFromConfig,
        pretty: flags.pretty,
        destination: to === 'stdout' ? this.io.stdout : this.io.stderr,
      });
      this.log.addSecrets(this.secrets);
    }
    return this.log.logger;
  }

  /** Whether the logger writes pretty lines. */
  get prettyLogs(): boolean {
    return this.log?.pretty ?? false;
  }

  /** Load the config named by --config / SHOPSYNC_CONFIG and remember its secrets for scrubbing. */
  async config(cmd: Command): Promise<LoadedConfig> {
    // The config's code (yaml, zod and every schema) loads with the first command that reads it, not with `--version` or `--help`.
    const { loadConfig, resolveConfigPath } = await import('../config/index.js');
    const loaded = await loadConfig(resolveConfigPath(this.flags(cmd).config, this.io.env), { env: this.io.env });
    this.secrets.push(...loaded.secrets);
    this.log?.addSecrets(loaded.secrets);
    return loaded;
  }

  /** Known secrets (for scrubbing text printed outside the logger). */
  addSecrets(values: readonly string[]): void {
    this.secrets.push(...values);
    this.log?.addSecrets(values);
  }

  /** Write data to stdout. */
  print(text: string): void {
    this.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** Write a message for humans to stderr, scrubbed of secrets. */
  say(text: string): void {
    this.io.stderr.write(`${scrubSecrets(text, this.secrets)}\n`);
  }
}
