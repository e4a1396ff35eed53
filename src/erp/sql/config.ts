/**
 * Per-pipeline settings for SQL sources and sinks.
 */
import { z } from 'zod';
import { identifierSchema, tableNameSchema } from '../connection.js';
import { paramNames } from './params.js';
import { durationSchema } from './lookback.js';

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** A child query run once per page: `SELECT … WHERE order_id IN (:keys)`; rows are attached to their parent by `parentKey`. */
export const sqlChildSchema = z.strictObject({
  /** Field of the parent record that receives the array of child rows. */
  field: z.string().min(1),
  /**
   * Child query; must use `:keys` (the page's parent keys), or for a composite parent key one list
   * per key column, `:keys_<column>` (`WHERE firma IN (:keys_Firma) AND artnr IN (:keys_ARTNR)`).
   */
  query: z.string().min(1).refine((q) => [...paramNames(q)].some((n) => n === 'keys' || n.startsWith('keys_')), 'child query must use :keys, e.g. WHERE order_id IN (:keys) (or :keys_<column> per column of a composite key)'),
  /** Column(s) of the child rows holding the parent's key, in the order of the parent's key columns. */
  parentKey: z.union([identifierSchema, z.array(identifierSchema).min(1)]),
});

/** Fold joined rows (one row per order line) into one record with an array field. */
export const sqlGroupSchema = z
  .strictObject({
    /** Field that receives the array of child objects. */
    field: z.string().min(1),
    /** Columns that belong to the child (kept as named). */
    columns: z.array(identifierSchema).min(1).optional(),
    /** Or: every column starting with this prefix belongs to the child (prefix stripped). */
    prefix: identifierSchema.optional(),
  })
  .refine((g) => (g.columns === undefined) !== (g.prefix === undefined), 'give exactly one of `columns` or `prefix`');

/** SQL source: an incremental query read by keyset pages. */
export const sqlSourceSchema = z
  .strictObject({
    /** Name of the connection this part uses (read by the pipeline config, ignored here). */
    connection: z.string().optional(),
    /**
     * Either a plain SELECT (shopsync wraps it with the keyset predicate, ORDER BY and LIMIT), or a query
     * that does its own paging with `:cursor`, `:cursor_key`, `:limit` (and optionally `:until`).
     */
    query: z.string().min(1),
    /** Column holding the cursor (e.g. updated_at); must not be NULL. */
    cursor: identifierSchema,
    /**
     * Column(s) holding the record key, the keyset tie-breaker: `key: ARTNR`, or a composite key
     * `key: [Firma, ARTNR]` (stored as the JSON array of its values as strings, e.g. `["01","4711"]`).
     */
    key: z.union([identifierSchema, z.array(identifierSchema).min(1)]),
    /** Value bound to `:cursor` on the first run (explicit-paging queries only). */
    initialCursor: z.union([z.string(), z.number()]).optional(),
    /** Value bound to `:cursor_key` on the first run (explicit-paging queries only). */
    initialKey: z.union([z.string(), z.number()]).optional(),
    /**
     * How far before the stored cursor each incremental read starts, so a row committed late (a long
     * transaction, a clock behind, a lagging replica) is never skipped; rows read again unchanged cost
     * no request. Timestamp cursors only; `0` turns it off (docs/connectors.md, "Cursors that never skip"). @default 5m
     */
    lookback: durationSchema.optional(),
    /** Rows per page unless the pipeline asks otherwise. @default 500 */
    pageSize: z.coerce.number().int().min(1).max(100_000).optional(),
    /**
     * The most text one row may hold (characters of its text columns, its children's included). A
     * larger row is refused as a bad row (`SOURCE_RECORD_TOO_LARGE`): its letter keeps the key and
     * cursor columns and an excerpt, and reading goes on. @default 1048576
     */
    maxRecordBytes: z.coerce.number().int().positive().default(1024 * 1024),
    /** Extra named parameters bound by name, e.g. `{ warehouse: 'MAIN' }` for `:warehouse`. */
    params: z.record(identifierSchema, scalar).default({}),
    children: z.array(sqlChildSchema).default([]),
    groupBy: z.array(sqlGroupSchema).default([]),
  })
  .superRefine((cfg, ctx) => {
    const used = paramNames(cfg.query);
    if (used.has('cursor') !== used.has('limit')) {
      ctx.addIssue({ code: 'custom', path: ['query'], message: 'a query that pages itself must use both :cursor and :limit (or neither, to let shopsync add the keyset predicate)' });
    }
    if (used.has('cursor') && cfg.initialCursor === undefined) {
      ctx.addIssue({ code: 'custom', path: ['initialCursor'], message: 'a query using :cursor needs initialCursor (the value for the first run, e.g. 1970-01-01 or 0)' });
    }
    // Silently reading the whole table when someone asked to start at a date would send what they meant to leave out.
    if (!used.has('cursor') && (cfg.initialCursor !== undefined || cfg.initialKey !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [cfg.initialCursor !== undefined ? 'initialCursor' : 'initialKey'],
        message: `initialCursor and initialKey are bound only to a query that pages itself with :cursor and :limit; this query is paged by shopsync and starts at its first row. To leave older rows out, say so in the query (e.g. WHERE ${cfg.cursor} >= '2026-01-01') and remove initialCursor/initialKey`,
      });
    }
    if (used.has('cursor_key') && cfg.initialKey === undefined) {
      ctx.addIssue({ code: 'custom', path: ['initialKey'], message: 'a query using :cursor_key needs initialKey (a key below every real key, e.g. 0 or "")' });
    }
    if (Array.isArray(cfg.key) && cfg.key.length > 1 && used.has('cursor')) {
      ctx.addIssue({ code: 'custom', path: ['key'], message: 'a query that pages itself (:cursor, :cursor_key) takes a single key column; with a composite key give a plain SELECT and let shopsync page it' });
    }
    cfg.children.forEach((child, i) => {
      const parentCols = keyList(child.parentKey);
      if (parentCols.length !== keyList(cfg.key).length) {
        ctx.addIssue({ code: 'custom', path: ['children', i, 'parentKey'], message: `parentKey needs one column per key column (${keyList(cfg.key).join(', ')}), in the same order` });
      }
    });
    const known = new Set(['cursor', 'cursor_key', 'limit', 'until', ...Object.keys(cfg.params)]);
    for (const name of used) {
      if (!known.has(name)) ctx.addIssue({ code: 'custom', path: ['query'], message: `unknown parameter :${name}; declare it under params` });
    }
  });

/** Nested records written to a child table, replaced per parent inside the batch's transaction. */
export const sqlSinkChildSchema = z.strictObject({
  /** Field of the record holding the array of children. */
  field: z.string().min(1),
  table: tableNameSchema,
  /** Unique key columns of the child table. */
  key: z.union([identifierSchema, z.array(identifierSchema).min(1)]),
  /** Child columns holding the parent's key values, in the order of the parent's `key`. */
  parentKey: z.union([identifierSchema, z.array(identifierSchema).min(1)]),
  /**
   * `true`: a row is inserted when its key is new and never deleted or rewritten (an event log such
   * as an order's changes, whose rows the ERP marks processed). `false`: the parent's children are
   * replaced on every write. @default false
   */
  append: z.boolean().default(false),
}).superRefine((child, ctx) => {
  // An append child keeps a row whose key is taken: a key without the parent's columns could keep another parent's row and drop this one silently.
  const key = keyList(child.key);
  const missing = keyList(child.parentKey).filter((c) => !key.includes(c));
  if (child.append && missing.length > 0) ctx.addIssue({ code: 'custom', path: ['key'], message: `an append child's key must hold its parentKey columns (${missing.join(', ')} missing), e.g. key: [${[...keyList(child.parentKey), ...key.filter((c) => !keyList(child.parentKey).includes(c))].join(', ')}]` });
});

/** SQL sink: insert new keys into a (staging) table, update only the rows it wrote. */
export const sqlSinkSchema = z
  .strictObject({
    /** Name of the connection this part uses (read by the pipeline config, ignored here). */
    connection: z.string().optional(),
    table: tableNameSchema,
    /** Unique key column(s); the table needs a primary key or unique index on exactly them. */
    key: z.union([identifierSchema, z.array(identifierSchema).min(1)]),
    /** Only these columns are written (others in the record are ignored); default: every top-level field. */
    columns: z.array(identifierSchema).optional(),
    children: z.array(sqlSinkChildSchema).default([]),
    /**
     * `own`: a row under a record's key that this pipeline did not write is left as it is and the
     * record is refused (SINK_FOREIGN_ROW). `foreign`: such a row is overwritten and its children
     * replaced; only for a table whose rows are meant to be overwritten. @default own
     */
    overwrite: z.enum(['own', 'foreign']).default('own'),
    /**
     * A text column of the sink table that tells the sink's rows from others: written with
     * `ownerMarker` on insert; a row with another value is foreign. Absent: the pipeline's state says
     * which keys it delivered (docs/connectors.md, "Rows the sink did not write").
     */
    ownerColumn: identifierSchema.optional(),
    /** What `ownerColumn` holds for this pipeline's rows. @default the pipeline's name */
    ownerMarker: z.string().min(1).max(200).optional(),
  })
  .superRefine((cfg, ctx) => {
    if (cfg.ownerMarker !== undefined && cfg.ownerColumn === undefined) ctx.addIssue({ code: 'custom', path: ['ownerMarker'], message: 'ownerMarker is what ownerColumn holds: give ownerColumn too (e.g. ownerColumn: shopsync_pipeline), or remove ownerMarker' });
    if (cfg.ownerColumn !== undefined && keyList(cfg.key).includes(cfg.ownerColumn)) ctx.addIssue({ code: 'custom', path: ['ownerColumn'], message: `ownerColumn ${cfg.ownerColumn} is a key column; give a column of its own (e.g. shopsync_pipeline)` });
  });

export type SqlSourceConfig = z.output<typeof sqlSourceSchema>;
export type SqlSinkConfig = z.output<typeof sqlSinkSchema>;
export type SqlSourceConfigInput = z.input<typeof sqlSourceSchema>;
export type SqlSinkConfigInput = z.input<typeof sqlSinkSchema>;

/** Normalise `key: a` / `key: [a, b]` to a list. */
export function keyList(key: string | readonly string[]): string[] {
  return typeof key === 'string' ? [key] : [...key];
}
