/** The CLI bundle (dist/cli) that bin/shopsync.js starts: rebuilt when tsc's output under dist/src is newer. */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { newest } from './child.js';

/** Run scripts/bundle-cli.mjs unless dist/cli/main.js is newer than every file tsc wrote under dist/src (call it under the build lock). */
export function bundleIfStale(root: string): void {
  const bundle = join(root, 'dist', 'cli', 'main.js');
  if (existsSync(bundle) && statSync(bundle).mtimeMs >= newest(join(root, 'dist', 'src'), '.js')) return;
  const b = spawnSync(process.execPath, [join(root, 'scripts', 'bundle-cli.mjs')], { cwd: root, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`scripts/bundle-cli.mjs failed:\n${b.stdout}${b.stderr}`);
}
