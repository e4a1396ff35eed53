/**
 * Files and folders for the shopsync user alone. What shopsync writes (the state, its backups,
 * reconcile reports) holds customers, orders and both sides' values: nobody else on the machine
 * needs to read it. Modes are set with chmod after creation, so the result is 0600/0700 whatever
 * the umask (a umask only clears bits; a loose one, 000, would otherwise leave them open).
 */
import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';

/** The mode of files shopsync creates. */
export const PRIVATE_FILE_MODE = 0o600;
/** The mode of folders shopsync creates. */
export const PRIVATE_DIR_MODE = 0o700;

/** The folders `mkdir -p` made: from the first one created down to `dir`. */
function created(first: string | undefined, dir: string): string[] {
  if (first === undefined) return [];
  const top = resolve(first);
  const rest = relative(top, resolve(dir));
  const out = [top];
  if (rest) for (const part of rest.split(sep)) out.push(resolve(out[out.length - 1]!, part));
  return out;
}

/** `mkdir -p` whose new folders are 0700; folders that were there keep their mode (they are the operator's). */
export function mkdirPrivateSync(dir: string): void {
  for (const d of created(mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE }), dir)) chmodSync(d, PRIVATE_DIR_MODE);
}

/** `mkdir -p` whose new folders are 0700 (async). */
export async function mkdirPrivate(dir: string): Promise<void> {
  for (const d of created(await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE }), dir)) await chmod(d, PRIVATE_DIR_MODE);
}

/** Create `file` empty and 0600 when it does not exist (its folder made with `mkdirPrivateSync`); true when it was created. */
export function createPrivateFileSync(file: string): boolean {
  mkdirPrivateSync(dirname(file));
  let fd: number;
  try {
    fd = openSync(file, 'wx', PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } finally {
    closeSync(fd);
  }
  return true;
}
