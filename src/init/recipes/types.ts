/**
 * ERP recipes: what `shopsync init --erp <name>` knows about an ERP's own tables, as data. Each
 * recipe is the SELECT that gives one row per sellable article (code, name, price, stock, EAN,
 * active, change time), the tables and columns it needs, the tables whose changes should wake the
 * pipeline, and the mapping of its columns onto the shop's products. One page each in docs/erp/.
 */

/** The ERPs init has a recipe for. */
export const RECIPE_NAMES = ['tryton', 'odoo', 'erpnext', 'dolibarr'] as const;
export type RecipeName = (typeof RECIPE_NAMES)[number];

/**
 * What an empty source value means for a field: `keep` leaves the shop's value as it is (stock and
 * prices: an empty cell is unknown, never 0), `clear` empties it in the shop (an EAN removed in the
 * ERP must leave the shop too).
 */
export type EmptyPolicy = 'keep' | 'clear';

/** One mapping rule of a recipe: the column of its SELECT and how it becomes the shop field. */
export interface RecipeField {
  readonly from: string;
  readonly type?: 'decimal' | 'flag';
  /** Flags: the values the column holds for yes and no (PostgreSQL booleans, MariaDB 1/0). */
  readonly true?: readonly (string | number | boolean)[];
  readonly false?: readonly (string | number | boolean)[];
  readonly trim?: boolean;
  readonly required?: boolean;
  readonly empty: EmptyPolicy;
  /** Why the rule is as it is: written as the rule's comment. */
  readonly why: string;
}

/** A named parameter of the SELECT (`:warehouse`), with the ERP's default and what it means. */
export interface RecipeParam {
  readonly value: string | number;
  readonly why: string;
}

/** Everything init needs to write a working pipeline for one ERP. */
export interface Recipe {
  readonly name: RecipeName;
  /** `Tryton 6.0`, as the messages name it. */
  readonly title: string;
  /** The database the ERP keeps its data in. */
  readonly kind: 'postgres' | 'mysql';
  /** Its page, relative to the repository (`docs/erp/tryton.md`). */
  readonly doc: string;
  /** The tables the SELECT reads and the columns it needs of each: checked before anything is written. */
  readonly tables: Readonly<Record<string, readonly string[]>>;
  /** What to tell a person whose database lacks those tables (the modules or apps that create them). */
  readonly missingHint: string;
  /** Tables whose INSERT/UPDATE/DELETE should wake the pipeline (NOTIFY triggers; docs/triggers.md). */
  readonly notifyTables: readonly string[];
  /** The SELECT: one row per article, `:name` parameters from `params`. */
  readonly query: string;
  readonly params: Readonly<Record<string, RecipeParam>>;
  /** The article number column: what the shop knows the article by (products_model). */
  readonly key: string;
  /**
   * The ERP's stable id column beside the number, where the ERP has one that a renumbering keeps
   * (Tryton's, Odoo's product id, Dolibarr's rowid): the mapping says `key: { surrogate, natural }`
   * and a changed number renames the shop product (docs/catalog.md "Renamed articles"). Absent:
   * a changed number is a new article and the old one gone.
   */
  readonly surrogate?: string;
  /** The change column: a GREATEST(...) over every row the SELECT reads. */
  readonly cursor: string;
  /** Shop field path (`languages.{language}.products_name`) → rule. */
  readonly fields: Readonly<Record<string, RecipeField>>;
}
