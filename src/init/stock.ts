/**
 * The stock question of `shopsync init` (issue 43, must-do 2): when the proposed mapping writes a
 * stock field, is the ERP's figure *on hand* (the shop's orders leave it only once the ERP books
 * them; then the mapping says `stock: reserved` and the pipeline gets `reservations:`, so a push
 * sends ERP − unbooked) or *already available* (the ERP subtracts open shop orders itself:
 * `stock: available`, nothing subtracted)? Without an answer (`--yes`, no terminal) init writes
 * `reserved`, the choice that never oversells, and says so in both files.
 */
import type { ResourceDef } from '../shop/registry/index.js';
import type { Answers } from './answers.js';
import type { InitHooks } from './index.js';
import type { StagingLayout } from './orders/layout.js';

/** The two answers, as the mapping's `stock:` writes them. */
export const STOCK_CHOICES = ['reserved', 'available'] as const;
export type StockChoice = (typeof STOCK_CHOICES)[number];

/** The proposed targets that write stock (empty: init asks nothing): the registry's stock fields, a list's by its name (`storages[].products_quantity`). */
export function stockTargets(resource: ResourceDef, targets: readonly string[]): string[] {
  const fields = resource.stock?.fields ?? [];
  return targets.filter((t) => fields.some((f) => (f.kind === 'scalar' ? t === f.field : t.split(/[.[]/)[0] === f.list && t.endsWith(f.quantity))));
}

/** What the choice writes into the files. */
export interface StockPlan {
  readonly choice: StockChoice;
  /** The person answered (prompt or `--stock`); false: init's default. */
  readonly asked: boolean;
  /** The pipeline's `reservations:` block (only with `reserved`). */
  readonly reservations?: Record<string, unknown>;
  /** The mapping's `stock:` line with its comment. */
  readonly mappingLine: string;
  /** The config's comment. */
  readonly note: string;
}

/** The booked rule: the staging table's `imported_at` when init writes the orders pull, else the stock row's change time. */
export function bookedRule(staging: StagingLayout | undefined): Record<string, unknown> {
  if (staging) return { query: `SELECT orders_id FROM ${staging.orders.name} WHERE imported_at IS NOT NULL AND orders_id IN (:orders)` };
  return { changedAfter: true };
}

/** Plan the files' stock choice. */
export function planStock(given: StockChoice | undefined, staging: StagingLayout | undefined, fields: readonly string[]): StockPlan {
  const choice = given ?? 'reserved';
  const asked = given !== undefined;
  const what = fields.join(', ');
  if (choice === 'available') {
    return {
      choice,
      asked,
      mappingLine: 'stock: available          # the ERP figure is already what the shop may sell (it subtracts open shop orders itself): sent as it is',
      note: `Stock: ${what} is written as the ERP's figure, which is already available (open shop orders subtracted by the ERP), so nothing is subtracted (mapping stock: available). If it is on hand instead, set stock: reserved in the mapping and add reservations: to this pipeline (docs/catalog.md "Stock and orders in flight")`,
    };
  }
  const booked = bookedRule(staging);
  const how = staging
    ? `an order counts as booked once the ERP has set imported_at on its row in ${staging.orders.name} (the staging table of the orders pull)`
    : "no orders pull is written, so an order counts as booked once the ERP's stock row changed (its cursor) after the order reached the ERP; if the ERP can say it better (an order status, a staging imported_at, a reservation table such as ERPNext's tabBin.reserved_qty), replace it with booked: { query: \"SELECT … WHERE orders_id IN (:orders)\" }";
  const default_ = asked ? '' : ' init did not ask (no terminal, or --yes) and chose reserved, which never sells what the shop has sold; if the ERP figure already subtracts open shop orders, answer --stock available (or set stock: available and remove reservations:).';
  return {
    choice,
    asked,
    reservations: { booked },
    mappingLine: `stock: reserved           # the ERP figure is on hand: shopsync subtracts shop orders the ERP has not booked (reservations: in shopsync.yaml)${asked ? '' : "; init's default, not asked: see shopsync.yaml"}`,
    note: `Stock: ${what} is the ERP's figure on hand, so each stock push sends it less the shop orders the ERP has not booked yet (mapping stock: reserved, pipeline reservations:); ${how}.${default_} See docs/catalog.md "Stock and orders in flight"`,
  };
}

/** The answer to the stock question: `--stock`, else the prompt, else `reserved` with a comment (src/init/stock.ts). */
export async function stockPlanOf(answers: Answers, hooks: InitHooks, resource: ResourceDef, fields: readonly { target: string; column: string }[], staging: StagingLayout | undefined): Promise<StockPlan | undefined> {
  const stock = stockTargets(resource, fields.map((f) => f.target));
  if (stock.length === 0) return undefined;
  const shown = fields.filter((f) => stock.includes(f.target)).map((f) => ({ target: f.target, column: f.column }));
  const given = answers.stock ?? (hooks.askStock ? await hooks.askStock({ fields: shown, ordersPull: staging !== undefined }) : undefined);
  return planStock(given, staging, shown.map((f) => f.target));
}
