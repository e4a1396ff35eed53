/**
 * How a test starts a TypeScript child process of its own (a pushing process to kill, a lock holder, a
 * replica of the rate budget): from its compiled JavaScript under dist/ when that build is current, else
 * through tsx. `npm test` compiles src/ and test/ to dist/ before vitest starts, so there every child
 * starts compiled: tsx transforms each child's whole module graph again at every start (about 3 s of CPU
 * against 1 s compiled), and a story that kills and restarts its child a dozen times pays that each time.
 * A developer running one file after an edit gets tsx, so the child is never older than its source.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** The newest modification time of the files under `dir` whose names end in one of `endings`. */
export function newest(dir: string, ...endings: string[]): number {
  let at = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) at = Math.max(at, newest(p, ...endings));
    else if (endings.some((e) => entry.name.endsWith(e))) at = Math.max(at, statSync(p).mtimeMs);
  }
  return at;
}

let current: boolean | undefined;

/** Whether dist/ was compiled after the last change to any TypeScript file of src/ and test/ (read once per test process). */
function compiledIsCurrent(): boolean {
  if (current === undefined) {
    const dist = join(ROOT, 'dist');
    current = existsSync(join(dist, 'src')) && existsSync(join(dist, 'test')) && Math.min(newest(join(dist, 'src'), '.js'), newest(join(dist, 'test'), '.js')) > Math.max(newest(join(ROOT, 'src'), '.ts'), newest(join(ROOT, 'test'), '.ts'));
  }
  return current;
}

/** Node's arguments to run the TypeScript file `tsFile` (an absolute path under the repository): `[js]` compiled, or `['--import', 'tsx', ts]`. */
export function childArgs(tsFile: string): string[] {
  const js = join(ROOT, 'dist', relative(ROOT, tsFile)).replace(/\.ts$/, '.js');
  return compiledIsCurrent() && existsSync(js) ? [js] : ['--import', 'tsx', tsFile];
}
