/**
 * Per-pipeline settings for HTTP JSON sources (paged REST APIs) and sinks (POST/PUT).
 */
import { z } from 'zod';
import { durationSchema } from '../sql/lookback.js';

const param = z.string().min(1);

/** How the API pages. */
export const pagingSchema = z.discriminatedUnion('style', [
  z.strictObject({ style: z.literal('none') }),
  z.strictObject({ style: z.literal('offset'), offsetParam: param.default('offset'), limitParam: param.default('limit') }),
  z.strictObject({ style: z.literal('page'), pageParam: param.default('page'), sizeParam: param.default('per_page'), firstPage: z.coerce.number().int().min(0).default(1) }),
  z.strictObject({
    style: z.literal('cursor'),
    /** Query parameter that carries the next-page token. @default 'cursor' */
    cursorParam: param.default('cursor'),
    /** Dotted path of the next-page token in the response body; absent/null/'' = last page. @default 'next_cursor' */
    nextPath: param.default('next_cursor'),
    /** Page-size parameter, if the API has one. */
    limitParam: param.optional(),
  }),
  z.strictObject({
    style: z.literal('next-link'),
    /** Dotted path of the next page's URL in the body; absent = use the `Link: <…>; rel="next"` header. */
    nextPath: param.optional(),
    limitParam: param.optional(),
  }),
]);

/**
 * How an answer body says whether it is a success (a 2xx status alone does not: JSON-RPC servers
 * answer their errors with 200). Shared by sources and sinks; read by src/erp/http/answer.ts.
 */
const answerRuleShape = {
  /** A named protocol: `jsonrpc` knows `error` vs `result`, in Tryton's form (`error: [name, args]`) and JSON-RPC 2.0's (`error: {code, message}`). */
  protocol: z.enum(['jsonrpc']).optional(),
  /** JSONata predicate over the answer (per record: over its result): true = success, anything else an error. */
  successWhen: z.string().min(1).optional(),
  /** JSONata predicate over the answer (per record: over its result): true = an error. `"false"` accepts every 2xx body on purpose. */
  errorWhen: z.string().min(1).optional(),
  /** JSONata predicate over an error answer: true = the server is unavailable or the call is wrong (the run fails), not the record's data. */
  unavailableWhen: z.string().min(1).optional(),
  /** JSONata expression (a dotted path is one) giving the text of the server's message in an error answer. */
  errorMessage: z.string().min(1).optional(),
};

/** HTTP source: GET a paged list of JSON records. */
export const httpSourceSchema = z.strictObject({
    /** Name of the connection this part uses (read by the pipeline config, ignored here). */
    connection: z.string().optional(),
  /** Path (or absolute URL) of the list endpoint, resolved against the connection's baseUrl. */
  path: z.string().min(1),
  /** Fixed query parameters (e.g. `{ sort: updated_at }`). */
  query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
  /** Dotted path of the records array in the response; absent = the body is the array. */
  recordsPath: z.string().min(1).optional(),
  paging: pagingSchema.prefault({ style: 'none' }),
  /** Dotted path of the record key. */
  key: z.string().min(1),
  /** Dotted path of the cursor field (e.g. updated_at); absent = every run reads everything. */
  cursor: z.string().min(1).optional(),
  /** Query parameter that receives the last cursor value; the API must treat it as inclusive (>=). */
  sinceParam: z.string().min(1).optional(),
  /**
   * Incremental reads start this long before the stored cursor (`sinceParam` and the local filter
   * alike), so a record stamped before the cursor but visible only later (a long ERP transaction, a
   * clock behind) is not skipped; records read again unchanged cost no shop request. Timestamps
   * written as text only; e.g. `90s`, `0` turns it off. @default 5m (DEFAULT_LOOKBACK_MS, as SQL sources)
   */
  lookback: durationSchema.optional(),
  /** Query parameter that receives `until` (inclusive) for backfills. */
  untilParam: z.string().min(1).optional(),
  /** Extra headers for this endpoint. */
  headers: z.record(z.string(), z.string()).default({}),
  /** Safety stop against APIs that never say "last page". @default 100000 */
  maxPages: z.coerce.number().int().positive().default(100_000),
  ...answerRuleShape,
});

/** HTTP sink: send a batch as JSON. */
export const httpSinkSchema = z.strictObject({
    /** Name of the connection this part uses (read by the pipeline config, ignored here). */
    connection: z.string().optional(),
  /** Path (or absolute URL); with `perRecord`, `{record.FIELD}` placeholders are filled (URL-encoded). */
  path: z.string().min(1),
  /** @default 'POST' */
  method: z.enum(['POST', 'PUT', 'PATCH']).default('POST'),
  /** Wrap the array in an object under this field (`{ "orders": [...] }`); absent = the body is the array. */
  wrapIn: z.string().min(1).optional(),
  /**
   * The request body as a JSON template instead of the records themselves: the string `"$records"`
   * stands for the array of mapped records (per record: `"$record"` for the record, `"$index"` for
   * its index in the batch), `"$batchId"` for the batch id; everything else is sent as written. E.g.
   * Tryton's `{ id: 1, method: model.sale.sale.create, params: ["$records", {}] }`. Not with `wrapIn`.
   */
  body: z.json().optional(),
  /** One request per record (body = the record) instead of one per batch. @default false */
  perRecord: z.boolean().default(false),
  /** Header carrying the batch id (per record: `<batch id>:<index>`). @default 'Idempotency-Key' */
  idempotencyHeader: z.string().min(1).default('Idempotency-Key'),
  headers: z.record(z.string(), z.string()).default({}),
  ...answerRuleShape,
  /**
   * Batch calls: JSONata expression (a dotted path is one) of the per-record results in the answer,
   * one per record in the order sent (`results`, `result`); each is judged by successWhen/errorWhen.
   * With `protocol: jsonrpc`, an answer that is an array (a JSON-RPC batch) is matched by `id` without it.
   */
  results: z.string().min(1).optional(),
});

export type HttpSourceConfig = z.output<typeof httpSourceSchema>;
export type HttpSinkConfig = z.output<typeof httpSinkSchema>;
export type PagingConfig = z.output<typeof pagingSchema>;
export type HttpSourceConfigInput = z.input<typeof httpSourceSchema>;
export type HttpSinkConfigInput = z.input<typeof httpSinkSchema>;
