/** Every `shopsync` command. */
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { backfillCommand } from './backfill.js';
import { configCommand } from './config.js';
import { demoCommand } from './demo.js';
import { doctorCommand } from './doctor.js';
import { initCommand } from './init.js';
import { dlqCommand } from './dlq.js';
import { conflictsCommand } from './conflicts.js';
import { erpCommand } from './erp.js';
import { jobsCommand } from './jobs.js';
import { mappingsCommand } from './mappings.js';
import { reconcileCommand } from './reconcile.js';
import { runCommand } from './run.js';
import { sandboxCommand } from './sandbox.js';
import { shopsCommand } from './shops.js';
import { stateCommand } from './state.js';
import { statusCommand } from './status.js';
import { syncCommand } from './sync.js';

/** Add the commands to the program. */
export function registerCommands(program: Command, ctx: CliContext): void {
  program.addCommand(initCommand(ctx));
  program.addCommand(runCommand(ctx));
  program.addCommand(syncCommand(ctx));
  program.addCommand(backfillCommand(ctx));
  program.addCommand(reconcileCommand(ctx));
  program.addCommand(statusCommand(ctx));
  program.addCommand(dlqCommand(ctx));
  program.addCommand(conflictsCommand(ctx));
  program.addCommand(jobsCommand(ctx));
  program.addCommand(shopsCommand(ctx));
  program.addCommand(stateCommand(ctx));
  program.addCommand(doctorCommand(ctx));
  program.addCommand(configCommand(ctx));
  program.addCommand(erpCommand(ctx));
  program.addCommand(mappingsCommand(ctx));
  program.addCommand(sandboxCommand(ctx));
  program.addCommand(demoCommand(ctx));
}
