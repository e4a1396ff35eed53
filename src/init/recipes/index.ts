/**
 * The ERP recipes of `shopsync init --erp`: one file per ERP (data, not code paths), looked up
 * here, and the check that a live database really holds the tables and columns a recipe reads.
 */
import type { SqlDriver } from '../../erp/index.js';
import { INIT_CODES, InitError } from '../errors.js';
import { dolibarr } from './dolibarr.js';
import { erpnext } from './erpnext.js';
import { odoo } from './odoo.js';
import { tryton } from './tryton.js';
import type { Recipe, RecipeName } from './types.js';

export { RECIPE_NAMES, type Recipe, type RecipeName, type RecipeField, type EmptyPolicy } from './types.js';

/** Every recipe by name. */
export const RECIPES: Readonly<Record<RecipeName, Recipe>> = { tryton, odoo, erpnext, dolibarr };

/** The recipe's parameters with the person's overrides (`--erp-param warehouse=Stores - AC`); an unknown name is refused with the known ones. */
export function recipeParams(recipe: Recipe, given: Readonly<Record<string, string>>): Record<string, string | number> {
  const known = Object.keys(recipe.params);
  const unknown = Object.keys(given).filter((k) => !known.includes(k));
  if (unknown.length > 0) throw new InitError(INIT_CODES.input, `--erp-param ${unknown.join(', ')}: the ${recipe.title} recipe has no such parameter; it has ${known.map((k) => `${k} (${recipe.params[k]!.why})`).join('; ')}`);
  const out: Record<string, string | number> = {};
  for (const [name, p] of Object.entries(recipe.params)) out[name] = given[name] ?? p.value;
  return out;
}

/**
 * Whether the database holds every table and column the recipe reads. A missing one fails with
 * the whole list of what is missing, where it looked, and what creates those tables.
 */
export async function checkRecipeTables(driver: SqlDriver, recipe: Recipe): Promise<void> {
  const schema = await driver.defaultSchema();
  const p = (n: number) => (driver.style === 'dollar' ? `$${n}` : '?');
  const rows = await driver.query(`SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = ${p(1)}`, [schema]);
  const have = new Map<string, Set<string>>();
  for (const r of rows) {
    const t = String(r.t ?? r.T ?? r.TABLE_NAME);
    if (!have.has(t)) have.set(t, new Set());
    have.get(t)!.add(String(r.c ?? r.C ?? r.COLUMN_NAME));
  }
  const tables: string[] = [];
  const columns: string[] = [];
  for (const [table, cols] of Object.entries(recipe.tables)) {
    const present = have.get(table);
    if (!present) tables.push(table);
    else for (const c of cols) if (!present.has(c)) columns.push(`${table}.${c}`);
  }
  if (tables.length === 0 && columns.length === 0) return;
  const what = [
    ...(tables.length > 0 ? [`table${tables.length === 1 ? '' : 's'} ${tables.join(', ')}`] : []),
    ...(columns.length > 0 ? [`column${columns.length === 1 ? '' : 's'} ${columns.join(', ')}`] : []),
  ].join(' and ');
  throw new InitError(
    INIT_CODES.source,
    `this is not a ${recipe.title} database as the recipe knows it: ${what} ${tables.length + columns.length === 1 ? 'is' : 'are'} missing in ${recipe.kind === 'postgres' ? 'schema' : 'database'} ${schema}. ${recipe.missingHint[0]!.toUpperCase()}${recipe.missingHint.slice(1)}. Point --db-url${recipe.kind === 'postgres' ? ' (and --db-schema)' : ''} at the ${recipe.title} database, or write the SELECT yourself with --query (see ${recipe.doc})`,
  );
}
