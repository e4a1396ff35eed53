/**
 * Public types of `shopsync init`.
 *
 * Glossary
 * - answers: everything init needs to know (shop, ERP source, resource, overrides), from flags or prompts.
 * - introspection: what init learnt from the source: its columns, their kinds and sample values,
 *   and for files the encoding, delimiter and decimal notation.
 * - proposal: the mapping init suggests: column → shop field rules, the key and cursor columns, and
 *   the columns it could not place.
 */
import type { DecimalLocale } from '../mapping/schema.js';

/** What the values of a column look like. */
export type ColumnKind = 'integer' | 'decimal' | 'boolean' | 'date' | 'datetime' | 'text' | 'empty';

/** One source column as init saw it. */
export interface Column {
  readonly name: string;
  /** The type the database declares (PostgreSQL `numeric`, SQLite `TEXT`…), when known. */
  readonly declaredType?: string;
  readonly kind: ColumnKind;
  /** Decimal notation of text numbers (`12,50` → comma); absent for real numbers and non-numbers. */
  readonly locale?: DecimalLocale;
  /** Date format of text dates in the mapping's format tokens (`DD.MM.YYYY`), when the values are dates. */
  readonly dateFormat?: string;
  /** Distinct values seen for boolean-like columns (`J`, `N`), split into true and false. */
  readonly booleans?: { readonly true: readonly string[]; readonly false: readonly string[] };
  /** Up to a few distinct non-empty sample values, as text. */
  readonly samples: readonly string[];
  /** Rows of the sample without a value. */
  readonly empty: number;
  /** Every non-empty sample value is different (and none is empty): a key candidate. */
  readonly unique: boolean;
  /** The values arrive as numbers (a database's integer or float column), not as text. */
  readonly numbers?: boolean;
  /** Part of the table's primary key (databases only). */
  readonly primaryKey?: boolean;
}

/** What init learnt about the source. */
export interface Introspection {
  readonly columns: readonly Column[];
  /** Rows read for the sample. */
  readonly rows: number;
  /** Files: the encoding the file is in. */
  readonly encoding?: string;
  /** Files: the sample held only ASCII, so `encoding` is an assumption, not something read off the bytes. */
  readonly encodingGuessed?: boolean;
  /** CSV: the delimiter found. */
  readonly delimiter?: string;
  /** JSON: dotted path of the records array; XML: dotted path of one record element. */
  readonly recordsPath?: string;
  /** The decimal notation most text numbers use (the mapping's default `locale:`). */
  readonly locale?: DecimalLocale;
}

/** One proposed field rule. */
export interface ProposedField {
  /** Target path in the shop resource (`languages.de.products_name`). */
  readonly target: string;
  /** The source column; '' for a constant (`value`). */
  readonly column: string;
  /** A constant written instead of a column (`products_status: { value: 1 }`). */
  readonly value?: string | number;
  /** Coercion written into the rule (`decimal`, `flag`, `string`…); absent = the value passes as it is. */
  readonly type?: string;
  /** Per-rule locale when the column's notation differs from the mapping's default. */
  readonly locale?: DecimalLocale;
  readonly format?: string;
  readonly trim?: boolean;
  /** A record without a value is refused (the shop key: a product without its model must not be created). */
  readonly required?: boolean;
  readonly true?: readonly string[];
  readonly false?: readonly string[];
  /** How init matched it, for the summary (`name`, `synonym`, `similar name`, `values`, `given`). */
  readonly why: string;
}

/**
 * A change column with NULLs in the sample, read as `COALESCE(column, fallback) AS alias`: keyset
 * paging refuses a row without a cursor value, so a NULL needs a stand-in that sorts as the row's age.
 */
export interface CoalescedCursor {
  /** The change column (`geaendert`). */
  readonly column: string;
  /** The name the query selects the expression under, and the source's `cursor:` (`shopsync_changed`). */
  readonly alias: string;
  /** A created-at column of the same kind, or a constant that sorts before every real value. */
  readonly fallback: { readonly column: string } | { readonly constant: string | number };
  /** What the change column holds (the constant is written in it). */
  readonly kind: 'datetime' | 'date' | 'integer';
  /** The change column's declared type, when the catalog gave one (MariaDB casts the constant to it). */
  readonly declaredType?: string;
  /** Sampled rows without a value in the change column, of `rows`. */
  readonly nulls: number;
  readonly rows: number;
  /**
   * Further change columns (a query joining tables: `template_write_date`): the cursor is then the
   * latest of all, `GREATEST(COALESCE(column, fallback, first), COALESCE(other, its fallback, first), …)`.
   */
  readonly also?: readonly { readonly column: string; readonly fallback?: string; readonly nulls: number }[];
}

/** A column init could not place, with the reason. */
export interface Unplaced {
  readonly column: string;
  readonly reason: string;
}

/** The mapping init suggests. */
export interface Proposal {
  readonly fields: readonly ProposedField[];
  readonly unplaced: readonly Unplaced[];
  /** Source key column (`key:` of the mapping and the source). */
  readonly key: string;
  /** The article number column beside a stable id `key` (issue 46): the mapping says `key: { surrogate: <key>, natural: <natural> }`. */
  readonly natural?: string;
  /** SQL sources: the column that grows on every change, as the source config names it (an alias under `cursorCoalesce`). */
  readonly cursor?: string;
  /** SQL sources: the change column has NULLs, so the query selects it through COALESCE under the alias `cursor`. */
  readonly cursorCoalesce?: CoalescedCursor;
  /** Why the cursor was chosen, or a warning when no fitting column exists. */
  readonly cursorNote?: string;
  /** The shop field that identifies a record besides its id (`shop_key:`), when the key maps to one. */
  readonly shopKey?: string;
  /** The mapping's default decimal locale. */
  readonly locale?: DecimalLocale;
  /** Fields the resource must get on create that no column fills (the mapping check will name them). */
  readonly missingRequired: readonly string[];
}
