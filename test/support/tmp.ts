/** Temporary folders for tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh folder under the system temp dir; its name starts with `prefix`. */
export function tempDir(prefix = 'shopsync-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Remove a folder made by `tempDir` (missing is fine). */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
