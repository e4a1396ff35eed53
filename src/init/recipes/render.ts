/** The files `init --erp` writes: the recipe's mapping, commented rule by rule, and the config with its pipeline. */
import YAML from 'yaml';
import { schemaLine, wrapComment } from '../render.js';
import type { Recipe, RecipeField } from './types.js';

function flow(value: unknown): string {
  return YAML.stringify(value, { collectionStyle: 'flow', lineWidth: 0 }).trimEnd();
}

/**
 * A recipe rule as the mapping writes it, with its empty policy said out loud (docs/mappings.md,
 * "Empty values"): `clear` sends the shop's own empty value for the field, `keep` leaves the value
 * out so the shop keeps what it has (an empty stock or price is unknown, never 0). A required rule
 * has none: `required` already refuses an empty value.
 */
export function ruleOf(f: RecipeField): Record<string, unknown> {
  return {
    from: f.from,
    ...(f.type ? { type: f.type } : {}),
    ...(f.type === 'decimal' ? { locale: 'point' } : {}),
    ...(f.true ? { true: [...f.true] } : {}),
    ...(f.false ? { false: [...f.false] } : {}),
    ...(f.trim ? { trim: true } : {}),
    ...(f.required ? { required: true } : {}),
    ...(f.required ? {} : { when_empty: f.empty }),
  };
}

/** The shop field paths of a recipe, `{language}` filled in. */
export function recipeTargets(recipe: Recipe, language: string): [string, RecipeField][] {
  return Object.entries(recipe.fields).map(([target, f]) => [target.replace('{language}', language), f]);
}

/** The mapping file. */
export function renderRecipeMapping(dir: string, name: string, recipe: Recipe, language: string, stockLine?: string): string {
  const rules = recipeTargets(recipe, language).map(([target, f]) => [`  ${flow(target)}: ${flow(ruleOf(f))}`, f.why] as const);
  const width = Math.max(...rules.map(([r]) => r.length));
  return [
    schemaLine(dir, 'mapping.schema.json'),
    `# ${recipe.title} → shop products, written by \`shopsync init --erp ${recipe.name}\` from the recipe in ${recipe.doc}.`,
    `# The source's SELECT (shopsync.yaml) gives one row per article with the columns used here.`,
    `name: ${flow(name)}`,
    `description: ${flow(`${recipe.title} articles to shop products`)}`,
    'direction: erp-to-shop',
    'target: { resource: products, operation: upsert }',
    recipe.surrogate !== undefined
      ? `key: ${flow({ surrogate: recipe.surrogate, natural: recipe.key })}    # ${recipe.surrogate} is the ${recipe.title} id a renumbering keeps: a changed ${recipe.key} renames the shop product (docs/catalog.md "Renamed articles")`
      : `key: ${recipe.key}`,
    'shop_key: products_model',
    ...(stockLine ? [stockLine] : []),
    'fields:',
    ...rules.map(([r, why]) => `${r.padEnd(width)}  # ${why}`),
    '',
  ].join('\n');
}

/** What the config file says. */
export interface RecipeConfigText {
  readonly dir: string;
  readonly recipe: Recipe;
  readonly shop: Record<string, unknown>;
  readonly connection: Record<string, unknown>;
  readonly pipeline: Record<string, unknown>;
  readonly params: Readonly<Record<string, string | number>>;
  /** The orders pull (`--orders-pull`) and what it writes where. */
  readonly orders?: { readonly pipeline: Record<string, unknown>; readonly note: string };
  /** Whether stock is on hand or available, and how an order counts as booked (src/init/stock.ts). */
  readonly stockNote?: string;
}

/** `shopsync.yaml`, its header saying what the recipe decided and what a person still has to do. */
export function renderRecipeConfig(c: RecipeConfigText): string {
  const r = c.recipe;
  const name = String(c.pipeline.name);
  const wake =
    r.kind === 'postgres'
      ? [`# Wake-ups: trigger.notify needs the NOTIFY triggers on the tables the SELECT reads; install them once with`, `#   shopsync erp notify-setup ${name} --table ${r.notifyTables.join(',')} --apply`]
      : [`# Wake-ups: MariaDB has no NOTIFY, so trigger.poll asks every few seconds whether a row changed after the cursor`, `# (the tables that matter: ${r.notifyTables.join(', ')}).`];
  const header = [
    schemaLine(c.dir, 'shopsync.schema.json'),
    `# Written by \`shopsync init --erp ${r.name}\`: the ${r.title} recipe of ${r.doc}. Every setting is documented in`,
    '# shopsync.example.yaml and docs/init.md. Secrets are never written here.',
    `# Cursor: ${r.cursor} is the GREATEST of the change times of every row the SELECT reads (article, price, stock, EAN).`,
    '# A deleted child row (a stock row, a barcode, a price row deleted on its own) leaves no time behind: the',
    '# completeSchedule re-reads the whole catalog every night, sends what differs and deactivates (onMissing)',
    '# the articles that left the SELECT, behind the mass-deletion guard.',
    ...Object.entries(r.params).map(([k, p]) => `# params.${k} (${JSON.stringify(c.params[k])}): ${p.why}.`),
    ...wake,
    ...(c.orders ? wrapComment(`${c.orders.note}.`) : []),
    ...(c.stockNote ? wrapComment(`${c.stockNote}.`) : []),
  ];
  const body = YAML.stringify({ shop: c.shop, connections: { erp: c.connection }, pipelines: [c.pipeline, ...(c.orders ? [c.orders.pipeline] : [])], state: { path: 'state/shopsync.db' } }, { lineWidth: 0 });
  return `${header.join('\n')}\n${body}`;
}
