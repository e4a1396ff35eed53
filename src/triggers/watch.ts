/**
 * `trigger.watch`: a file-drop pipeline is woken when a file in its inbox is complete.
 *
 * Node's own `fs.watch` (inotify on Linux, no polling, no dependency), not chokidar: watcher events
 * are only hints here. They are coalesced and differ across platforms (a rename may come as one
 * event or two, a write as one or hundreds), and "complete" must be judged exactly as the source
 * judges it anyway, or a woken run would find nothing to take and the file would wait for the next
 * event. So every event only asks for a look at the folder, and the look is the source's own
 * `readyFiles` (src/erp/files/folders.ts: the pattern, no dot-files or `.tmp`/`.part` names,
 * unchanged for `stability.settleMs` or its marker present). A file the source takes but that is
 * not settled yet is looked at again the moment it would be. chokidar's `awaitWriteFinish` would be
 * a second definition of "complete" beside the source's.
 *
 * The folder is looked at when the watcher starts (files dropped while the daemon was down, and
 * deliveries a crash left in processing/), after a watcher error (once it could watch again), and
 * every `rescan` (events lost: an inotify queue overflow, a network share whose remote writes
 * raise no event). A delivery that grew after it was claimed (a writer still appending in
 * processing/) wakes the pipeline once it settled, so its rest does not wait for the next file.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileSourceSchema, type FileSourceConfig } from '../erp/index.js';
import { parseConfig } from '../erp/errors.js';
import { claimedFiles } from '../erp/files/claims.js';
import { readyFiles, settlesAt, takesName } from '../erp/files/folders.js';
import type { TriggerKind, TriggerStart } from './index.js';
import { triggerSourceOf, type TriggerSource } from './source.js';
import type { Config, PipelineConfig } from '../config/index.js';
import type { TriggerHandle, TriggerStatus } from './types.js';

/** Events within this long become one look at the folder (a large copy raises hundreds). */
const LOOK_DELAY_MS = 50;
/** A ready file that is still in the inbox this long after its wake-up (the run failed before taking it) wakes again at a rescan. */
const REWAKE_MS = 60_000;
/** After a watcher error: try to watch again after this long, doubling up to RETRY_MAX_MS. */
const RETRY_MS = 1_000;
const RETRY_MAX_MS = 60_000;

/** A watched pipeline's file source; TRIGGER_WRONG_SOURCE for any other (at start, and in `config check` and `doctor`). */
function watchSourceOf(pipeline: PipelineConfig, config: Config, file?: string): TriggerSource {
  return triggerSourceOf(pipeline, config.connections, 'watch', ['files'], 'For a SQL source use trigger.poll (or notify on PostgreSQL); for any other, trigger.hook.', file);
}

/** The inbox folder and settings a pipeline's file source reads. */
export function inboxOf(ctx: TriggerStart): { folder: string; cfg: FileSourceConfig } {
  const { connection, settings } = watchSourceOf(ctx.pipeline, ctx.runtime.loaded.config, ctx.runtime.loaded.file);
  const cfg = parseConfig(fileSourceSchema, settings, 'source');
  const folder = path.resolve(ctx.runtime.loaded.baseDir, (connection as { folder: string }).folder, cfg.folder);
  return { folder, cfg };
}

async function startWatch(ctx: TriggerStart): Promise<TriggerHandle> {
  const { folder, cfg } = inboxOf(ctx);
  const processing = path.join(folder, cfg.processingFolder);
  const rescanMs = ctx.trigger.watch === true || ctx.trigger.watch === undefined ? 30_000 : ctx.trigger.watch.rescan;
  const log = ctx.logger.child({ folder });
  let state: TriggerStatus['state'] = 'reconnecting';
  let detail = folder;
  let lastWakeAt: string | undefined;
  let closed = false;
  const watchers = new Map<string, FSWatcher>();
  /** Ready files woken for: `name` → `size:mtime` and when. */
  const woken = new Map<string, { signature: string; at: number }>();
  /** Claimed deliveries written to after their claim: woken once they settle. */
  const growing = new Set<string>();
  let lookTimer: NodeJS.Timeout | undefined;
  let dueTimer: NodeJS.Timeout | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let retryMs = RETRY_MS;
  let looking: Promise<void> | undefined;
  let lookAgain = false;

  const wake = (what: string): void => {
    lastWakeAt = new Date().toISOString();
    log.debug({ file: what }, 'a complete file is waiting: woken');
    ctx.wake('file', what);
  };

  /** One look at the folder; looks asked for meanwhile become one more after it. */
  function lookSoon(delayMs = LOOK_DELAY_MS): void {
    if (closed || lookTimer) return;
    lookTimer = setTimeout(() => {
      lookTimer = undefined;
      if (looking) {
        lookAgain = true;
        return;
      }
      looking = look()
        .catch((err: unknown) => broken(err))
        .finally(() => {
          looking = undefined;
          if (lookAgain) {
            lookAgain = false;
            lookSoon(0);
          }
        });
    }, delayMs);
  }

  async function look(): Promise<void> {
    const now = Date.now();
    // The source's own judgement: exactly the files a run started now would take.
    const ready = await readyFiles(folder, cfg, now);
    const fresh: string[] = [];
    for (const name of ready) {
      const s = await stat(path.join(folder, name)).catch(() => undefined);
      if (!s) continue;
      const signature = `${s.size}:${s.mtimeMs}`;
      const before = woken.get(name);
      if (before && before.signature === signature && now - before.at < REWAKE_MS) continue;
      woken.set(name, { signature, at: now });
      fresh.push(name);
    }
    for (const name of woken.keys()) if (!ready.includes(name)) woken.delete(name);
    let next = Number.POSITIVE_INFINITY;
    if (cfg.stability.mode === 'settle') {
      // Taken but not settled yet: look again the moment it would be.
      for (const name of await readdir(folder)) {
        if (ready.includes(name) || !takesName(name, cfg)) continue;
        const at = await settlesAt(path.join(folder, name), cfg);
        if (at !== undefined && at > now) next = Math.min(next, at);
      }
    }
    for (const name of [...growing]) {
      const at = await settlesAt(path.join(processing, name), cfg);
      if (at === undefined) growing.delete(name);
      else if (at <= now) {
        growing.delete(name);
        fresh.push(name);
      } else next = Math.min(next, at);
    }
    if (fresh.length > 0) wake(fresh.length === 1 ? fresh[0]! : `${fresh[0]} and ${fresh.length - 1} more`);
    if (dueTimer) clearTimeout(dueTimer);
    dueTimer = Number.isFinite(next) && !closed ? setTimeout(() => lookSoon(0), Math.max(0, next - Date.now()) + 5) : undefined;
  }

  function watchFolder(dir: string, onEvent: (type: string, name: string | null) => void): void {
    if (watchers.has(dir)) return;
    const w = watch(dir, { persistent: true }, (type, name) => onEvent(type, name === null ? null : String(name)));
    w.on('error', (err) => broken(err));
    watchers.set(dir, w);
  }

  function watchProcessing(): void {
    try {
      // Only writes: claims and archiving are renames the runs themselves make.
      watchFolder(processing, (type, name) => {
        if (type !== 'change' || name === null) return;
        growing.add(name);
        lookSoon();
      });
    } catch {
      // Not there yet: created by the first claim, then watched (the inbox sees it appear).
    }
  }

  function arm(): void {
    watchFolder(folder, (type, name) => {
      if (name === cfg.processingFolder) watchProcessing();
      // A write to a name the source never takes (`x.csv.tmp`, `.x.csv`) changes nothing until it is renamed.
      if (type === 'change' && name !== null && !takesName(name, cfg) && !(cfg.stability.mode === 'marker' && name.endsWith(cfg.stability.markerSuffix))) return;
      lookSoon();
    });
    watchProcessing();
    state = 'watching';
    detail = folder;
    retryMs = RETRY_MS;
  }

  function disarm(): void {
    for (const w of watchers.values()) w.close();
    watchers.clear();
  }

  /** A watcher failed (the folder was removed or moved, too many watches): watch again later, then look. */
  function broken(err: unknown): void {
    if (closed) return;
    const reason = err instanceof Error ? err.message : String(err);
    if (state !== 'reconnecting') log.warn({ err: reason, retryInMs: retryMs }, 'the inbox cannot be watched; trying again (a schedule, if any, still runs)');
    disarm();
    state = 'reconnecting';
    detail = `${folder}: ${reason}`;
    if (retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      tryArm();
    }, retryMs);
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  }

  function tryArm(): void {
    if (closed) return;
    try {
      arm();
      log.info('watching the inbox');
    } catch (err) {
      broken(err);
      return;
    }
    lookSoon(0);
  }

  tryArm();
  // A crash may have left claimed deliveries in processing/: the next run reads them first.
  if ((await claimedFiles(processing, cfg).catch(() => [])).length > 0) wake('a delivery left in processing');
  const rescan = rescanMs > 0 ? setInterval(() => (state === 'watching' ? lookSoon(0) : undefined), rescanMs) : undefined;

  return {
    status: () => ({ pipeline: ctx.pipeline.name, kind: 'watch', state, detail, ...(lastWakeAt ? { lastWakeAt } : {}) }),
    async close() {
      closed = true;
      for (const t of [lookTimer, dueTimer, retryTimer]) if (t) clearTimeout(t);
      if (rescan) clearInterval(rescan);
      disarm();
      await looking;
    },
  };
}

/** The file watcher kind (`trigger.watch`). */
export const watchTrigger: TriggerKind = { key: 'watch', start: startWatch, check: (pipeline, config) => void watchSourceOf(pipeline, config) };
