/**
 * The CLI steps run the compiled CLI, so `npm run sim` builds dist/ first when a source file is
 * newer than the last build. Same stamp and lock folder as test/cli/support.ts's `ensureBuilt`
 * (which vitest uses), so the two never build at the same time.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bundleIfStale } from '../support/bundle.js';

const ROOT = resolve(import.meta.dirname, '../..');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (entry.name.endsWith('.ts') || entry.name.endsWith('.sql')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/** Build dist/ unless it is newer than every source file. */
export async function ensureDist(root = ROOT): Promise<void> {
  const stamp = join(root, 'dist', '.build-stamp');
  const lock = join(root, 'dist', '.build-lock');
  mkdirSync(join(root, 'dist'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    spawnSync(process.execPath, [join(root, 'scripts', 'copy-sql.mjs')], { cwd: root, encoding: 'utf8' });
    const fresh = existsSync(stamp) && statSync(stamp).mtimeMs > newestMtime(join(root, 'src')) && existsSync(join(root, 'dist/src/cli/main.js'));
    if (fresh) return bundleIfStale(root);
    process.stderr.write('sim: building dist/ for the CLI steps\n');
    const r = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, encoding: 'utf8' });
    if (!existsSync(join(root, 'dist/src/cli/main.js'))) throw new Error(`the build produced no dist/src/cli/main.js:\n${r.stdout}${r.stderr}`);
    if (r.status !== 0) process.stderr.write(`sim: tsc reported type errors (dist/ was still emitted):\n${r.stdout.slice(0, 2000)}\n`);
    writeFileSync(stamp, new Date().toISOString());
    bundleIfStale(root);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
