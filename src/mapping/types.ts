/**
 * Public types of the mapping layer.
 *
 * Glossary:
 * - mapping: one YAML file under `mappings/` describing how one kind of record becomes another
 *   (an ERP row becomes a shop payload, or a shop export record becomes an ERP row).
 * - rule: how one target field gets its value (source path, constant, template, lookup, expression…).
 * - target path: where a rule writes, as a dot path (`languages.de.products_name`).
 * - source path: where a rule reads, as a dot path into the (possibly nested) source record.
 * - guard rail: a check that refuses a payload which the shop would accept but silently turn into
 *   data loss (an empty replace-on-present list, a comma decimal, the string 'true' for a boolean…).
 * - finding: a warning or error produced while applying a mapping to one record.
 */
import type { MappingError } from '../errors.js';
import type { ResourceDef, ResourceName } from '../shop/registry/index.js';
import type { SourceFile } from './folders.js';
import type { ColumnUse } from './columns.js';

/** Direction of a mapping. */
export type MappingDirection = 'erp-to-shop' | 'shop-to-erp';

/** How a pipeline should send an erp→shop payload. `upsert`: create unknown records, update known ones. */
export type MappingOperation = 'upsert' | 'create' | 'update';

/** What the mapping needs from the running pipeline while applying a record (synchronous by contract). */
export interface MappingContext {
  /** The shop id stored for an ERP key of a resource (`ctx.lookupReference('manufacturers', 'H-0042')`), or undefined. */
  lookupReference(resource: string, erpKey: string): string | number | undefined;
  /**
   * The answer of the pipeline's ERP lookup `name` for a value (`lookup: party_by_email`); absent
   * outside a pull run (a file checked alone), where such a rule refuses its record.
   */
  lookupErp?(name: string, value: string | number): ErpLookupAnswer;
}

/** What an ERP lookup answered for one value: `pending` until the run asked the ERP (the record is then mapped again). */
export type ErpLookupAnswer =
  | { readonly kind: 'found'; readonly value: unknown }
  | { readonly kind: 'pending' }
  | { readonly kind: 'refused'; readonly code: string; readonly message: string };

/** A non-fatal observation about one record (a value that was deliberately truncated, a key-only storage row…). */
export interface Finding {
  /** Stable code, e.g. `TRUNCATED`, `GUARD_STORAGE_ROW`. */
  readonly code: string;
  readonly message: string;
  /** Target path the finding concerns. */
  readonly field?: string;
}

/** Result of applying a mapping to one record; errors are per record and never thrown. */
export type MappingResult =
  | { readonly ok: true; readonly payload: Record<string, unknown>; readonly warnings: Finding[]; readonly files?: readonly SourceFile[] }
  | { readonly ok: false; readonly errors: MappingError[]; readonly warnings: Finding[] };

/**
 * A stable ERP id beside the record's number (issue 46, `key: { surrogate, natural }`): references are
 * kept by the surrogate, and a new value of `number` for the same surrogate renames the shop record.
 */
export interface SurrogateKey {
  /** Source path of the ERP's stable id (the mapping's `key`). */
  readonly surrogate: string;
  /** Source path of the record's number, the ERP key references were kept by before (adopted on the first run). */
  readonly natural: string;
  /** The registry's field holding the number (`renames.number`: products_model), which the mapping writes. */
  readonly number: string;
  /** The record's value at `natural`, as text; undefined when it has none. */
  naturalOf(record: Record<string, unknown>): string | undefined;
}

/** A registry to check mappings against: by default the shop registry; tests may pass their own. */
export interface RegistryLike {
  /** Resource description by name, or undefined when unknown. */
  get(name: string): ResourceDef | undefined;
  /** Every known resource name (for suggestions). */
  names(): readonly string[];
}

/**
 * The fields of an erp→shop mapping that are not the ERP's once the record exists (rule key
 * `owner`, ./owners.ts), as target paths (`languages.de.products_description`). Every other field
 * is the ERP's: an update sends its value over whatever the shop holds.
 */
export interface FieldOwners {
  /** Sent on create only: never in an update, and not part of the change hash. */
  readonly shop: readonly string[];
  /** Sent in an update only while the shop holds what shopsync last sent; otherwise held and reported as a conflict. */
  readonly guard: readonly string[];
}

/** Options for loading and compiling a mapping. */
export interface LoadOptions {
  /** Registry to check target fields against. @default the shop registry (`src/shop/registry`) */
  readonly registry?: RegistryLike;
  /**
   * Largest text (UTF-8 bytes) one field of an erp→shop payload may carry; a larger one fails that
   * record with GUARD_FIELD_TOO_LARGE (`shop.maxFieldBytes` in shopsync.yaml). @default 1 MiB
   */
  readonly maxFieldBytes?: number;
  /**
   * The pipeline's shop variables: `${shop.<name>}` in the file, `$shop` in its expressions (./vars.ts).
   * Absent when a file is checked on its own: references stay as written.
   */
  readonly vars?: Readonly<Record<string, unknown>>;
}

/**
 * A mapping file compiled once into plain functions.
 *
 * `apply` always returns a Promise (a mapping may use JSONata expressions, whose evaluation is
 * asynchronous). When the mapping uses no `expr` rule, `applySync` is present and does exactly the
 * same synchronously with no Promise overhead: hot pipelines should prefer
 * `m.applySync ? m.applySync(r, ctx) : await m.apply(r, ctx)`.
 * Neither ever throws for a bad record: failures come back as `{ ok: false, errors }` with one
 * `MappingError` (or `GuardRailError`) per problem, naming field, source value and rule.
 */
export interface CompiledMapping {
  /** Mapping name (the file's `name:`). */
  readonly name: string;
  /** Absolute or given path of the file it was compiled from. */
  readonly file: string;
  readonly direction: MappingDirection;
  /** Shop resource written (erp→shop) or read (shop→erp). */
  readonly resource?: ResourceName;
  /** erp→shop only. */
  readonly operation?: MappingOperation;
  /** Source path of the record key (ERP key for erp→shop, shop id field for shop→erp). */
  readonly key: string;
  /** Target field that identifies the record in the shop on update (e.g. `products_model`), erp→shop only. */
  readonly shopKey?: string;
  /** Present when `key` is `{ surrogate, natural }`: `key` is then the surrogate's path, and a changed number is a rename (src/renames). */
  readonly surrogate?: SurrogateKey;
  /** Fields identifying one entry of an append-only history list (order `status_history[]`) so it is sent once. */
  readonly historyIdentity?: readonly string[];
  /**
   * Top-level payload fields to send only when the pipeline creates the record, and to drop on
   * update (customer `addresses`: an address without address_book_id is added, not updated).
   */
  readonly createOnly?: readonly string[];
  /** Fields owned by the shop or guarded (`owner:`); absent when every field is the ERP's. */
  readonly owners?: FieldOwners;
  /** The source columns the mapping reads at record level (checked against what a source has: ./columns.ts). */
  readonly columns: readonly ColumnUse[];
  /** The mapping's `allow:` words: records the registry refuses to create by default that it means to create. */
  readonly allow?: readonly string[];
  /** Top-level target fields the file's rules write (`products_status`, `languages`…). */
  readonly targets?: readonly string[];
  /**
   * Present when the file declares `row_key`: the identity of one source record among those sharing
   * its ERP key (`ART-1 [1]`), for change hashes and dead letters; references stay by ERP key.
   */
  readonly recordKey?: (erpKey: string, record: Record<string, unknown>) => string;
  /** The file's `stock:` choice (issue 43): `reserved` subtracts unbooked shop orders, `available` sends the ERP figure as it is. */
  readonly stock?: 'reserved' | 'available';
  /** The file's `duplicates:`: `latest` when several records of one key in a read are versions; absent means `refuse` (SOURCE_DUPLICATE_KEY). */
  readonly duplicates?: 'refuse' | 'latest';
  /** The record's `shop_key` value from that field's rule alone; present when it is a top-level field without an expression. */
  readonly shopKeyOf?: (record: Record<string, unknown>, ctx: MappingContext) => string | undefined;
  /** The record's ERP key read from `key` (undefined when the record has none). */
  sourceKey(record: Record<string, unknown>): string | undefined;
  /** Name of the ERP record shape produced (shop→erp), e.g. `erp_orders`. */
  readonly erpTarget?: string;
  /** Names of the pipeline lookups (`lookup: <name>`) the file's rules use, checked against the pipeline's `lookups:`. */
  readonly erpLookups?: readonly string[];
  /** True when at least one rule uses a JSONata expression (then `applySync` is absent). */
  readonly usesExpressions: boolean;
  /** sha256 of the file's text: a record's source hash is only as good as the mapping it was mapped with. */
  readonly fingerprint: string;
  /** Map one record: rules, guard rails, then strict validation against the registry's write schema. */
  apply(record: Record<string, unknown>, ctx: MappingContext): Promise<MappingResult>;
  /** Same as `apply`, synchronously; only present when the mapping uses no expression. */
  readonly applySync?: (record: Record<string, unknown>, ctx: MappingContext) => MappingResult;
}
