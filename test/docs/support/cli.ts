/**
 * Command lines from the docs against the real commander program (src/cli): an unknown command,
 * an unknown or renamed flag, a missing argument or a bad choice fails, without running anything.
 */
import { PassThrough } from 'node:stream';
import { Command, CommanderError } from 'commander';
import { buildProgram } from '../../../src/cli/main.js';
import { CliContext } from '../../../src/cli/context.js';

function program(): { program: Command; output: () => string } {
  const sink = new PassThrough();
  let text = '';
  sink.on('data', (d: Buffer) => (text += d.toString()));
  const p = buildProgram(new CliContext({ stdout: sink, stderr: sink, env: {} }));
  // Parse only: every leaf command's action is replaced, so nothing is loaded, opened or run.
  const stub = (cmd: Command): void => {
    if (cmd.commands.length === 0) cmd.action(() => undefined);
    for (const sub of cmd.commands) stub(sub);
  };
  for (const sub of p.commands) stub(sub);
  return { program: p, output: () => text };
}

/** Parse `shopsync <args…>`; resolves to undefined when commander accepts it, else to its complaint. */
export async function parseProblem(args: readonly string[]): Promise<string | undefined> {
  const { program: p, output } = program();
  try {
    await p.parseAsync([...args], { from: 'user' });
    return undefined;
  } catch (err) {
    if (err instanceof CommanderError && (err.code === 'commander.helpDisplayed' || err.code === 'commander.version')) return undefined;
    if (err instanceof CommanderError) return output().split('\n')[0] || err.message;
    throw err;
  }
}

/** The command names below the program (`sync`, `dlq list`…), to resolve a written command path. */
export function commandTree(): Command {
  return program().program;
}

/** Flags a command accepts, its ancestors' included (`--config` is the program's). */
export function flagsOf(cmd: Command): Set<string> {
  const out = new Set<string>(['-h', '--help']);
  for (let c: Command | null = cmd; c; c = c.parent) {
    for (const o of c.options) {
      if (o.long) out.add(o.long);
      if (o.short) out.add(o.short);
    }
  }
  return out;
}

/**
 * Check a synopsis written in prose (`shopsync dlq retry <ids…> | --all [-p <pipeline>] [--json]`):
 * the command path exists and every flag named is one of its options.
 */
export function synopsisProblem(text: string): string | undefined {
  const words = text.replace(/^npx\s+/, '').split(/\s+/).slice(1);
  let cmd = commandTree();
  let i = 0;
  for (; i < words.length; i++) {
    const w = words[i] as string;
    const sub = cmd.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (!sub) break;
    cmd = sub;
  }
  const next = words[i];
  if (cmd.commands.length > 0 && next !== undefined && /^[a-z][a-z-]*$/.test(next)) {
    return `unknown command "${next}" after "shopsync ${words.slice(0, i).join(' ')}"; known: ${cmd.commands.map((c) => c.name()).join(', ')}`;
  }
  const flags = flagsOf(cmd);
  for (const m of words.slice(i).join(' ').matchAll(/(?:^|[\s[(|])(-{1,2}[A-Za-z][A-Za-z0-9-]*)/g)) {
    const flag = m[1] as string;
    if (!flags.has(flag)) return `"shopsync ${words.slice(0, i).join(' ')}" has no option ${flag}; it has ${[...flags].sort().join(' ')}`;
  }
  return undefined;
}
