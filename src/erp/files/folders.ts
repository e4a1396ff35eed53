/**
 * The inbox on disk: which files are ready (stable), and moving them to archive/ or failed/.
 */
import { constants } from 'node:fs';
import { access, mkdir, readdir, rename, stat, writeFile } from 'node:fs/promises';
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
    const first = await stat(path.join(folder, name)).catch(() => undefined);
    if (!first) continue;
    // mtimeMs has sub-millisecond precision and can lie a fraction ahead of Date.now(): with no settle
    // time asked for, a file written this very millisecond is ready, not "from the future".
    if (cfg.stability.settleMs > 0 && now - first.mtimeMs < cfg.stability.settleMs) continue;
    ready.push(name);
  }
  return ready;
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

/** Move a file (and its marker, if any) into a sub-folder; returns the new path. */
export async function moveInto(folder: string, sub: string, name: string, markerSuffix?: string): Promise<string> {
  const dir = path.join(folder, sub);
  await mkdir(dir, { recursive: true });
  const target = await freeName(dir, name);
  await rename(path.join(folder, name), path.join(dir, target));
  if (markerSuffix) await rename(path.join(folder, name + markerSuffix), path.join(dir, target + markerSuffix)).catch(() => undefined);
  return path.join(dir, target);
}

/** Move an unreadable file to failed/ and write `<name>.error.txt` next to it. */
export async function moveToFailed(folder: string, cfg: FileSourceConfig, name: string, report: string): Promise<string> {
  const marker = cfg.stability.mode === 'marker' ? cfg.stability.markerSuffix : undefined;
  const moved = await moveInto(folder, cfg.failedFolder, name, marker);
  await writeFile(`${moved}.error.txt`, report, 'utf8');
  return moved;
}
