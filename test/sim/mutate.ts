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
    const applied = spawnSync('patch', ['-p1', '--no-backup-if-mismatch', '-i', patch], { cwd: copy, encoding: 'utf8' });
    if (applied.status !== 0) throw new Error(`${name}.patch does not apply to this checkout any more (refresh it):\n${applied.stdout}${applied.stderr}`);
    process.stdout.write(`mutation ${name}: applied to ${copy}\n${applied.stdout}`);
    await ensureDist(copy);
    const code = await new Promise<number>((done) => {
      const child = spawn(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'test/sim/cli.ts', ...withoutMutation(argv)], { cwd: copy, env: { ...process.env, SIM_MUTATION: name }, stdio: 'inherit' });
      child.on('close', (c) => done(c ?? 1));
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
