/**
 * `shopsync init --erp <name>`: the recipe's SELECT, key, cursor and mapping against a live ERP
 * database, checked table by table before anything is written, then the same closing check and
 * dry run as every init. The pipeline it writes is complete: NOTIFY or polling wake-ups, a
 * schedule as safety net, and a nightly complete read with `onMissing: deactivate`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { openSqlReader } from '../../erp/index.js';
import type { Answers } from '../answers.js';
import { initOrigin, planConnection, planShop } from '../connection.js';
import { INIT_CODES, InitError } from '../errors.js';
import type { InitHooks, InitIo, InitResult } from '../index.js';
import { stockPlanOf } from '../stock.js';
import { getResource } from '../../shop/registry/index.js';
import { checkShop } from '../shop.js';
import { shopLine, summariseDryRun } from '../summary.js';
import type { Proposal } from '../types.js';
import { ordersPullOf } from '../orders/plan.js';
import { verify } from '../verify.js';
import { secretFiles, writeFiles } from '../write.js';
import { checkRecipeTables, recipeParams, RECIPES } from './index.js';
import { recipeTargets, renderRecipeConfig, renderRecipeMapping } from './render.js';
import type { Recipe } from './types.js';

/** The proposal init reports for a recipe: every rule placed by the recipe. */
function proposalOf(recipe: Recipe, language: string): Proposal {
  return {
    fields: recipeTargets(recipe, language).map(([target, f]) => ({ target, column: f.from, ...(f.type ? { type: f.type } : {}), why: `${recipe.name} recipe` })),
    unplaced: [],
    key: recipe.surrogate ?? recipe.key,
    ...(recipe.surrogate !== undefined ? { natural: recipe.key } : {}),
    cursor: recipe.cursor,
    cursorNote: `${recipe.cursor}: the latest change of any row the ${recipe.title} SELECT reads`,
    shopKey: 'products_model',
    missingRequired: [],
  };
}

/** Run init from a recipe (answers.erp is set). */
export async function runRecipeInit(answers: Answers, io: InitIo, hooks: InitHooks = {}): Promise<InitResult> {
  const recipe = RECIPES[answers.erp!];
  const s = answers.source;
  if (s.kind !== recipe.kind) {
    throw new InitError(INIT_CODES.input, `${recipe.title} keeps its data in ${recipe.kind === 'postgres' ? 'PostgreSQL' : 'MariaDB/MySQL'}: give --db-url ${recipe.kind === 'postgres' ? 'postgres' : 'mysql'}://user@host/database (see ${recipe.doc})`);
  }
  if (answers.resource !== 'products') throw new InitError(INIT_CODES.input, `the ${recipe.title} recipe writes products; leave out --resource ${answers.resource}`);
  const params = recipeParams(recipe, answers.erpParams);
  const name = answers.name ?? 'products';
  const configDir = path.resolve(io.cwd, answers.dir);
  const configFile = path.join(configDir, 'shopsync.yaml');
  const mappingFile = path.join(configDir, 'mappings', `${name}.yaml`);
  const present = [configFile, mappingFile].filter((f) => existsSync(f));
  if (present.length > 0 && !answers.force) {
    throw new InitError(INIT_CODES.exists, `${present.join(', ')} already ${present.length === 1 ? 'exists' : 'exist'}; init never overwrites files: move ${present.length === 1 ? 'it' : 'them'} away, choose another folder (--dir), or pass --force to overwrite`);
  }

  const shop = planShop(answers.shop);
  const check = hooks.shopChecked ?? (await checkShop(shop.live, 'products', io.logger));
  if (!hooks.shopChecked) io.say(shopLine(shop.live.baseUrl, check));

  const connection = planConnection(s, io.cwd, configDir);
  const driver = await openSqlReader(connection.live, { logger: io.logger, baseDir: io.cwd, origin: initOrigin(s) });
  try {
    await checkRecipeTables(driver, recipe);
  } finally {
    await driver.close();
  }
  io.say(`${recipe.title} recipe: the tables ${Object.keys(recipe.tables).join(', ')} are there; key ${recipe.surrogate !== undefined ? `${recipe.surrogate} (the ${recipe.title} id; ${recipe.key} is matched in the shop by products_model, and a changed ${recipe.key} renames the shop product)` : `${recipe.key} (matched in the shop by products_model)`}, cursor ${recipe.cursor}`);

  const pipeline = {
    name,
    direction: 'push',
    resource: 'products',
    mapping: `mappings/${name}.yaml`,
    source: { connection: 'erp', query: recipe.query, cursor: recipe.cursor, key: recipe.surrogate ?? recipe.key, lookback: '5m', params },
    trigger: recipe.kind === 'postgres' ? { notify: true } : { poll: '5s' },
    schedule: '*/15 * * * *',
    completeSchedule: '30 2 * * *',
    options: { onMissing: 'deactivate' },
  };
  // The orders pull of a recipe is the same staging layout as everywhere: the ERP imports from there through its own API (docs/erp/<name>.md).
  const orders = answers.ordersPull ? await ordersPullOf(answers, configDir, hooks, io.say) : undefined;
  const stock = await stockPlanOf(answers, hooks, getResource('products'), proposalOf(recipe, answers.language).fields, orders?.layout);
  if (stock) io.say(`stock: ${stock.choice}${stock.asked ? '' : ' (not asked: the default; --stock available if the ERP figure already subtracts open shop orders)'}`);
  const withStock = stock?.reservations ? { ...pipeline, reservations: stock.reservations } : pipeline;
  const files = [
    { path: configFile, text: renderRecipeConfig({ dir: configDir, recipe, shop: shop.written, connection: connection.written, pipeline: withStock, params, ...(orders ? { orders: { pipeline: orders.pipeline, note: orders.note } } : {}), ...(stock ? { stockNote: stock.note } : {}) }) },
    { path: mappingFile, text: renderRecipeMapping(path.dirname(mappingFile), name, recipe, answers.language, stock?.mappingLine) },
    ...(orders ? [orders.mappingFile] : []),
    ...secretFiles(configDir, [...shop.secrets, ...connection.secrets]),
  ];
  if (orders) await orders.create(connection.live, { logger: io.logger, baseDir: io.cwd, origin: initOrigin(s) }, io.say);
  const written = await writeFiles(files, answers.force);
  for (const f of written) io.say(`wrote ${path.relative(io.cwd, f) || f}`);
  if (recipe.kind === 'postgres') io.say(`wake-ups: install the NOTIFY triggers once: shopsync erp notify-setup ${name} --table ${recipe.notifyTables.join(',')} --apply`);
  const proposal = proposalOf(recipe, answers.language);
  if (!answers.verify) return { configFile, mappingFile, written, proposal, ok: true };

  const verification = await verify(configFile, name, answers.dryRunRecords, io.env, io.logger, orders ? [orders.mappingFile.path] : []);
  for (const line of verification.checkLines) io.say(`mappings check: ${line}`);
  if (verification.dryRun) for (const line of summariseDryRun(verification.dryRun)) io.say(line);
  const failed = verification.dryRun ? verification.dryRun.counts.failed + verification.dryRun.counts.deadLettered : 0;
  return { configFile, mappingFile, written, proposal, verification, ok: verification.checkOk && verification.dryRun?.status !== 'failed' && failed === 0 };
}
