/**
 * The inbox on disk: which files are ready (stable), and moving them to processing/, archive/ or failed/.
 */
import { lstat, readdir, rename, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { FileSourceConfig } from './config.js';
import { createExclusive, kindOf, ownFolder, UnsafeEntryError } from './entries.js';

/** Names that writers use for files still being written. */
const IN_PROGRESS = /(\.tmp|\.part|\.partial|\.crdownload|\.filepart|~)$/i;

/**
 * `*.csv` → /^.*\.csv$/is; only `*` and `?` are special. The pattern matches the whole name, whatever
 * it holds: `s` lets `*` and `?` match a line break too, so a name with a newline is not skipped.
 */
export function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'is');
}

/**
 * The longest inbox file name (in bytes) shopsync can handle: it is claimed as `0000000001~<name>`
 * (11 bytes more) and a failed file gets `<name>.error.txt` (10 more), and a file name may have at
 * most 255 bytes.
 */
export const MAX_NAME_BYTES = 255 - 11 - 10;

/** An inbox file the pattern takes but whose name shopsync cannot handle; it stays where it is. */
export interface UnusableName {
  /** The name as well as it can be shown (bytes that are not UTF-8 shown as U+FFFD). */
  readonly name: string;
  /** Why, and what to do. */
  readonly reason: string;
}

/** Names said once per process (folder, then the name's bytes), so a daemon does not repeat them every run. */
const saidOnce = new Set<string>();
const SAID_MAX = 10_000;

/**
 * True the first time an unusable name of `folder` is seen by this process. A name that keeps
 * lying in the inbox is said once, not at every run.
 */
export function firstTimeUnusable(folder: string, raw: Buffer): boolean {
  const id = `${folder}\0${raw.toString('hex')}`;
  if (saidOnce.has(id)) return false;
  if (saidOnce.size >= SAID_MAX) saidOnce.clear();
  saidOnce.add(id);
  return true;
}

/** Why a name cannot be handled, or undefined when it can. */
function nameProblem(raw: Buffer, name: string): string | undefined {
  if (!Buffer.from(name, 'utf8').equals(raw)) {
    return 'its name is not valid UTF-8, so it cannot be named in positions, letters and logs; rename it (e.g. `convmv -f latin1 -t utf8 --notest <file>`) and it is read at the next run';
  }
  if (raw.length > MAX_NAME_BYTES) {
    return `its name is ${raw.length} bytes long, too long to be claimed as \`0000000001~<name>\` (at most ${MAX_NAME_BYTES} bytes); rename it shorter and it is read at the next run`;
  }
  return undefined;
}

/** Why an inbox entry that is not a regular file is left alone. */
const NOT_A_FILE = (what: string): string =>
  `it is ${what}; shopsync reads only regular files from the inbox and never follows links (a link could point at any file shopsync may read). Put the file itself into the inbox`;

/** Sort order of inbox files: by name, code unit order (the same order positions compare in). */
export function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Whether the source takes a file of this name at all (once it is complete): it matches the
 * pattern and is neither a dot-file, a name writers use while writing (`.tmp`, `.part`, `~`…) nor
 * a marker. The one definition of the file watcher (src/triggers/watch.ts) and of `readyFiles`.
 */
export function takesName(name: string, cfg: FileSourceConfig, pattern = globToRegExp(cfg.pattern ?? `*.${cfg.format}`)): boolean {
  if (name.startsWith('.') || IN_PROGRESS.test(name) || !pattern.test(name)) return false;
  return !(cfg.stability.mode === 'marker' && name.endsWith(cfg.stability.markerSuffix));
}

/**
 * Files in the inbox that match the pattern and are completely written, in name order. A file the
 * pattern takes but whose name cannot be handled (not UTF-8, too long) is handed to `unusable` and
 * left in place.
 */
export async function readyFiles(folder: string, cfg: FileSourceConfig, now = Date.now(), unusable?: (file: UnusableName, raw: Buffer) => void): Promise<string[]> {
  const pattern = globToRegExp(cfg.pattern ?? `*.${cfg.format}`);
  // Raw bytes: a name that is not UTF-8 would come back decoded with U+FFFD, a name no file has.
  const entries = await readdir(folder, { withFileTypes: true, encoding: 'buffer' });
  const names = new Set<string>();
  for (const e of entries) {
    if (!e.isFile()) {
      // A link (or a pipe, a socket) the pattern takes is never read; said once, not skipped without a word.
      const shown = e.name.toString('utf8');
      if (!e.isDirectory() && takesName(shown, cfg, pattern)) unusable?.({ name: shown, reason: NOT_A_FILE(e.isSymbolicLink() ? 'a symbolic link' : 'not a regular file') }, e.name);
      continue;
    }
    const name = e.name.toString('utf8');
    const problem = nameProblem(e.name, name);
    if (problem === undefined) names.add(name);
    else if (takesName(name, cfg, pattern)) unusable?.({ name, reason: problem }, e.name);
  }
  const ready: string[] = [];
  for (const name of [...names].sort(byName)) {
    if (!takesName(name, cfg, pattern)) continue;
    if (cfg.stability.mode === 'marker') {
      if (names.has(name + cfg.stability.markerSuffix)) ready.push(name);
      continue;
    }
    if (await settled(path.join(folder, name), cfg, now)) ready.push(name);
  }
  return ready;
}

/** Settle mode: the file was not written to for `settleMs` (a writer appending keeps it unready). Marker mode: always. */
export async function settled(file: string, cfg: FileSourceConfig, now = Date.now()): Promise<boolean> {
  const at = await settlesAt(file, cfg);
  return at !== undefined && now >= at;
}

/** When the file counts as settled if nothing writes to it before (epoch ms; 0 = now); undefined when it is gone. */
export async function settlesAt(file: string, cfg: FileSourceConfig): Promise<number | undefined> {
  if (cfg.stability.mode === 'marker') return 0;
  // lstat: the entry itself; a link is never followed, not even for its times.
  const first = await lstat(file).catch(() => undefined);
  if (!first) return undefined;
  // mtimeMs has sub-millisecond precision and can lie a fraction ahead of Date.now(): with no settle
  // time asked for, a file written this very millisecond is ready, not "from the future".
  return cfg.stability.settleMs === 0 ? 0 : first.mtimeMs + cfg.stability.settleMs;
}

/**
 * At least this long without a write before the end of a file is trusted: a last line without a
 * line break, or a file that ends in the middle of a record, may be a writer's unfinished write.
 */
export const QUIET_MS = 1000;

/** The file was not written to for `QUIET_MS` (or the settle time, if longer). */
export async function quietFor(file: string, cfg: FileSourceConfig, now = Date.now()): Promise<boolean> {
  if (cfg.stability.mode === 'marker') return true;
  const s = await lstat(file).catch(() => undefined);
  return s !== undefined && now - s.mtimeMs >= Math.max(QUIET_MS, cfg.stability.settleMs);
}

/** Line formats (CSV, NDJSON): the first `size` bytes of the opened file end with a line break, so their last record is whole; other formats: true. */
export async function endsWithLineBreak(handle: FileHandle, cfg: FileSourceConfig, size: number): Promise<boolean> {
  if (cfg.format !== 'csv' && cfg.format !== 'ndjson') return true;
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  const { bytesRead } = await handle.read(last, 0, 1, size - 1);
  return bytesRead === 1 && (last[0] === 0x0a || last[0] === 0x0d);
}

/** True when the file still has the size and mtime it had when it was judged stable. */
export async function unchangedSince(file: string, size: number, mtimeMs: number): Promise<boolean> {
  const s = await lstat(file).catch(() => undefined);
  return s !== undefined && s.size === size && s.mtimeMs === mtimeMs;
}

/** A free name in `dir` for `name` (and its companions, e.g. `.error.txt`): the name itself, or `name.<n>` before the extension when taken. */
async function freeName(dir: string, name: string, companions: readonly string[] = []): Promise<{ readonly name: string; readonly links: readonly string[] }> {
  const ext = path.extname(name);
  const stem = name.slice(0, name.length - ext.length);
  const links: string[] = [];
  for (let n = 0; ; n++) {
    const candidate = n === 0 ? name : `${stem}.${n}${ext}`;
    let free = true;
    for (const entry of [candidate, ...companions.map((c) => candidate + c)]) {
      // lstat: any entry takes the name, a dangling link too; links are named so the caller can say so.
      const s = await lstat(path.join(dir, entry)).catch(() => undefined);
      if (!s) continue;
      free = false;
      if (s.isSymbolicLink()) links.push(entry);
    }
    if (free) return { name: candidate, links };
  }
}

/** Where a file is now and the name it is known by (the name it arrived under). */
export interface FileAt {
  readonly dir: string;
  readonly name: string;
}

/** Where a move put a file, and the links planted under the names it would have taken (never written through). */
export interface Moved {
  readonly path: string;
  readonly links: readonly string[];
}

async function moveAround(from: FileAt, dir: string, name: string, markerSuffix: string | undefined, companions: readonly string[]): Promise<Moved> {
  await ownFolder(dir);
  const { name: target, links } = await freeName(dir, name, markerSuffix ? [markerSuffix, ...companions] : companions);
  await rename(path.join(from.dir, from.name), path.join(dir, target));
  if (markerSuffix) await rename(path.join(from.dir, from.name + markerSuffix), path.join(dir, target + markerSuffix)).catch(() => undefined);
  return { path: path.join(dir, target), links };
}

/**
 * Move a file (and its marker, if any) into `dir` under `name` (numbered when taken); returns the new
 * path. `dir` must be a folder of shopsync's own (created 0700 when missing; a link or another user's
 * folder is refused with UnsafeEntryError).
 */
export async function moveInto(from: FileAt, dir: string, name: string, markerSuffix?: string): Promise<string> {
  return (await moveAround(from, dir, name, markerSuffix, [])).path;
}

/**
 * Move an unreadable file to failed/ under the name it arrived with, and create `<name>.error.txt`
 * next to it (0600, never through an existing entry). A name taken by a planted link is passed by.
 */
export async function moveToFailed(folder: string, cfg: FileSourceConfig, from: FileAt, name: string, report: string): Promise<Moved> {
  const marker = cfg.stability.mode === 'marker' ? cfg.stability.markerSuffix : undefined;
  const moved = await moveAround(from, path.join(folder, cfg.failedFolder), name, marker, [REPORT_SUFFIX]);
  try {
    await createExclusive(`${moved.path}${REPORT_SUFFIX}`, report);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Planted between the look and the create: the file is in failed/, its report is refused.
    const s = await lstat(`${moved.path}${REPORT_SUFFIX}`).catch(() => undefined);
    throw new UnsafeEntryError(`${moved.path}${REPORT_SUFFIX} appeared (${s ? kindOf(s) : 'an entry'}) while shopsync was writing the report; it was not written through. Check who can write into ${cfg.failedFolder}/.`, `${moved.path}${REPORT_SUFFIX}`);
  }
  return moved;
}

/** The report written beside a failed file. */
export const REPORT_SUFFIX = '.error.txt';
