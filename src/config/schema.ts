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
import { DEFAULT_SHOP } from '../state/store.js';
import { shopConfigSchema, type ShopConfig } from './shop.js';
import { suggestKey } from './suggest.js';
import { templatesSchema } from './templates.js';

const SHOP_NAME = /^[A-Za-z0-9_.-]+$/;

/** The whole config file. */
export const configSchema = z
  .strictObject({
    /** The shop (one shop: it is the shop named `default`). */
    shop: shopConfigSchema.optional(),
    /** Several shops by name (`de`, `at`, `b2b`…); pipelines name theirs with `shop:`. May stand beside `shop:` (then `default` is taken). */
    shops: z.record(z.string().regex(SHOP_NAME, 'shop names use letters, digits, `_`, `-` and `.`'), shopConfigSchema).optional(),
    /** Folder of shop files (`<name>.yaml`, one shop each), relative to the config file. @default shops.d, when it exists */
    shopsDir: z.string().min(1).optional(),
    /** Pipelines written once and expanded per shop as `<template>-<shop>` (docs/shops.md). */
    templates: templatesSchema,
    /** Named ERP connections that pipelines refer to by name. */
    connections: z.record(z.string().regex(/^[A-Za-z0-9_-]+$/, 'connection names use letters, digits, _ and -'), connectionSchema).default({}),
    pipelines: z.array(pipelineEntrySchema).default([]),
    /** Default time zone of schedules. @default the machine's zone (TZ) */
    timezone: timezoneSchema.optional(),
    /**
     * Allow relative paths (mapping files, folders, SQLite files, CA files, `${file:…}`) that climb out
     * of the folder they are relative to with `..`. Absolute paths are always taken as written. @default false
     */
    allowPathsOutsideConfig: z.boolean().default(false),
    state: z
      .strictObject({
        /** `sqlite`: one file beside shopsync (the embedded default). `postgres`: a schema in a PostgreSQL database (production, several replicas). @default sqlite */
        kind: z.enum(['sqlite', 'postgres']).default('sqlite'),
        /** SQLite file holding cursors, references, runs and dead letters. @default state/shopsync.db */
        path: z.string().min(1).default('state/shopsync.db'),
        /** PostgreSQL: connection URL, e.g. `${STATE_DATABASE_URL}` (postgres://user:password@host:5432/db). */
        url: z.string().min(1).optional(),
        /** PostgreSQL: the schema shopsync keeps its tables in (created when missing). @default shopsync */
        schema: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a schema name uses letters, digits and `_`').default('shopsync'),
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
        /** /readyz reports not ready when every shop is failing (no answer, 401/403, 5xx): then the fault is likely on this side (network, DNS, proxy). One shop down is reported per shop (`/shops`, the details of /readyz), not as this replica's readiness. @default true */
        readyNeedsShop: z.boolean().default(true),
      })
      .prefault({}),
    /**
     * A shop whose runs keep failing for a reason of the shop's (no answer, 5xx, open circuit breaker,
     * 429 beyond the retries, refused credentials): warned about, then paused (docs/operations.md,
     * "A shop failing for days"). Any run of the shop that works ends the streak.
     */
    failingShops: z
      .strictObject({
        /** Failed runs in a row that open the `shop-failing` alert. @default 20 */
        warnAfterRuns: z.coerce.number().int().min(1).default(20),
        /** Failed runs in a row after which the shop is paused, once `pauseAfterHours` have passed too; 0 = never pause. @default 30 */
        pauseAfterRuns: z.coerce.number().int().min(0).default(30),
        /** Hours since the first failed run of the streak before the shop is paused. @default 24 */
        pauseAfterHours: z.coerce.number().min(0).default(24),
      })
      .prefault({}),
    /** Several `shopsync run` replicas on one PostgreSQL state: pipeline runs become jobs of the job engine (graphile-worker) in the same database. */
    replicas: z
      .strictObject({
        /** Schema of the job engine's tables. @default the state's schema + `_jobs` */
        jobsSchema: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a schema name uses letters, digits and `_`').optional(),
        /** Pipeline jobs one replica runs at once (a lane still runs on one replica at a time). @default 4 */
        concurrency: z.coerce.number().int().min(1).max(64).default(4),
        /** Jobs of one shop a replica runs at once; the other workers stay free for the other shops. @default concurrency - 1 with several shops (at least 1), else concurrency */
        perShopConcurrency: z.coerce.number().int().min(1).max(64).optional(),
        /** How often a replica writes its heartbeat. @default 5000 */
        heartbeatMs: z.coerce.number().int().min(100).default(5000),
        /** A replica silent for longer than this is dead: its jobs and lanes are freed for the others. @default 15000 */
        deadAfterMs: z.coerce.number().int().min(500).default(15_000),
        /** Attempts of a run job before it counts as failing (shown by status, the dashboard and shopsync_jobs{state="failing"}). @default 5 */
        maxAttempts: z.coerce.number().int().min(1).max(100).default(5),
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
    if (!cfg.shop && !cfg.shops) ctx.addIssue({ code: 'custom', path: ['shop'], message: 'no shop configured: add `shop: { baseUrl, token }` (one shop) or `shops: { <name>: { baseUrl, token } }`' });
    if (cfg.shop && cfg.shops?.[DEFAULT_SHOP]) ctx.addIssue({ code: 'custom', path: ['shops', DEFAULT_SHOP], message: `\`shop:\` is the shop named "${DEFAULT_SHOP}"; name this one differently or drop \`shop:\`` });
    if (cfg.replicas.deadAfterMs < 2 * cfg.replicas.heartbeatMs) ctx.addIssue({ code: 'custom', path: ['replicas', 'deadAfterMs'], message: `deadAfterMs (${cfg.replicas.deadAfterMs}) must be at least twice heartbeatMs (${cfg.replicas.heartbeatMs}), or a replica that misses one beat counts as dead` });
    if (cfg.state.kind === 'postgres' && !cfg.state.url) ctx.addIssue({ code: 'custom', path: ['state', 'url'], message: 'a postgres state needs `url:` (e.g. `url: ${STATE_DATABASE_URL}`)' });
    const shopNames = [...(cfg.shop ? [DEFAULT_SHOP] : []), ...Object.keys(cfg.shops ?? {})];
    const seen = new Set<string>();
    cfg.pipelines.forEach((p, i) => {
      if (seen.has(p.name)) ctx.addIssue({ code: 'custom', path: ['pipelines', i, 'name'], message: `pipeline name "${p.name}" is used twice` });
      seen.add(p.name);
      const shop = (p as { shop?: unknown }).shop ?? DEFAULT_SHOP;
      if (typeof shop === 'string' && shopNames.length > 0 && !shopNames.includes(shop)) {
        ctx.addIssue({ code: 'custom', path: ['pipelines', i, (p as { shop?: unknown }).shop === undefined ? 'name' : 'shop'], message: `no shop named "${shop}"; known: ${shopNames.join(', ')}${(p as { shop?: unknown }).shop === undefined ? ' (a pipeline without `shop:` uses the shop named default)' : ''}` });
      }
      for (const [field, conn] of pipelineConnections(p)) {
        const connection = cfg.connections[conn];
        if (connection) {
          // Check the connector's own settings now, so a typo fails at load with its line.
          const block = field[0] === 'source' ? p.source : p.sink;
          const { connection: _name, ...settings } = block ?? {};
          const schema = field[0] === 'source' ? sourceSchemaFor(connection.kind) : sinkSchemaFor(connection.kind);
          const checked = schema.safeParse(settings);
          if (!checked.success) {
            for (const issue of checked.error.issues) {
              // The config schema cannot be walked into a connector's settings: name the nearest key from the connector's own schema.
              const typo = issue.code === 'unrecognized_keys' && issue.keys.length === 1 ? suggestKey(schema, issue.path.filter((k): k is string | number => typeof k !== 'symbol'), issue.keys[0]!) : undefined;
              ctx.addIssue({ ...issue, ...(typo ? { suggestion: typo } : {}), path: ['pipelines', i, field[0], ...issue.path] } as never);
            }
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
      // A lookup asks its connection in the ERP's own language: a query needs SQL, a model search JSON-RPC.
      const lookups = (p as { lookups?: Record<string, { connection?: unknown; query?: unknown }> }).lookups ?? {};
      for (const [name, l] of Object.entries(lookups)) {
        if (typeof l?.connection !== 'string') continue;
        const connection = cfg.connections[l.connection];
        const path = ['pipelines', i, 'lookups', name, 'connection'];
        if (!connection) ctx.addIssue({ code: 'custom', path, message: `no connection named "${l.connection}"; known: ${Object.keys(cfg.connections).join(', ') || '(none)'}` });
        else if (l.query !== undefined && !['postgres', 'mysql', 'sqlite'].includes(connection.kind)) ctx.addIssue({ code: 'custom', path, message: `a lookup with \`query:\` needs a SQL connection; "${l.connection}" is kind ${connection.kind} (an RPC lookup takes \`model:\` and \`field:\`)` });
        else if (l.query === undefined && connection.kind !== 'jsonrpc') ctx.addIssue({ code: 'custom', path, message: `a lookup with \`model:\` and \`field:\` needs a \`kind: jsonrpc\` connection; "${l.connection}" is kind ${connection.kind} (an SQL lookup takes \`query:\`)` });
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

/** Every configured shop by name: `shop:` is `default`, then `shops:`. */
export function shopsOf(config: Pick<Config, 'shop' | 'shops'>): Record<string, ShopConfig> {
  return { ...(config.shop ? { [DEFAULT_SHOP]: config.shop } : {}), ...(config.shops ?? {}) };
}
/** One pipeline entry of the config. */
export type PipelineConfig = Config['pipelines'][number];
