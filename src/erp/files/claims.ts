/**
 * Deliveries. A file is an arrival, not a name: an ERP that writes `artikel.csv` every night
 * delivers a new file each time. Before a file is read it is claimed: moved from the inbox into
 * the processing folder as `<arrival number>~<name>`, the number one above every arrival claimed
 * before (the cursor's and those still in processing). A cursor position names the claimed file, so
 * a new delivery under an old name starts at its first record, and a restart mid-file resumes after
 * the last settled record of that delivery. The name freed in the inbox is ready for the next one.
 * Cursors written before claims existed name a plain file: no claimed file matches them, so the
 * delivery they meant is read again in full (its records settle unchanged) instead of being skipped.
 */
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { CursorPosition } from '../types.js';
import type { FileSourceConfig } from './config.js';
import { kindOf, ownFolder, type EntryIdentity } from './entries.js';
import { byName, globToRegExp, moveInto, readyFiles, type FileAt, type UnusableName } from './folders.js';

/** Told about an inbox file the pattern takes but whose name cannot be handled (it stays in the inbox). */
export type OnUnusable = (file: UnusableName, raw: Buffer) => void;

// `s`: the original name may hold a line break.
const CLAIM = /^(\d{10})~(.+)$/s;

/** A file to read: where it is, the name positions use, and the name it arrived under. */
export interface Delivery extends FileAt {
  /** The name it arrived under (messages, letters, archive). */
  readonly original: string;
  /** Device and inode of the entry when it was claimed (or listed): the descriptor read must be this file. */
  readonly identity?: EntryIdentity;
  /** Set when the claimed entry is not a regular file (a link swapped in before the claim): it is refused, never read. */
  readonly unsafe?: string;
}

/** The identity of a claimed entry, or why it is refused; the folder is shopsync's own, so nobody else changes the entry after this look. */
async function lookAt(dir: string, name: string): Promise<Pick<Delivery, 'identity' | 'unsafe'>> {
  const s = await lstat(path.join(dir, name));
  if (s.isFile()) return { identity: { dev: s.dev, ino: s.ino } };
  return { unsafe: `it was ${kindOf(s)} when it was claimed, not a regular file (swapped after it was listed?); shopsync never follows links in the inbox, nothing of it was read` };
}

/** `0000000007~artikel.csv`. */
export function claimedName(arrival: number, name: string): string {
  return `${String(arrival).padStart(10, '0')}~${name}`;
}

/** The arrival number and original name of a claimed file name; undefined for a plain name. */
export function parseClaim(name: string): { readonly arrival: number; readonly original: string } | undefined {
  const m = CLAIM.exec(name);
  return m ? { arrival: Number(m[1]), original: m[2]! } : undefined;
}

/** Claimed files still in the processing folder, in arrival order. */
export async function claimedFiles(processing: string, cfg: FileSourceConfig): Promise<Delivery[]> {
  // A processing/ that is a link or another user's is refused before anything in it is listed.
  if (!(await lstat(processing).catch(() => undefined))) return [];
  await ownFolder(processing);
  const entries = await readdir(processing, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  const marker = cfg.stability.mode === 'marker' ? cfg.stability.markerSuffix : undefined;
  // Only this source's files: another source on the same folder (another pattern or format) has its own.
  const pattern = globToRegExp(cfg.pattern ?? `*.${cfg.format}`);
  const names = entries
    .filter((e) => !e.isDirectory() && !(marker && e.name.endsWith(marker)) && pattern.test(parseClaim(e.name)?.original ?? ''))
    .map((e) => e.name)
    .sort(byName);
  const out: Delivery[] = [];
  for (const name of names) {
    const look = await lookAt(processing, name).catch(() => undefined);
    if (look) out.push({ dir: processing, name, original: parseClaim(name)!.original, ...look });
  }
  return out;
}

/**
 * Claim every ready inbox file, in name order, and return every delivery to read: those claimed
 * before (a crash, a file that grew) first, then the new ones.
 */
export async function claimArrivals(folder: string, cfg: FileSourceConfig, after: CursorPosition | undefined, unusable?: OnUnusable): Promise<Delivery[]> {
  const processing = path.join(folder, cfg.processingFolder);
  const waiting = await claimedFiles(processing, cfg);
  const fromCursor = typeof after?.value === 'string' ? parseClaim(after.value)?.arrival : undefined;
  let arrival = Math.max(fromCursor ?? 0, ...waiting.map((d) => parseClaim(d.name)!.arrival));
  const marker = cfg.stability.mode === 'marker' ? cfg.stability.markerSuffix : undefined;
  const claimed: Delivery[] = [];
  for (const name of await readyFiles(folder, cfg, Date.now(), unusable)) {
    arrival += 1;
    const target = claimedName(arrival, name);
    // moveInto numbers a taken name; a claimed name is never taken (its number is new).
    await moveInto({ dir: folder, name }, processing, target, marker);
    // Looked at after the move, in a folder only shopsync writes: what was moved is what is read.
    claimed.push({ dir: processing, name: target, original: name, ...(await lookAt(processing, target)) });
  }
  return [...waiting, ...claimed];
}

/** What a dry run or preview reads, moving nothing: deliveries already claimed, then the ready inbox files in place. */
export async function previewArrivals(folder: string, cfg: FileSourceConfig, unusable?: OnUnusable): Promise<Delivery[]> {
  const waiting = await claimedFiles(path.join(folder, cfg.processingFolder), cfg);
  const ready: Delivery[] = [];
  for (const name of await readyFiles(folder, cfg, Date.now(), unusable)) {
    // Read in place: the writer may still swap it, so the descriptor is checked against this look.
    const look = await lookAt(folder, name).catch(() => undefined);
    if (look) ready.push({ dir: folder, name, original: name, ...look });
  }
  return [...waiting, ...ready];
}
