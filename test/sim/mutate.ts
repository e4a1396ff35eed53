/**
 * Proof that the simulation bites: `npm run sim -- --mutation <name> …` copies the repository to a
 * temporary folder, applies test/sim/mutations/<name>.patch there (a fix of the product reverted,
 * or a bug put in on purpose), builds that copy and runs the same exploration in it. The checkout
 * is never touched. A failure the mutant's exploration finds is kept under
 * test/sim/mutations/found/ of this checkout, not among the regressions `npm test` replays.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureDist } from './dist.js';

const ROOT = resolve(import.meta.dirname, '../..');
const COPIED = ['src', 'test', 'bin', 'mappings', 'schemas', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

/** The argument list without `--mutation <name>`. */
function withoutMutation(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--mutation') i++;
    else if (!argv[i]!.startsWith('--mutation=')) out.push(argv[i]!);
  }
  return out;
}

/**
 * Apply a patch to the copy: `patch -p1` (git diff and diff -u with a/ b/ prefixes), then `-p0`
 * (paths from the repository's root), each tried dry first so a half-applied patch never stays;
 * fuzz 2 and whitespace leniency absorb context that moved a little since the patch was written.
 */
function applyPatch(patch: string, cwd: string): { ok: boolean; output: string } {
  let output = '';
  for (const strip of ['-p1', '-p0']) {
    const args = [strip, '--forward', '--fuzz=2', '--ignore-whitespace', '--no-backup-if-mismatch', '-i', patch];
    const dry = spawnSync('patch', ['--dry-run', ...args], { cwd, encoding: 'utf8' });
    output += `patch ${strip}: ${dry.stdout}${dry.stderr}`;
    if (dry.status !== 0) continue;
    const real = spawnSync('patch', args, { cwd, encoding: 'utf8' });
    return { ok: real.status === 0, output: `${real.stdout}${real.stderr}` };
  }
  return { ok: false, output };
}

/** Run the exploration `argv` asks for in a mutant copy; resolves with its exit code. */
export async function runMutation(name: string, argv: readonly string[]): Promise<number> {
  const patch = join(ROOT, 'test/sim/mutations', `${name}.patch`);
  if (!existsSync(patch)) {
    const known = readdirSync(join(ROOT, 'test/sim/mutations')).filter((f) => f.endsWith('.patch')).map((f) => f.replace(/\.patch$/, ''));
    throw new Error(`no mutation ${name}; known: ${known.join(', ')}`);
  }
  const copy = mkdtempSync(join(tmpdir(), `shopsync-mutant-${name}-`));
  try {
    for (const entry of COPIED) cpSync(join(ROOT, entry), join(copy, entry), { recursive: true, filter: (src) => !src.includes(`${join('test', 'sim', 'regressions')}`) });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    const applied = applyPatch(patch, copy);
    if (!applied.ok) throw new Error(`${name}.patch does not apply to this checkout (refresh it against the current src/, or check its paths: a/src/… b/src/… or src/…):\n${applied.output}`);
    process.stdout.write(`mutation ${name}: applied to ${copy}\n${applied.output}`);
    await ensureDist(copy);
    const code = await new Promise<number>((done) => {
      const child = spawn(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'test/sim/cli.ts', ...withoutMutation(argv)], { cwd: copy, env: { ...process.env, SIM_MUTATION: name }, stdio: 'inherit' });
      // Ctrl-C reaches the child too (same process group); wait for it, then the copy is removed below.
      const forward = (sig: NodeJS.Signals) => () => child.kill(sig);
      const onInt = forward('SIGINT');
      const onTerm = forward('SIGTERM');
      process.on('SIGINT', onInt);
      process.on('SIGTERM', onTerm);
      child.on('close', (c, sig) => {
        process.off('SIGINT', onInt);
        process.off('SIGTERM', onTerm);
        done(c ?? (sig ? 130 : 1));
      });
    });
    const found = join(copy, 'test/sim/mutations/found');
    if (existsSync(found)) {
      mkdirSync(join(ROOT, 'test/sim/mutations/found'), { recursive: true });
      for (const f of readdirSync(found)) cpSync(join(found, f), join(ROOT, 'test/sim/mutations/found', f));
    }
    return code;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
