/**
 * `lookups:` of a pull pipeline (shop → ERP): named searches on an ERP connection that turn a shop
 * value (an e-mail, a product code) into the ERP's own id, for `lookup: <name>` in the mapping.
 */
import { z } from 'zod';

// YAML reads a bare `null` as null, not as the word: both mean "send no value".
const onMissing = z
  .union([z.enum(['refuse', 'null']), z.null()], { error: () => 'expected onMissing: refuse (the record is dead-lettered with LOOKUP_NOT_FOUND) or null (the field is sent empty)' })
  .default('refuse');

/** A search on a JSON-RPC connection (Tryton, Odoo): `[[field, '=', value]]` on `model`. */
export const rpcLookupSchema = z.strictObject({
  /** A `kind: jsonrpc` connection under `connections:`. */
  connection: z.string().min(1),
  /** The ERP model searched (`product.product`, `party.party`). */
  model: z.string().min(1),
  /** The field compared with the value; a dotted path through a relation works where the ERP's domains allow it (`contact_mechanisms.value`). */
  field: z.string().min(1),
  /** The field of the record found that the mapping gets (`id`, `default_uom`). @default id */
  returns: z.string().min(1).default('id'),
  /** Without a record found (and no `create:`): `refuse` dead-letters the record with LOOKUP_NOT_FOUND, `null` sends no value. @default refuse */
  onMissing,
  /**
   * Create the record when none is found: `values` are written as given, with `{record.<path>}`
   * filled from the shop record and `{value}` with the value looked up (a string that is only one
   * placeholder keeps the value's type). @default none (not found is not found)
   */
  create: z
    .strictObject({
      /** The model created. @default the lookup's `model` */
      model: z.string().min(1).optional(),
      values: z.record(z.string(), z.unknown()),
    })
    .optional(),
});

/** A query on a SQL connection: `:value` is bound to the value looked up. */
export const sqlLookupSchema = z.strictObject({
  /** A SQL connection (postgres, mysql, sqlite) under `connections:`. */
  connection: z.string().min(1),
  /** A query with the named parameter `:value`, answering one row (`SELECT id FROM product WHERE code = :value`). */
  query: z.string().min(1).refine((q) => /:value\b/.test(q), { message: 'a lookup query binds the value looked up as `:value` (`SELECT id FROM product WHERE code = :value`)' }),
  /** The column of the row the mapping gets. @default the row's first column */
  returns: z.string().min(1).optional(),
  onMissing,
});

/** One lookup: an RPC search (`model` + `field`) or an SQL query (`query`). */
export const lookupDefSchema = z.union([rpcLookupSchema, sqlLookupSchema], {
  error: () => 'expected an RPC lookup `{ connection, model, field, returns }` or an SQL lookup `{ connection, query: "SELECT id FROM product WHERE code = :value" }`',
});

/** The pipeline's `lookups:` by name. */
export const lookupsSchema = z.record(z.string().regex(/^[A-Za-z0-9_.-]+$/, 'lookup names use letters, digits, `_`, `-` and `.`'), lookupDefSchema);

export type RpcLookupDef = z.output<typeof rpcLookupSchema>;
export type SqlLookupDef = z.output<typeof sqlLookupSchema>;
export type LookupDef = z.output<typeof lookupDefSchema>;

/** Whether a lookup searches a JSON-RPC model. */
export function isRpcLookup(def: LookupDef): def is RpcLookupDef {
  return 'model' in def;
}
