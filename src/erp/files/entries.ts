/**
 * Entries in folders that someone else writes (issue 42 items 2, 3, 18). The inbox writer may plant
 * a symbolic link, swap a file for one between two looks, or create the sub-folders before
 * shopsync does; nothing shopsync writes or reads there may follow a link or trust a name twice:
 *
 * - its own folders (processing/, archive/, failed/) are created 0700 and refused when they are a
 *   link, not a folder, or owned by another user;
 * - the files it writes there are created with O_CREAT|O_EXCL|O_NOFOLLOW and mode 0600, so a
 *   planted name is never written through;
 * - a delivery is opened once with O_NOFOLLOW, its descriptor's identity compared with the entry it
 *   claimed, and read only through that descriptor.
 */
import { constants, type Stats } from 'node:fs';
import { chmod, lstat, mkdir, open, type FileHandle } from 'node:fs/promises';

/** Why a folder or file shopsync uses is not safe to use, with what to do. */
export class UnsafeEntryError extends Error {
  constructor(
    message: string,
    readonly entry: string,
  ) {
    super(message);
    this.name = 'UnsafeEntryError';
  }
}

/** The device and inode of a claimed entry: what the descriptor read later must be. */
export interface EntryIdentity {
  readonly dev: number;
  readonly ino: number;
}

/** What kind of entry an lstat describes ("a symbolic link", "a named pipe"…), for messages. */
export function kindOf(s: Stats): string {
  return s.isSymbolicLink() ? 'a symbolic link' : s.isDirectory() ? 'a folder' : s.isFIFO() ? 'a named pipe' : s.isSocket() ? 'a socket' : s.isFile() ? 'a file' : 'a device';
}

const ownUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/**
 * Make sure `dir` is a folder of this user that no link redirects: created 0700 (whatever the
 * umask) when missing, refused when it is a link, not a folder, or another user's.
 */
export async function ownFolder(dir: string): Promise<void> {
  let s = await lstat(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!s) {
    await mkdir(dir, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
    s = await lstat(dir);
    // mkdir's mode passes through the umask; a umask can only take bits away, but say exactly 0700.
    if (s.isDirectory() && !s.isSymbolicLink() && s.uid === ownUid()) await chmod(dir, 0o700);
  }
  const uid = ownUid();
  if (s.isSymbolicLink() || !s.isDirectory()) {
    throw new UnsafeEntryError(`${dir} is ${kindOf(s)}, not a folder of shopsync's own; shopsync never moves or writes files through links there. Remove it (someone who can write the inbox may have planted it) and shopsync creates the folder (mode 0700) at the next run.`, dir);
  }
  if (uid !== undefined && s.uid !== uid) {
    throw new UnsafeEntryError(`${dir} belongs to user id ${s.uid}, not to shopsync (user id ${uid}); its owner could swap what shopsync moves there. Remove it and shopsync creates it (mode 0700) at the next run, or give it to shopsync's user.`, dir);
  }
}

/** Flags of a file shopsync creates next to entries others may plant: never an existing name, never through a link. */
const CREATE_EXCLUSIVE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * Create `file` with `content`, mode 0600 whatever the umask; fails with EEXIST when any entry (a
 * planted link included) already has that name.
 */
export async function createExclusive(file: string, content: string | Uint8Array): Promise<void> {
  const handle = await open(file, CREATE_EXCLUSIVE, 0o600);
  try {
    await handle.chmod(0o600);
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
}

/** Flags of a delivery opened for reading: no link followed, and a named pipe does not block the open. */
const READ_NOFOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Open a delivery once for reading. Refused (UnsafeEntryError) when the name is now a link, or the
 * opened file is not a regular file or not the entry that was claimed (another device or inode).
 */
export async function openClaimed(file: string, claimed: EntryIdentity | undefined): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(file, READ_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new UnsafeEntryError(`it was replaced by a symbolic link after it was claimed; shopsync never follows links in the inbox, nothing of it was read`, file);
    throw err;
  }
  try {
    const s = await handle.stat();
    if (!s.isFile()) throw new UnsafeEntryError(`it is ${kindOf(s)}, not a regular file; nothing of it was read`, file);
    if (claimed && (s.dev !== claimed.dev || s.ino !== claimed.ino)) {
      throw new UnsafeEntryError(`it was swapped for another file after it was claimed (another device or inode); nothing of it was read`, file);
    }
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** Control characters (C0, DEL, C1, line and paragraph separators) as visible escapes, so a value cannot start a line of its own. */
export function escapeControl(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    const code = c.charCodeAt(0);
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
