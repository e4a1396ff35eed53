/**
 * SQLite's answers for a state that cannot be written, as named errors: `SQLITE_FULL` (and an I/O
 * error while the disk has no room left, which is how some file systems report ENOSPC) is
 * STATE_DISK_FULL, `SQLITE_READONLY…` is STATE_READ_ONLY. Anything else passes unchanged.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileDiskFull, fileReadOnly, freeSpaceOf } from '../faults.js';

/** Below this many free bytes the disk counts as full: the next settle's pages would not fit. */
export const MIN_FREE_BYTES = 1024 * 1024;

/** A better-sqlite3 error about a disk or file that takes no writes, as a StateError; other errors unchanged. */
export function translateSqlite(err: unknown, path: string): unknown {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return err;
  if (code === 'SQLITE_FULL') return fileDiskFull(path, err, `SQLite: ${code}`);
  if (code.startsWith('SQLITE_READONLY')) return fileReadOnly(path, err, `SQLite: ${code}`);
  // An existing state on a read-only mount or folder: SQLite cannot create its -wal and -shm files beside it.
  if (code === 'SQLITE_CANTOPEN' && existsSync(path) && !writable(path)) return fileReadOnly(path, err, `SQLite: ${code}`);
  if (code.startsWith('SQLITE_IOERR')) {
    const { freeBytes } = freeSpaceOf(path);
    if (freeBytes !== undefined && freeBytes < MIN_FREE_BYTES) return fileDiskFull(path, err, `SQLite: ${code}`);
  }
  return err;
}

/**
 * STATE_READ_ONLY when an existing state file or its folder takes no writes. Asked before opening:
 * SQLite would quietly open such a file read-only and fail only at the first write.
 */
export function readOnlyFile(path: string): Error | undefined {
  if (path === ':memory:' || !existsSync(path) || writable(path)) return undefined;
  return fileReadOnly(path, undefined, 'not writable for this process');
}

/** Whether this process may write the file and create files beside it (EROFS on a read-only mount, EACCES otherwise). */
function writable(path: string): boolean {
  try {
    accessSync(dirname(path), constants.W_OK);
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
