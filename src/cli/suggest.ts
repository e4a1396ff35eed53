/**
 * "Did you mean …?" for unknown commands across the whole command tree: `shopsync check` names
 * `shopsync mappings check`. commander's own suggestion (showSuggestionAfterError) looks at the
 * siblings only; this reads every command from the program itself, so a new command is found
 * without a list to keep in step.
 */
import type { Command } from 'commander';
import { nearestMatches } from '../util/suggest.js';

/** A command of the tree under one of the names that call it. */
interface Callable {
  /** The words after the program's name (`['mappings', 'check']`). */
  readonly path: readonly string[];
  /** Its name or an alias. */
  readonly name: string;
}

function callables(cmd: Command, parents: readonly string[] = []): Callable[] {
  const out: Callable[] = [];
  for (const sub of cmd.commands) {
    // commander's own `help` command is offered by every --help already.
    if (sub.name() === 'help') continue;
    const path = [...parents, sub.name()];
    for (const name of [sub.name(), ...sub.aliases()]) out.push({ path, name });
    out.push(...callables(sub, path));
  }
  return out;
}

function pathOf(cmd: Command): string[] {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words;
}

/**
 * The commands nearest to `word`, typed where `at` expects a command, written out in full
 * (`shopsync mappings check`): the nearest names of the whole tree by the one typo rule of
 * src/util/suggest.ts; among equally near ones, the commands of `at` alone if it has any.
 */
export function suggestCommands(program: Command, at: Command, word: string): string[] {
  const here = pathOf(at);
  const nearest = nearestMatches(word, callables(program), (c) => c.name);
  const own = nearest.filter((c) => c.path.length === here.length + 1 && here.every((w, i) => c.path[i] === w));
  return [...new Set((own.length > 0 ? own : nearest).map((c) => [program.name(), ...c.path].join(' ')))];
}

/**
 * Make every command with subcommands answer an unknown one with the nearest commands of the
 * whole tree, as a usage error (exit 2 through main's CommanderError handling).
 */
export function suggestUnknownCommands(program: Command): void {
  const hook = (cmd: Command) => {
    if (cmd.commands.length === 0) return;
    cmd.on('command:*', (operands: string[]) => {
      const word = operands[0] ?? '';
      const near = suggestCommands(program, cmd, word);
      cmd.error(`error: unknown command '${word}'${near.length > 0 ? `\n(Did you mean ${near.join(' or ')}?)` : ''}`, { code: 'commander.unknownCommand', exitCode: 2 });
    });
    for (const sub of cmd.commands) hook(sub);
  };
  hook(program);
}
