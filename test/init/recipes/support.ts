/**
 * The story every ERP recipe must tell against its fixture database: `shopsync init --erp <name>`
 * writes the config from the live tables, `sync` fills the shop with every article as the ERP
 * holds it, then a price change, a stock change, a cleared EAN, a deleted stock row (caught by the
 * complete read) and a changed article number: where the ERP keeps a stable id beside it (the
 * recipe's `surrogate`) a rename of the same shop product, else a new product and the old one
 * deactivated by the complete read.
 * The fixtures are tables written for these tests in each ERP's published layout, not the ERP.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parse } from 'yaml';
import { runCli, shopProducts, tempDir } from '../../cli/support.js';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { shopEnv } from '../../support/sandbox.js';
import { RECIPES } from '../../../src/init/recipes/index.js';
import type { RecipeName } from '../../../src/init/recipes/types.js';

/** What the shop must hold for an article. */
export interface Article {
  readonly name: string;
  readonly price: number;
  readonly quantity: number;
  readonly ean: string;
  readonly status: 0 | 1;
}

/** One ERP's fixture: how to reach it and what each step changes in it. */
export interface RecipeFixture {
  readonly erp: RecipeName;
  /** `--db-url` (and `--db-schema`…) of the fixture database. */
  readonly initFlags: readonly string[];
  /** Run SQL on the fixture (statements separated by `;\n`). Its rows are stamped an hour back, the steps now. */
  exec(sql: string): Promise<void>;
  /** What the shop must hold after the first sync, by article number. */
  readonly articles: Readonly<Record<string, Article>>;
  /** The SQL of each step, as the ERP's own screens would write it (change times included). */
  readonly steps: {
    /** The price of `priced` becomes `newPrice`. */
    readonly price: { readonly sql: string; readonly code: string; readonly newPrice: number };
    /** The stock of `code` becomes `quantity`. */
    readonly stock: { readonly sql: string; readonly code: string; readonly quantity: number };
    /** The EAN of `code` is removed. */
    readonly eanCleared: { readonly sql: string; readonly code: string };
    /** A child row holding the stock of `code` (an article no other step touches) is deleted, no change time moves: the stock is 0. */
    readonly childDeleted: { readonly sql: string; readonly code: string };
    /** The article number `from` becomes `to`. */
    readonly codeChanged: { readonly sql: string; readonly from: string; readonly to: string };
  };
}

/** Filler articles, so that one retired article stays under the mass-deletion guard's 5 %. */
export const FILLERS = Array.from({ length: 20 }, (_, i) => ({ code: `F-${String(i + 1).padStart(2, '0')}`, name: `Filler ${i + 1}`, price: 1 + i / 4, quantity: i }));

function held(shop: Map<string, Record<string, unknown>>, code: string): Article | undefined {
  const r = shop.get(code);
  if (!r) return undefined;
  const languages = r.languages as Record<string, { products_name?: string }> | undefined;
  return { name: String(languages?.de?.products_name), price: Number(r.products_price), quantity: Number(r.products_quantity), ean: String(r.products_ean ?? ''), status: Number(r.products_status) as 0 | 1 };
}

/** Run the whole story for one recipe against its fixture and the sandbox. */
export async function recipeStory(f: RecipeFixture, sandbox: SandboxHandle): Promise<void> {
  const dir = tempDir(`shopsync-recipe-${f.erp}-`);
  const env = shopEnv(sandbox);
  const init = await runCli(['init', '--yes', '--erp', f.erp, ...f.initFlags], { cwd: dir, env, timeoutMs: 120_000 });
  expect(init.code, init.stdout + init.stderr).toBe(0);
  expect(parse(readFileSync(join(dir, 'shopsync.yaml'), 'utf8')).pipelines[0]).toMatchObject({ source: { key: RECIPES[f.erp].surrogate ?? 'code', cursor: 'changed' }, options: { onMissing: 'deactivate' }, completeSchedule: expect.any(String) });

  const want: Record<string, Article> = { ...f.articles };
  for (const x of FILLERS) want[x.code] = { name: x.name, price: x.price, quantity: x.quantity, ean: '', status: 1 };
  const sync = async (...flags: string[]) => {
    const r = await runCli(['sync', 'products', '--json', ...flags], { cwd: dir, env, timeoutMs: 120_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'succeeded', counts: { failed: 0 } });
    const shop = await shopProducts(sandbox);
    const got = Object.fromEntries(Object.keys(want).map((code) => [code, held(shop, code)]));
    expect(got).toEqual(want);
  };
  await sync();

  const s = f.steps;
  await f.exec(s.price.sql);
  want[s.price.code] = { ...want[s.price.code]!, price: s.price.newPrice };
  await f.exec(s.stock.sql);
  want[s.stock.code] = { ...want[s.stock.code]!, quantity: s.stock.quantity };
  await f.exec(s.eanCleared.sql);
  want[s.eanCleared.code] = { ...want[s.eanCleared.code]!, ean: '' };
  await sync();

  // No change time moves when a child row goes: an incremental read does not see it (the fixture's
  // rows were written an hour ago, before the lookback), the complete read does.
  await f.exec(s.childDeleted.sql);
  await sync();
  want[s.childDeleted.code] = { ...want[s.childDeleted.code]!, quantity: 0 };
  await sync('--complete');

  const before = await shopProducts(sandbox);
  await f.exec(s.codeChanged.sql);
  want[s.codeChanged.to] = want[s.codeChanged.from]!;
  if (RECIPES[f.erp].surrogate !== undefined) {
    // The ERP's id stays: the same shop product under the new number, no second one (docs/catalog.md "Renamed articles").
    delete want[s.codeChanged.from];
    await sync();
    const after = await shopProducts(sandbox);
    expect(after.get(s.codeChanged.to)?.products_id).toBe(before.get(s.codeChanged.from)?.products_id);
    expect(after.has(s.codeChanged.from)).toBe(false);
    expect(after.size).toBe(before.size);
    await sync('--complete');
    expect((await shopProducts(sandbox)).size).toBe(before.size);
    return;
  }
  await sync();
  want[s.codeChanged.from] = { ...want[s.codeChanged.from]!, status: 0 };
  await sync('--complete');
}

/** init against a database without the recipe's tables stops before writing, naming what is missing. */
export async function missingTables(erp: RecipeName, initFlags: readonly string[], sandbox: SandboxHandle, missing: readonly string[]): Promise<void> {
  const dir = tempDir(`shopsync-recipe-${erp}-`);
  const init = await runCli(['init', '--yes', '--erp', erp, ...initFlags], { cwd: dir, env: shopEnv(sandbox), timeoutMs: 120_000 });
  expect(init.code).not.toBe(0);
  for (const m of missing) expect(init.stderr + init.stdout).toContain(m);
  expect(init.stderr + init.stdout).toContain(`docs/erp/${erp}.md`);
}
