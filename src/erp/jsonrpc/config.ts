/**
 * JSON-RPC ERPs (Tryton, Odoo): the connection (where, which database, whose login) and the sink
 * (which model records are created in, and the reference that makes a create idempotent).
 */
import { z } from 'zod';

/** A Tryton or Odoo server spoken to over JSON-RPC; the login's session is kept and renewed by the client. */
export const jsonrpcConnectionSchema = z.strictObject({
  kind: z.literal('jsonrpc'),
  name: z.string().optional(),
  /** Whose envelope the server speaks: `tryton` (6.0 and later) or `odoo` (the `/jsonrpc` endpoint's `execute_kw`). */
  dialect: z.enum(['tryton', 'odoo']),
  /**
   * Tryton: the server's root (`http://erp:8000/`), calls go to `<url>/<database>/`.
   * Odoo: the `/jsonrpc` endpoint (`http://erp:8069/jsonrpc`); a bare server root gets `/jsonrpc` appended.
   */
  url: z.url(),
  /** The ERP database to log in to. */
  database: z.string().min(1),
  /** The ERP user shopsync logs in as. */
  login: z.string().min(1),
  /** Its password, e.g. `${TRYTON_PASSWORD}`; never logged, scrubbed from every message. */
  password: z.string().min(1),
  /** Context sent with every call (Tryton's `context` argument, Odoo's `context` keyword), e.g. `{ company: 1 }`. @default {} (the user's preferences apply) */
  context: z.record(z.string(), z.unknown()).default({}),
  /**
   * Log in again before a call when the session has been idle this long, so it is never used past
   * Tryton's `[session] timeout` (600 s by default); 0 = only after the server refused it (401/403). @default 540000
   */
  sessionIdleMs: z.coerce.number().int().min(0).default(540_000),
  /** One deadline per request (each attempt). @default 30000 */
  timeoutMs: z.coerce.number().int().positive().default(30_000),
  /** Largest answer body read, in bytes; a larger one fails with CONNECTOR_RESPONSE_TOO_LARGE. @default 67108864 (64 MiB) */
  maxResponseBytes: z.coerce.number().int().positive().default(64 * 1024 * 1024),
  /** Attempts after the first on network errors, 5xx and 429 (a create is retried only after its reference was looked up). @default 5 */
  retries: z.coerce.number().int().min(0).max(20).default(5),
  /** First backoff delay, doubled per attempt (with jitter). @default 500 */
  backoffMs: z.coerce.number().int().nonnegative().default(500),
  /** Backoff ceiling. @default 30000 */
  maxBackoffMs: z.coerce.number().int().nonnegative().default(30_000),
});

/** An ERP model name as both ERPs write them: `sale.sale`, `sale.order`, `party.party`. */
const modelName = z.string().regex(/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/, 'expected a model name such as sale.sale or sale.order');

/** JSON-RPC sink: every record becomes one ERP record created through `<model>.create`, once. */
export const jsonrpcSinkSchema = z.strictObject({
  /** Name of the connection this part uses (read by the pipeline config, ignored here). */
  connection: z.string().optional(),
  /** The model records are created in: `sale.sale` (Tryton), `sale.order` (Odoo). */
  model: modelName,
  /**
   * What makes a create idempotent: the model's field that holds the shop's id (Tryton `reference`,
   * Odoo `client_order_ref`), searched before each create; a record found there is not created again.
   */
  reference: z.strictObject({
    /** The ERP model's field. */
    field: z.string().regex(/^[a-z_][a-z0-9_]*$/, 'expected a field name such as reference or client_order_ref'),
    /** Dotted path of the mapped record's value for it; written into `field` and not sent under its own name. @default field */
    from: z.string().min(1).optional(),
  }),
  /** Fields of the mapped record holding a list of child records (`lines`): created with the record, wrapped the dialect's way. */
  one2many: z.array(z.string().regex(/^[a-z_][a-z0-9_]*$/, 'expected a field name such as lines or order_line')).default([]),
  /**
   * One `create` call per record instead of one per batch. A batch the ERP refuses (one bad record
   * fails the whole call) is created again record by record either way, so only the bad one is refused. @default false
   */
  perRecord: z.boolean().default(false),
  /**
   * Cancel the ERP's record when the shop's order is cancelled (issue 44): a mapped record whose
   * `from` value is in `values` has its sale cancelled through the model's cancel button while the
   * sale is in one of `states`; a sale past them (confirmed, shipped) is left untouched and the record
   * becomes a dead letter naming it (a human decides). Absent: a re-delivered order is `kept` as before.
   */
  cancel: z
    .strictObject({
      /** Dotted path of the mapped record's value saying the order is cancelled (e.g. `shop_status`); read here, never sent to the ERP. */
      from: z.string().min(1),
      /** The values of `from` that mean "cancelled" (the shop's cancelled status ids, e.g. `[4]`); compared as text. */
      values: z.array(z.union([z.string(), z.number()])).min(1),
      /** The model's cancel button, called as `<model>.<button>([ids])`. @default cancel (Tryton), action_cancel (Odoo) */
      button: z.string().regex(/^[a-z_][a-z0-9_]*$/, 'expected a method name such as cancel or action_cancel').optional(),
      /** States in which the sink may cancel. @default [draft, quotation] (Tryton), [draft, sent] (Odoo) */
      states: z.array(z.string().min(1)).min(1).optional(),
      /** The state of a cancelled record. @default cancelled (Tryton), cancel (Odoo) */
      cancelled: z.string().min(1).optional(),
      /** The model's state field. @default state */
      stateField: z.string().regex(/^[a-z_][a-z0-9_]*$/).default('state'),
      /** The field naming the record for people (in letters). @default number (Tryton), name (Odoo) */
      numberField: z.string().regex(/^[a-z_][a-z0-9_]*$/).optional(),
    })
    .optional(),
});

/** What a pipeline's `source:` on a jsonrpc connection meets: a refusal that says why. */
export const jsonrpcSourceSchema = z.custom<never>(() => false, { message: 'a jsonrpc connection (Tryton, Odoo) is a sink, not a source: read the ERP through its database (a postgres connection) or an HTTP API' });

export type JsonrpcConnection = z.output<typeof jsonrpcConnectionSchema>;
export type JsonrpcConnectionInput = z.input<typeof jsonrpcConnectionSchema>;
export type JsonrpcSinkConfig = z.output<typeof jsonrpcSinkSchema>;
export type JsonrpcSinkConfigInput = z.input<typeof jsonrpcSinkSchema>;
