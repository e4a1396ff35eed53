/** Every `shopsync` command. */
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { sandboxCommand } from './sandbox.js';

/** Add the commands to the program. */
export function registerCommands(program: Command, ctx: CliContext): void {
  program.addCommand(sandboxCommand(ctx));
}
