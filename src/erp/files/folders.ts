/**
 * The inbox on disk: which files are ready (stable), and moving them to processing/, archive/ or failed/.
 */
import { constants } from 'node:fs';
import { access, mkdir, open, readdir, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FileSourceConfig } from './config.js';

/** Names that writers use for files still being written. */
const IN_PROGRESS = /(\.tmp|\.part|\.partial|\.crdownload|\.filepart|~)$/i;

/** `*.csv` → /^[^/]*\.csv$/; only `*` and `?` are special. */
export function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'i');
}

/** Sort order of inbox files: by name, code unit order (the same order positions compare in). */
export function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Files in the inbox that match the pattern and are completely written, in name order. */
export async function readyFiles(folder: string, cfg: FileSourceConfig, now = Date.now()): Promise<string[]> {
  const pattern = globToRegExp(cfg.pattern ?? `*.${cfg.format}`);
  const entries = await readdir(folder, { withFileTypes: true });
  const names = new Set(entries.filter((e) => e.isFile()).map((e) => e.name));
  const ready: string[] = [];
  for (const name of [...names].sort(byName)) {
    if (name.startsWith('.') || IN_PROGRESS.test(name) || !pattern.test(name)) continue;
    if (cfg.stability.mode === 'marker') {
      if (name.endsWith(cfg.stability.markerSuffix)) continue;
      if (names.has(name + cfg.stability.markerSuffix)) ready.push(name);
      continue;
    }
    if (await settled(path.join(folder, name), cfg, now)) ready.push(name);
  }
  return ready;
}

/** Settle mode: the file was not written to for `settleMs` (a writer appending keeps it unready). Marker mode: always. */
export async function settled(file: string, cfg: FileSourceConfig, now = Date.now()): Promise<boolean> {
  if (cfg.stability.mode === 'marker') return true;
  const first = await stat(file).catch(() => undefined);
  if (!first) return false;
  // mtimeMs has sub-millisecond precision and can lie a fraction ahead of Date.now(): with no settle
  // time asked for, a file written this very millisecond is ready, not "from the future".
  return cfg.stability.settleMs === 0 || now - first.mtimeMs >= cfg.stability.settleMs;
}

/**
 * At least this long without a write before the end of a file is trusted: a last line without a
 * line break, or a file that ends in the middle of a record, may be a writer's unfinished write.
 */
export const QUIET_MS = 1000;

/** The file was not written to for `QUIET_MS` (or the settle time, if longer). */
export async function quietFor(file: string, cfg: FileSourceConfig, now = Date.now()): Promise<boolean> {
  if (cfg.stability.mode === 'marker') return true;
  const s = await stat(file).catch(() => undefined);
  return s !== undefined && now - s.mtimeMs >= Math.max(QUIET_MS, cfg.stability.settleMs);
}

/** Line formats (CSV, NDJSON): the first `size` bytes of the file end with a line break, so their last record is whole; other formats: true. */
export async function endsWithLineBreak(file: string, cfg: FileSourceConfig, size: number): Promise<boolean> {
  if (cfg.format !== 'csv' && cfg.format !== 'ndjson') return true;
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return false;
  try {
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    return last[0] === 0x0a || last[0] === 0x0d;
  } finally {
    await handle.close();
  }
}

/** True when the file still has the size and mtime it had when it was judged stable. */
export async function unchangedSince(file: string, size: number, mtimeMs: number): Promise<boolean> {
  const s = await stat(file).catch(() => undefined);
  return s !== undefined && s.size === size && s.mtimeMs === mtimeMs;
}

/** A free name in `dir` for `name`: the name itself, or `name.<n>` before the extension when taken. */
async function freeName(dir: string, name: string): Promise<string> {
  const ext = path.extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let n = 0; ; n++) {
    const candidate = n === 0 ? name : `${stem}.${n}${ext}`;
    try {
      await access(path.join(dir, candidate), constants.F_OK);
    } catch {
      return candidate;
    }
  }
}

/** Where a file is now and the name it is known by (the name it arrived under). */
export interface FileAt {
  readonly dir: string;
  readonly name: string;
}

/** Move a file (and its marker, if any) into `dir` under `name` (numbered when taken); returns the new path. */
export async function moveInto(from: FileAt, dir: string, name: string, markerSuffix?: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const target = await freeName(dir, name);
  await rename(path.join(from.dir, from.name), path.join(dir, target));
  if (markerSuffix) await rename(path.join(from.dir, from.name + markerSuffix), path.join(dir, target + markerSuffix)).catch(() => undefined);
  return path.join(dir, target);
}

/** Move an unreadable file to failed/ under the name it arrived with, and write `<name>.error.txt` next to it. */
export async function moveToFailed(folder: string, cfg: FileSourceConfig, from: FileAt, name: string, report: string): Promise<string> {
  const marker = cfg.stability.mode === 'marker' ? cfg.stability.markerSuffix : undefined;
  const moved = await moveInto(from, path.join(folder, cfg.failedFolder), name, marker);
  await writeFile(`${moved}.error.txt`, report, 'utf8');
  return moved;
}
