/** The pipeline definition as written in `shopsync.yaml` (validated by zod). */
import { z } from 'zod';
import { timezoneSchema } from '../config/schedule.js';
import { isResourceName, resources } from '../shop/registry/index.js';

const connectorRef = z.looseObject({
  /** Name of a connection under `connections:`; the other keys are the connector's own config. */
  connection: z.string().min(1),
});

/** Tuning and behaviour switches of a pipeline. */
export const pipelineOptionsSchema = z.strictObject({
  /**
   * Write batches handed to the shop client at once; its queue decides how many are on the wire
   * (adaptive by default), so this is only the most that may wait there. @default 16
   */
  concurrency: z.coerce.number().int().min(1).max(64).default(16),
  /** Records the source reads per page. @default 500 */
  pageSize: z.coerce.number().int().min(1).max(100_000).default(500),
  /** Times a record whose write outcome stayed unknown (lost answers, 5xx after retries) is sent again before the run gives up. @default 5 */
  maxAttempts: z.coerce.number().int().min(1).max(50).default(5),
  /** The ERP key is the shop id itself (back-syncs of records that came from the shop). @default false */
  keyIsShopId: z.boolean().default(false),
  /** Pull: re-read this many days before the stored delta value (day-granular filters re-read the boundary day anyway). @default 0 */
  overlapDays: z.coerce.number().int().min(0).max(365).default(0),
  /**
   * Pull: IANA time zone of the shop's dates (`date_purchased`, `last_modified`). The delta cursor
   * never moves past the shop's clock at the run's start; without the zone shopsync assumes the
   * earliest one (UTC−12), which re-reads up to a day more but never misses a record. @default unknown
   */
  shopTimeZone: timezoneSchema.optional(),
  /** Pull: records per sink batch. @default 200 */
  sinkBatchSize: z.coerce.number().int().min(1).max(10_000).default(200),
  /** Store each sent payload with its event (turn off for very large catalogs). @default true */
  storePayloads: z.boolean().default(true),
  /**
   * Push: how files a mapping reads from a folder (product images) reach the shop. `off`: they are
   * already in the shop's image folder (copied by other means). `assumed-media-endpoint`: uploaded
   * with POST /media in a shape the spec does not show (docs/catalog.md), before the record. @default off
   */
  mediaUpload: z.enum(['off', 'assumed-media-endpoint']).default('off'),
});

/** One pipeline. */
export const pipelineSchema = z
  .strictObject({
    /** Unique name; state (cursor, lock, runs) is kept under it. */
    name: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'pipeline names use letters, digits, `_`, `-` and `.`'),
    /** `push`: ERP → shop. `pull`: shop → ERP. */
    direction: z.enum(['push', 'pull']),
    /** The shop (a key of `shops:`) the pipeline writes to or reads from; references, intents and history entries are kept per shop. @default default */
    shop: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'shop names use letters, digits, `_`, `-` and `.`').default('default'),
    /** ERP source of a push: `{ connection, ...connector config }`. */
    source: connectorRef.optional(),
    /** ERP sink of a pull: `{ connection, ...connector config }`. */
    sink: connectorRef.optional(),
    /** Mapping file (relative to the config file's folder or the mappings folder). */
    mapping: z.string().min(1),
    /** Shop resource written (push) or exported (pull). */
    resource: z.string().refine(isResourceName, { error: (issue) => `unknown shop resource \`${String(issue.input)}\`; known: ${Object.keys(resources).join(', ')}` }),
    /** Records per write request. @default 100 */
    batchSize: z.coerce.number().int().min(1).max(250).default(100),
    /** Cron expression (the daemon's scheduler reads it). */
    schedule: z.string().min(1).optional(),
    /** IANA time zone of `schedule`. */
    timezone: z.string().min(1).optional(),
    options: pipelineOptionsSchema.prefault({}),
  })
  .superRefine((p, ctx) => {
    if (p.direction === 'push' && !p.source) ctx.addIssue({ code: 'custom', path: ['source'], message: 'a push pipeline needs `source: { connection: <name>, ... }`' });
    if (p.direction === 'pull' && !p.sink) ctx.addIssue({ code: 'custom', path: ['sink'], message: 'a pull pipeline needs `sink: { connection: <name>, ... }`' });
  });

/** A validated pipeline definition. */
export type PipelineDefinition = z.output<typeof pipelineSchema>;
/** A pipeline definition as written (defaults not yet applied). */
export type PipelineDefinitionInput = z.input<typeof pipelineSchema>;
/** Validated pipeline options. */
export type PipelineOptions = z.output<typeof pipelineOptionsSchema>;
