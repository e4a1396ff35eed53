/**
 * Which PostgreSQL connection and channel a pipeline's NOTIFY trigger uses, shared by the listener
 * and `shopsync erp notify-setup`; a pipeline whose source cannot NOTIFY is refused here with the
 * trigger that fits its source instead.
 */
import type { Config, PipelineConfig } from '../../config/index.js';
import type { PostgresConnection } from '../../erp/connection.js';
import { ConfigError } from '../../errors.js';
import { notifyChannel } from '../schema.js';

/** Stable codes of NOTIFY misuse. */
export const NOTIFY_CODES = {
  /** `notify` on a pipeline whose source is not a PostgreSQL connection (or a pull pipeline). */
  notPostgres: 'TRIGGER_NOTIFY_NOT_POSTGRES',
} as const;

/** A push pipeline's PostgreSQL source as the NOTIFY trigger needs it. */
export interface NotifySource {
  readonly connectionName: string;
  readonly connection: PostgresConnection;
  /** The channel: `trigger.notify.channel`, or `shopsync_<pipeline>`. */
  readonly channel: string;
  /** The SQL the source runs (its query and child queries), to suggest the tables to watch. */
  readonly queries: readonly string[];
}

/** Resolve a pipeline's NOTIFY source; throws TRIGGER_NOTIFY_NOT_POSTGRES naming the trigger to use instead. */
export function notifySourceOf(pipeline: PipelineConfig, connections: Config['connections']): NotifySource {
  const name = pipeline.source?.connection;
  const connection = name === undefined ? undefined : connections[name];
  const others = 'Use `poll:` for MariaDB/MySQL and SQLite (e.g. `trigger: { poll: 2s }`, a cheap "anything newer than the cursor?" query), `watch:` for file drops, `hook:` for HTTP and anything else (docs/triggers.md).';
  if (pipeline.direction !== 'push' || name === undefined || connection === undefined) {
    throw new ConfigError(`pipeline "${pipeline.name}": trigger.notify wakes a push pipeline on a change of its PostgreSQL source; this pipeline reads the shop. ${others}`, {
      code: NOTIFY_CODES.notPostgres,
      key: `pipelines.${pipeline.name}.trigger.notify`,
    });
  }
  if (connection.kind !== 'postgres') {
    throw new ConfigError(`pipeline "${pipeline.name}": trigger.notify needs a PostgreSQL source (LISTEN/NOTIFY); its connection "${name}" is ${connection.kind}, which cannot NOTIFY. ${others}`, {
      code: NOTIFY_CODES.notPostgres,
      key: `pipelines.${pipeline.name}.trigger.notify`,
    });
  }
  const source = pipeline.source as { query?: unknown; children?: unknown };
  const children = Array.isArray(source.children) ? (source.children as { query?: unknown }[]) : [];
  const queries = [source.query, ...children.map((c) => c.query)].filter((q): q is string => typeof q === 'string');
  const channel = notifyChannel(pipeline.name, pipeline.trigger?.notify ? pipeline.trigger : { notify: true, debounce: 200 }) as string;
  return { connectionName: name, connection, channel, queries };
}

/**
 * Tables a query names after FROM or JOIN: a suggestion for `--table`, never used unasked (a CTE,
 * a view or a function in FROM would be wrong to install triggers on).
 */
export function tablesNamedIn(queries: readonly string[]): string[] {
  const out = new Set<string>();
  for (const q of queries) {
    for (const m of q.matchAll(/\b(?:FROM|JOIN)\s+("?[A-Za-z_][A-Za-z0-9_]*"?(?:\."?[A-Za-z_][A-Za-z0-9_]*"?)?)/gi)) out.add((m[1] as string).replace(/"/g, ''));
  }
  return [...out];
}
