/** The pipeline definition as written in `shopsync.yaml` (validated by zod). */
import { z } from 'zod';
import { cronSchema, timezoneSchema } from '../config/schedule.js';
import { getResource, isResourceName, resources } from '../shop/registry/index.js';
import { triggerSchema } from '../triggers/schema.js';
import { lookupsSchema } from './lookups/schema.js';
import { reservationsSchema } from '../reservations/schema.js';
import { followSchema } from '../follow/schema.js';
import { shopStatusSchema } from '../follow/shopStatus.js';

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
  /**
   * Push: what happens to shop records whose ERP record is gone (or flagged by `inactiveWhen`),
   * decided only after a complete read of the source: `deactivate` (the registry's status field,
   * products_status 0), `delete` (the resource's delete operation) or `ignore`. @default ignore
   */
  onMissing: z.enum(['ignore', 'deactivate', 'delete']).default('ignore'),
  /** Push: source records whose `field` holds one of `values` are treated as gone from the ERP (never sent; `onMissing` applies). */
  inactiveWhen: z
    .strictObject({
      /** Source column (dot path into the record). */
      field: z.string().min(1),
      values: z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])).min(1),
    })
    .optional(),
  /**
   * Push: the mass-deletion guard. A run whose `onMissing` step would touch more than `maxShare` of
   * the shop's records of the resource known to the state, or more than `maxCount` records, does
   * nothing of it and waits for `shopsync sync <pipeline> --allow-mass-delete`. @default {maxShare: 0.05, maxCount: 50}
   */
  massDelete: z
    .strictObject({
      maxShare: z.coerce.number().min(0).max(1).default(0.05),
      maxCount: z.coerce.number().int().min(0).default(50),
    })
    .prefault({}),
});

/** A pipeline's scheduled reconciliation (`shopsync reconcile`). */
export const reconcileSchema = z.strictObject({
  /** Cron expression the daemon reconciles on (e.g. weekly: "0 3 * * 0"); absent = only on demand. */
  schedule: cronSchema.optional(),
  /** IANA time zone of `schedule`. @default the pipeline's `timezone`, then the top-level one */
  timezone: timezoneSchema.optional(),
  /** Alert when more records than this drift (missing on either side or different). @default 0 */
  alertAbove: z.coerce.number().int().min(0).default(0),
  /** Scheduled reconciliations also repair the drift (through the pipeline, with all its guard rails). @default false */
  repair: z.boolean().default(false),
  /** Reports kept per pipeline (older ones are deleted). @default 10 */
  keep: z.coerce.number().int().min(1).max(1000).default(10),
  /** Write CSV cells that a spreadsheet would run as formulas (`=`, `+`, `-`, `@`, tab, CR first) as text, with a leading `'`. @default true */
  escapeFormulas: z.boolean().default(true),
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
    /** Pull: named ERP lookups the mapping uses as `lookup: <name>` (product id by code, party by e-mail; docs/connectors.md "Lookups"). */
    lookups: lookupsSchema.optional(),
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
    /** What wakes the pipeline besides its schedule: NOTIFY, a file watcher, a signed hook, short polling (docs/triggers.md). */
    trigger: triggerSchema.optional(),
    /** Cron expression of complete reads (the whole source, then `onMissing`); the daemon runs them besides `schedule`. */
    completeSchedule: cronSchema.optional(),
    /** Scheduled reconciliation of the ERP with the shop (push pipelines). */
    reconcile: reconcileSchema.optional(),
    /** Push of stock: subtract the shop's orders the ERP has not booked yet (issue 43; docs/catalog.md "Stock and orders in flight"). */
    reservations: reservationsSchema.optional(),
    /** Pull of orders: keep reading delivered orders until a final status or an age limit, and deliver each change once (issue 44; docs/pipelines-and-state.md "Orders after checkout"). */
    follow: followSchema.optional(),
    /** Push of order statuses: the shop's cancelled statuses and what a status both sides changed does (issue 44; docs/pipelines-and-state.md "Back-sync"). @default from the same shop's following pull */
    shopStatus: shopStatusSchema.optional(),
    options: pipelineOptionsSchema.prefault({}),
    /** The config template this pipeline was expanded from (set by the config loader); absent for a pipeline written out. */
    template: z.string().optional(),
    /** Values of `${shop.…}` in the mapping file (`$shop` in its expressions); the config loader fills in the shop's `vars:` and `name`. @default {} */
    vars: z.record(z.string(), z.unknown()).default({}),
  })
  .superRefine((p, ctx) => {
    if (p.direction === 'pull' && (p.options.onMissing !== 'ignore' || p.options.inactiveWhen || p.completeSchedule || p.reconcile)) {
      ctx.addIssue({ code: 'custom', path: ['options', 'onMissing'], message: 'onMissing, inactiveWhen, completeSchedule and reconcile belong to push pipelines (ERP → shop)' });
    }
    if (isResourceName(p.resource)) {
      const resource = getResource(p.resource);
      if (p.options.onMissing === 'deactivate' && !resource.deactivate) ctx.addIssue({ code: 'custom', path: ['options', 'onMissing'], message: `${p.resource} records have no status field to deactivate them by (registry); use onMissing: delete or ignore` });
      if (p.options.onMissing === 'delete' && !resource.ops.delete) ctx.addIssue({ code: 'custom', path: ['options', 'onMissing'], message: `the shop offers no delete of single ${p.resource} records; use onMissing: deactivate or ignore` });
    }
    if (p.reservations && (p.direction !== 'push' || !(isResourceName(p.resource) && getResource(p.resource).stock))) {
      ctx.addIssue({ code: 'custom', path: ['reservations'], message: 'reservations belong to a push pipeline of a resource with stock fields (products)' });
    }
    if (p.follow && (p.direction !== 'pull' || !(isResourceName(p.resource) && getResource(p.resource).follow))) {
      const followed = Object.values(resources).filter((r) => 'follow' in r).map((r) => r.name);
      ctx.addIssue({ code: 'custom', path: ['follow'], message: `follow belongs to a pull pipeline of a resource that lives on after it is created (${followed.join(', ')})` });
    }
    if (p.shopStatus && (p.direction !== 'push' || !(isResourceName(p.resource) && getResource(p.resource).follow))) {
      const followed = Object.values(resources).filter((r) => 'follow' in r).map((r) => r.name);
      ctx.addIssue({ code: 'custom', path: ['shopStatus'], message: `shopStatus belongs to a push pipeline of a resource whose status the shop changes too (${followed.join(', ')})` });
    }
    if (p.direction === 'push' && p.lookups) ctx.addIssue({ code: 'custom', path: ['lookups'], message: 'lookups belong to pull pipelines (shop → ERP): a push maps ERP records to shop ids by `lookup: { reference: <resource> }`' });
    if (p.direction === 'push' && !p.source) ctx.addIssue({ code: 'custom', path: ['source'], message: 'a push pipeline needs `source: { connection: <name>, ... }`' });
    if (p.direction === 'pull' && !p.sink) ctx.addIssue({ code: 'custom', path: ['sink'], message: 'a pull pipeline needs `sink: { connection: <name>, ... }`' });
  });

/** A validated pipeline definition. */
export type PipelineDefinition = z.output<typeof pipelineSchema>;
/** A pipeline definition as written (defaults not yet applied). */
export type PipelineDefinitionInput = z.input<typeof pipelineSchema>;
/** Validated pipeline options. */
export type PipelineOptions = z.output<typeof pipelineOptionsSchema>;
/** A validated `reconcile:` block. */
export type ReconcileConfig = z.output<typeof reconcileSchema>;
