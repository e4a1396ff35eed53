/**
 * The shape of a resource description. Each shop resource of the Shop Administration JSON API
 * is described exactly once (in `src/shop/resources/<name>.ts`) with these types; the client,
 * the sandbox's routes, the mapping checks and the pipelines all derive from that description.
 */
import type { z } from 'zod';

/** OAuth scope, e.g. `products:write`. */
export type Scope = `${string}:${'read' | 'write' | 'delete'}`;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One HTTP operation: method, lower-case path template (`{id}`, `{start}:{end}`) and required scope. */
export interface OperationDef {
  readonly method: HttpMethod;
  readonly path: string;
  readonly scope: Scope;
}

/** Type of an export filter's query value. */
export type FilterType = 'int' | 'string' | 'date' | 'timestamp' | 'flag' | 'enum';

/** An export filter (query parameter). */
export interface FilterDef {
  readonly type: FilterType;
  /** Allowed values for `enum` (and documented ranges for `int`). */
  readonly values?: readonly (string | number)[];
  readonly min?: number;
  readonly max?: number;
  /** What the shop filters on (record field), when the sandbox must know it. */
  readonly field?: string;
  readonly note?: string;
}

/** How the shop pages an export. */
export interface PagingDef {
  /** `limit-offset`: `limit`/`offset` query parameters. `none`: the whole list in one answer. */
  readonly kind: 'limit-offset' | 'none';
  readonly defaultLimit: number;
  readonly maxLimit: number;
}

/** A delta filter: ask the shop only for records changed since a value. */
export interface DeltaDef {
  /** Query parameter, e.g. `last_modified` or `date_from`. */
  readonly param: string;
  /** `day`: YYYY-MM-DD, so the boundary day must be re-read. `timestamp`: Y-m-d H:i:s. */
  readonly granularity: 'day' | 'timestamp';
  /** Record field holding the value the filter compares (for boundary and hash bookkeeping). */
  readonly recordField: string;
  /** `changed`: the filter sees updates. `created`: only new records (orders by purchase date). */
  readonly sees: 'changed' | 'created';
}

/** A list export. */
export interface ExportDef extends OperationDef {
  readonly paging: PagingDef;
  readonly filters: Readonly<Record<string, FilterDef>>;
  readonly delta?: DeltaDef;
}

/** Where a delete takes the record's id. */
export interface DeleteDef extends OperationDef {
  readonly idIn: 'path' | 'query' | 'body';
  /** Parameter name (query/body) or documentation name (path). */
  readonly param: string;
  /** Other parameters that identify the record (products_model…). */
  readonly alternatives?: readonly string[];
}

/** A bulk delete: the body or query that selects several records. */
export interface BulkDeleteDef extends OperationDef {
  /** `ids`: body `{<param>: [ids]}`; `envelope`: body `{type, data:[{...}]}`; `query`: query selectors. */
  readonly style: 'ids' | 'envelope' | 'query';
  readonly param: string;
}

/**
 * Write semantics of a list or object field.
 * - `replace`: replace-on-present; absent leaves the stored list, `[]` clears it (a guard-rail trap).
 * - `upsert`: entries are matched by `entryKey`; unlisted entries stay.
 * - `append-only`: entries are appended, never replaced; `identity` names what makes an entry unique.
 * - `merge-language`: per language code (or language_id), only sent languages/fields are written.
 * - `create-only`: only taken when the record is created (order items).
 * - `export-only`: read from the shop, ignored on write.
 */
export type ListSemantics =
  | { readonly kind: 'replace' }
  | {
      readonly kind: 'upsert';
      readonly entryKey: readonly string[];
      /** Field and value that delete one entry (`_action: 'delete'`). */
      readonly deleteAction?: { readonly field: string; readonly value: string };
      /** Record-level flag that turns the upsert into a replace (`customers_prices_replace`). */
      readonly replaceFlag?: string;
      /**
       * Fields an inserted entry takes a default for when absent (customers_price: the current product
       * price). Under `replaceFlag` every entry is inserted, so an entry lacking one loses its value.
       */
      readonly insertDefaults?: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'append-only'; readonly identity: readonly string[] }
  | { readonly kind: 'merge-language' }
  | { readonly kind: 'create-only' }
  | { readonly kind: 'export-only' };

/** A list (or per-language object) field of a resource. */
export interface ListFieldDef {
  readonly semantics: ListSemantics;
  /** True when the spec states the semantics; false when it is a spec-gap decision (see docs/spec-gaps.md). */
  readonly specified: boolean;
  readonly note?: string;
  /**
   * The entries name files the shop must hold in its media folder (product images): `nameField`
   * is the entry's file name, `entityType` the media upload's `entity_type` (docs/catalog.md).
   */
  readonly files?: { readonly nameField: string; readonly entityType: string };
}

/**
 * A field computed from an export record for shop→ERP mappings: the import shape of data the
 * shop exports in another shape (the flat `options[]` from `options{}` and `option_groups[]`).
 */
export interface ExportViewDef {
  /** The export fields it reads. */
  readonly from: readonly string[];
  readonly derive: (record: Readonly<Record<string, unknown>>) => unknown;
  readonly note: string;
}

/** Fields whose values the API only takes as JSON booleans (the string 'true' or 1 does not count). */
export type StrictBooleanFields = readonly string[];

/** A length limit the shop enforces or silently applies. */
export interface LengthLimit {
  /** Dot path with `[]` for list entries and `*` for language codes, e.g. `storages[].products_storage_text`. */
  readonly path: string;
  readonly max: number;
  /** `reject`: the shop rejects or drops; `truncate`: the shop truncates (with or without warning). */
  readonly shop: 'reject' | 'truncate' | 'unspecified';
}

/**
 * What empties one field on the wire, for mappings that say `when_empty: clear`. `clear`: the value
 * the shop stores as "no value" (products_ean ''). `never`: the field has no such value, and why
 * (a price: '' and null are stored as 0, and an empty cell is unknown, never 0).
 */
export type EmptyDef =
  | {
      readonly clear: string | null;
      /** True when the spec states it (warranty_type: "empty string = column cleared"); false when it is a spec-gap decision. */
      readonly specified: boolean;
      /** Values the export shows for a field emptied so (a text column may come back as null): a reconciliation counts them as the empty value. */
      readonly reads?: readonly (string | null)[];
    }
  | { readonly never: string };

/** How a record is identified on update (PUT). */
export interface KeyDef {
  /** The shop's id field (products_id, orders_id…). */
  readonly id: string;
  /** Other fields that identify a record on update (products_model, customers_id_extern…). */
  readonly alternatives: readonly string[];
  /** True when the spec shows the PUT key; false when it is a spec-gap decision. */
  readonly specified: boolean;
}

/**
 * Fields that name one record besides its id (a product's model, a manufacturer's name). Read by
 * the pipelines to decide whether a create that may already have landed (lost answer, crash) can
 * simply be sent again or must first be looked up in the shop.
 */
export interface NaturalKeyDef {
  /** The key's fields, all required; `languages.*.x` = field x in every language sent (at least one language must carry one of the listed language fields). */
  readonly fields: readonly string[];
  /**
   * True when the shop refuses a second record with the same key and names the existing one
   * (`Already exists` with its id; orders: `DUPLICATE_EXTERNAL_REFERENCE`), so repeating a create
   * is harmless. False when the shop would store a duplicate (a key by convention only).
   */
  readonly enforced: boolean;
  /** Fields that qualify the key: the same name may occur once per scope (a category's name under its `parent_id`). */
  readonly scope?: readonly string[];
  /** The value the shop gives a scope field the payload leaves out (`parent_id: 0`, a root category). */
  readonly scopeDefaults?: Readonly<Record<string, string | number>>;
}

/**
 * A field every create of the resource must carry, although the shop would accept a create
 * without it, because leaving it out does damage the shop will not report (an order without
 * `external_reference` can be created twice; without `tax_flag` the shop guesses net or gross).
 * Read by the mapping check (a creating mapping must map it), the per-record guards and the push.
 */
export interface RequiredOnCreateDef {
  readonly field: string;
  /** Sub-fields of an object field that must be non-empty strings (`source`, `external_id`). */
  readonly parts?: readonly string[];
  /** The field is a map of entries (a product's `languages`): at least one entry must hold a non-empty string in this sub-field (`products_name`). */
  readonly inSomeEntry?: string;
  /** The only values allowed (tax_flag: 0, 1, 2). */
  readonly values?: readonly (string | number)[];
  /** A number above 0 (a price: 0 sells the record for nothing). */
  readonly positive?: boolean;
  /** The rule holds only for a record created active: `field` holding one of `inactive` exempts it (absent counts as active). */
  readonly unlessInactive?: { readonly field: string; readonly inactive: readonly (string | number)[] };
  /** The word a mapping's `allow:` list uses to say a record without it is intended (`zero_price`). */
  readonly allowedBy?: string;
  /** The guard-rail code of the refusal (`GUARD_ORDER_EXTERNAL_REFERENCE`). */
  readonly guard: string;
  /** What goes wrong without it, and what to map; ends the refusal's message. */
  readonly why: string;
}

/** The operations a resource offers. */
export interface ResourceOps {
  readonly export?: ExportDef;
  readonly exportOne?: OperationDef;
  /** Id range export (`{start}:{end}`) or "from id on" export (`{id}` only). */
  readonly range?: OperationDef;
  readonly create?: OperationDef;
  readonly update?: OperationDef;
  readonly delete?: DeleteDef;
  readonly bulkDelete?: BulkDeleteDef;
  /** Resource-specific operations (contract `status`, ticket `claims`, `attachments`, `attachment`, category `productlist`). */
  readonly extra?: Readonly<Record<string, OperationDef>>;
}

/** One shop resource, described once. */
export interface ResourceDef<
  TRecord extends z.ZodType = z.ZodType,
  TWrite extends z.ZodType = z.ZodType,
> {
  /** Registry name and the `type` of write envelopes (products, newsletter_subscribers…). */
  readonly name: string;
  /** Human label for logs and the dashboard. */
  readonly label: string;
  /** API version that introduced the resource. */
  readonly since?: string;
  readonly key: KeyDef;
  /** Where export answers hold the records: `data` of an envelope (or a bare array, accepted too). */
  readonly ops: ResourceOps;
  /** Every list/object field with its write semantics. */
  readonly lists: Readonly<Record<string, ListFieldDef>>;
  readonly strictBooleans: StrictBooleanFields;
  readonly lengthLimits: readonly LengthLimit[];
  /** Fields that must be sent as point decimals (numbers or `'50.5'` strings), as dot paths. */
  readonly decimalFields: readonly string[];
  /**
   * What empties each field that can be emptied (`when_empty: clear`), or why a field cannot, as dot
   * paths like `lengthLimits` (`languages.*.products_description`). A decimal field not listed has
   * no empty value ('' and null write 0); any other field not listed cannot be cleared either.
   */
  readonly empties?: Readonly<Record<string, EmptyDef>>;
  /**
   * Fraction digits the shop stores for each of `decimalFields` (same dot paths): a value is rounded
   * to them half-up before it is sent (docs/mappings.md "Decimals"). Spec: quantities decimal(16,8);
   * the rest is a spec-gap decision (docs/spec-gaps.md "Decimal scales"). Absent = no decimal fields.
   */
  readonly decimalScales?: Readonly<Record<string, number>>;
  readonly schemas: {
    /** A record as the shop exports it (loose: unknown fields pass through). */
    readonly record: TRecord;
    /** A record as shopsync may write it (strict: an unknown field is an error, never silently ignored). */
    readonly write: TWrite;
  };
  /** Envelope `type` when it differs from `name` (slider writes use `slider`). */
  readonly writeType?: string;
  /** Natural keys, enforced by the shop or not, in the order a lookup tries them; absent = none. */
  readonly naturalKeys?: readonly NaturalKeyDef[];
  /** Fields shopsync never creates a record without; absent = none. */
  readonly requiredOnCreate?: readonly RequiredOnCreateDef[];
  /** Fields a pull adds to each export record before its mapping runs (by name); absent = none. */
  readonly exportViews?: Readonly<Record<string, ExportViewDef>>;
  /** How a record that left the ERP is deactivated (pipelines with `onMissing: deactivate`); absent = it cannot be. */
  readonly deactivate?: DeactivateDef;
  /** The stock fields of the resource (issue 43): what reservations subtract from and what travels on its own. */
  readonly stock?: StockDef;
  /** How one of its records books stock in the shop when created (orders: "Stock booking happens automatically on create"). */
  readonly books?: BooksDef;
  /** How a record's life after creation is followed by a pull (issue 44: orders after checkout); absent = it cannot be. */
  readonly follow?: FollowDef;
  /** What a changed number of a record with a stable ERP id means (issue 46, docs/catalog.md "Renamed articles"); absent = the resource has no number to rename. */
  readonly renames?: RenameDef;
}

/**
 * A record the ERP renumbers (issue 46): with a stable ERP id (`key: { surrogate, natural }` in the
 * mapping), a new value in `number` updates the same shop record, and the SEO path it had before
 * gets an SEO history entry of type `seo.type`, so the old URL redirects to it.
 */
export interface RenameDef {
  /** The top-level field holding the record's number (products_model); a mapping with a surrogate key must write it. */
  readonly number: string;
  /** Where the record's SEO path is, per language, and the SEO history's entity type for it; absent = it has no URL to keep. */
  readonly seo?: {
    /** `sh_base_type` / `sh_item_type` of its SEO history entries (p product, m manufacturer…). */
    readonly type: 'c' | 's' | 'm' | 'p' | 'n' | 'o';
    /** The field of each language block that holds the path (`seo_name`, read as `languages.<code>.seo_name`). */
    readonly field: string;
  };
}

/**
 * Deactivating a record: an update writing `value` into `field` (products_status 0). The record
 * stays in the shop with its id, orders and history; a mapping that writes `field` makes it active
 * again when the record comes back to the ERP.
 */
export interface DeactivateDef {
  readonly field: string;
  readonly value: string | number;
  /** True when the spec states the field's meaning; false when it is a spec-gap decision. */
  readonly specified: boolean;
}

/**
 * One stock field: `scalar` a top-level quantity of the article; `rows` a list whose entries carry
 * a quantity per warehouse (keyed by `keys`); `skus` a list of SKU entries named by `model`.
 */
export type StockFieldDef =
  | { readonly kind: 'scalar'; readonly field: string }
  | { readonly kind: 'rows'; readonly list: string; readonly quantity: string; readonly keys: readonly string[]; readonly warehouse: string }
  | { readonly kind: 'skus'; readonly list: string; readonly quantity: string; readonly model: string };

/** The stock fields of a resource, and the field the records' article number is in. */
export interface StockDef {
  readonly article: string;
  readonly fields: readonly StockFieldDef[];
}

/** The fields of a record that books stock: its item list and, per item, quantity, article, product id and attributes. */
export interface BooksDef {
  readonly items: string;
  readonly quantity: string;
  readonly article: string;
  readonly productId: string;
  readonly attributes: string;
  /** When the record was placed (ISO-ish datetime of the shop). */
  readonly placedAt: string;
}

/**
 * A record that lives on after it is created (an order after checkout) and whose export filter sees
 * only new records: what a follow reads again, and which parts of the record are its life.
 */
export interface FollowDef {
  /** The record's current status (an id). */
  readonly status: string;
  /** The append-only status log: list field, and per entry the status, comment and date fields. */
  readonly history: { readonly list: string; readonly status: string; readonly comment: string; readonly at: string };
  /** Parcel tracking: list field, the fields naming an entry (first present wins), the provider field and the return flag. */
  readonly tracking: { readonly list: string; readonly key: readonly string[]; readonly provider: readonly string[]; readonly returnFlag: string };
  /** Address blocks whose change is an `address` change. */
  readonly addresses: readonly string[];
  /** The item list (an `items` change). */
  readonly items: string;
  /** When the record was placed: the day filter compares this field. */
  readonly placedAt: string;
  /** Export filter taking one record id. */
  readonly byId: string;
  /** Export filters of one placement day (inclusive, YYYY-MM-DD). */
  readonly byDay: { readonly from: string; readonly to: string };
  /** Export filter taking one status id: a pass asks for the orders that reached a final status (`follow.settled`). */
  readonly byStatus: string;
}
