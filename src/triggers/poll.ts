/**
 * `trigger.poll`: short polling of a SQL source (MariaDB/MySQL above all, which have no NOTIFY).
 * Every `poll` interval one indexed probe asks "is there a row after the stored cursor?"
 * (src/erp/sql/probe.ts) and wakes the pipeline when there is; an idle ERP costs one 1-row query
 * per interval and no run, no shop request.
 *
 * Why not binlog CDC (docs/triggers.md): it needs REPLICATION SLAVE and REPLICATION CLIENT grants,
 * `binlog_format=ROW` on the ERP's server, and a binlog client library of uncertain upkeep, for a
 * latency gain of at most the poll interval over a probe that costs well under a millisecond.
 *
 * A woken run that could not move the cursor (the shop is down, an open ERP transaction holds the
 * watermark back) would be woken again at every probe; so while the cursor stays where it was when
 * it woke the pipeline, the probe wakes it again only after a hold that doubles up to 5 minutes.
 */
import { openSqlReader, sqlSourceSchema, type CursorPosition, type SqlDriver, type SqlSourceConfig } from '../erp/index.js';
import { parseConfig } from '../erp/errors.js';
import { hasNewer } from '../erp/sql/probe.js';
import { connectionOrigin } from '../config/origins.js';
import type { TriggerKind, TriggerStart } from './index.js';
import { triggerSourceOf, type TriggerSource } from './source.js';
import type { Config, PipelineConfig } from '../config/index.js';
import type { TriggerHandle, TriggerStatus } from './types.js';
import { HOLD_MAX_MS, HOLD_MIN_MS } from './hold.js';

/** While the ERP does not answer, probes space out up to this. */
const DOWN_MAX_MS = 30_000;

/** A polled pipeline's SQL source; TRIGGER_WRONG_SOURCE for any other (at start, and in `config check` and `doctor`). */
function pollSourceOf(pipeline: PipelineConfig, config: Config, file?: string): TriggerSource {
  return triggerSourceOf(pipeline, config.connections, 'poll', ['mysql', 'postgres', 'sqlite'], 'For a file drop use trigger.watch; for an HTTP source, trigger.hook.', file);
}

async function startPoll(ctx: TriggerStart): Promise<TriggerHandle> {
  const { name: connectionName, connection, settings } = pollSourceOf(ctx.pipeline, ctx.runtime.loaded.config, ctx.runtime.loaded.file);
  const cfg: SqlSourceConfig = parseConfig(sqlSourceSchema, settings, 'source');
  const intervalMs = Math.max(100, ctx.trigger.poll ?? 2000);
  const name = ctx.pipeline.name;
  const log = ctx.logger.child({ intervalMs });
  let driver: SqlDriver | undefined;
  let state: TriggerStatus['state'] = 'polling';
  let detail = `every ${intervalMs} ms`;
  let lastWakeAt: string | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let probing: Promise<void> | undefined;
  /** The cursor the last wake-up found rows after, and when it may wake for it again. */
  let wokeAt: { cursor: string; againAt: number; holdMs: number } | undefined;
  let downMs = intervalMs;

  const index = ctx.runtime.loaded.config.pipelines.indexOf(ctx.pipeline);
  const open = async (): Promise<SqlDriver> => {
    driver ??= await openSqlReader(connection, {
      logger: ctx.logger,
      baseDir: ctx.runtime.loaded.baseDir,
      origin: connectionOrigin(ctx.runtime.loaded, connectionName, index >= 0 ? { pipeline: index, side: 'source' } : undefined),
    });
    return driver;
  };

  async function probe(): Promise<number> {
    const stored = await ctx.runtime.state.cursors.get(name);
    const after: CursorPosition | undefined = stored ? { value: stored.value, key: stored.key } : undefined;
    let newer: boolean;
    try {
      newer = await hasNewer(await open(), cfg, after);
    } catch (err) {
      if (state !== 'reconnecting') log.warn({ err: err instanceof Error ? err.message : String(err) }, 'the short-polling probe failed; trying again (a schedule, if any, still runs)');
      state = 'reconnecting';
      detail = err instanceof Error ? err.message : String(err);
      downMs = Math.min(downMs * 2, DOWN_MAX_MS);
      return downMs;
    }
    if (state === 'reconnecting') log.info('the short-polling probe answers again');
    state = 'polling';
    detail = `every ${intervalMs} ms`;
    downMs = intervalMs;
    const cursor = JSON.stringify(after ?? null);
    const now = Date.now();
    if (!newer) {
      wokeAt = undefined;
      return intervalMs;
    }
    if (wokeAt?.cursor === cursor) {
      // Rows after a cursor that did not move since the last wake-up: that run is still going, or could not settle them.
      if (now < wokeAt.againAt) return intervalMs;
      const holdMs = Math.min(wokeAt.holdMs * 2, HOLD_MAX_MS);
      log.info({ cursor: after, holdMs }, 'rows after the cursor are still there after a run; woken again, and held back longer while the cursor stays');
      wokeAt = { cursor, againAt: now + holdMs, holdMs };
    } else {
      const holdMs = Math.max(HOLD_MIN_MS, 5 * intervalMs);
      wokeAt = { cursor, againAt: now + holdMs, holdMs };
    }
    lastWakeAt = new Date(now).toISOString();
    ctx.wake('poll', 'a row after the cursor');
    return intervalMs;
  }

  function schedule(delayMs: number): void {
    if (closed) return;
    timer = setTimeout(() => {
      probing = probe()
        .catch((err: unknown) => {
          // The state store failed: nothing to probe against; try again later.
          log.warn({ err: err instanceof Error ? err.message : String(err) }, 'the short-polling probe could not read the cursor');
          return DOWN_MAX_MS;
        })
        .then((next) => {
          probing = undefined;
          schedule(next);
        });
    }, delayMs);
  }

  schedule(0);
  log.info('polling the source for rows after the cursor');
  return {
    status: () => ({ pipeline: name, kind: 'poll', state, detail, ...(lastWakeAt ? { lastWakeAt } : {}) }),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await probing;
      await driver?.close();
    },
  };
}

/** The short-polling kind (`trigger.poll`). */
export const pollTrigger: TriggerKind = { key: 'poll', start: startPoll, check: (pipeline, config) => void pollSourceOf(pipeline, config) };
