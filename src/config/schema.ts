/**
 * The shape of `shopsync.yaml`. Each block is documented in `shopsync.example.yaml`; relative
 * paths are resolved against the config file's folder.
 */
import { z } from 'zod';
import { connectionSchema, sinkSchemaFor, sourceSchemaFor } from '../erp/index.js';
import { alertsConfigSchema } from '../alerts/config.js';
import { dashboardConfigSchema } from './server.js';
import { pipelineEntrySchema } from './pipelines.js';
import { timezoneSchema } from './schedule.js';
import { shopConfigSchema } from './shop.js';

/** The whole config file. */
export const configSchema = z
  .strictObject({
    shop: shopConfigSchema,
    /** Named ERP connections that pipelines refer to by name. */
    connections: z.record(z.string().regex(/^[A-Za-z0-9_-]+$/, 'connection names use letters, digits, _ and -'), connectionSchema).default({}),
    pipelines: z.array(pipelineEntrySchema).default([]),
    /** Default time zone of schedules. @default the machine's zone (TZ) */
    timezone: timezoneSchema.optional(),
    state: z
      .strictObject({
        /** SQLite file holding cursors, references, runs and dead letters. @default state/shopsync.db */
        path: z.string().min(1).default('state/shopsync.db'),
        /** How long history is kept; the daemon prunes on its own (dead letters are never pruned). */
        retention: z
          .strictObject({
            /** Per-record events older than this are deleted. @default 30 */
            eventsDays: z.coerce.number().positive().default(30),
            /** Stored payloads and diffs are cleared from events older than this. @default 7 */
            payloadsDays: z.coerce.number().positive().default(7),
            /** Finished runs older than this are deleted (each pipeline's latest run and runs with open dead letters stay). @default 90 */
            runsDays: z.coerce.number().positive().default(90),
            /** How often the daemon prunes, in minutes; 0 = never (prune with `shopsync state prune`). @default 60 */
            everyMinutes: z.coerce.number().int().min(0).default(60),
            /** Rows per delete batch (a run waits at most one batch). @default 2000 */
            batchSize: z.coerce.number().int().min(100).max(100_000).default(2000),
          })
          .prefault({}),
      })
      .prefault({}),
    dashboard: dashboardConfigSchema.prefault({}),
    /** Where alerts go (webhook, e-mail) and when a pipeline counts as stopped. */
    alerts: alertsConfigSchema,
    daemon: z
      .strictObject({
        /** How long SIGTERM waits for in-flight runs to settle or checkpoint. @default 30000 */
        shutdownGraceMs: z.coerce.number().int().min(0).default(30_000),
        /** /readyz reports not ready when the last shop request failed (network, 401, 5xx). @default true */
        readyNeedsShop: z.boolean().default(true),
      })
      .prefault({}),
    log: z
      .strictObject({
        /** pino level (trace, debug, info, warn, error). @default info (or LOG_LEVEL) */
        level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).optional(),
      })
      .prefault({}),
  })
  .superRefine((cfg, ctx) => {
    const seen = new Set<string>();
    cfg.pipelines.forEach((p, i) => {
      if (seen.has(p.name)) ctx.addIssue({ code: 'custom', path: ['pipelines', i, 'name'], message: `pipeline name "${p.name}" is used twice` });
      seen.add(p.name);
      for (const [field, conn] of pipelineConnections(p)) {
        const connection = cfg.connections[conn];
        if (connection) {
          // Check the connector's own settings now, so a typo fails at load with its line.
          const block = field[0] === 'source' ? p.source : p.sink;
          const { connection: _name, ...settings } = block ?? {};
          const schema = field[0] === 'source' ? sourceSchemaFor(connection.kind) : sinkSchemaFor(connection.kind);
          const checked = schema.safeParse(settings);
          if (!checked.success) {
            for (const issue of checked.error.issues) ctx.addIssue({ ...issue, path: ['pipelines', i, field[0], ...issue.path] } as never);
          }
        } else {
          const known = Object.keys(cfg.connections);
          ctx.addIssue({
            code: 'custom',
            path: ['pipelines', i, ...field],
            message: `no connection named "${conn}"; ${known.length ? `known: ${known.join(', ')}` : 'add it under connections:'}`,
          });
        }
      }
    });
  });

/** The (path, connection name) pairs a pipeline refers to. */
function pipelineConnections(p: z.output<typeof pipelineEntrySchema>): [(string | number)[], string][] {
  const out: [(string | number)[], string][] = [];
  const src = (p as { source?: { connection?: unknown } }).source;
  const sink = (p as { sink?: { connection?: unknown } }).sink;
  if (src && typeof src.connection === 'string') out.push([['source', 'connection'], src.connection]);
  if (sink && typeof sink.connection === 'string') out.push([['sink', 'connection'], sink.connection]);
  return out;
}

/** A validated config. */
export type Config = z.output<typeof configSchema>;
/** One pipeline entry of the config. */
export type PipelineConfig = Config['pipelines'][number];
