/** The mapping every recipe writes: its SELECT names the columns alike, so one set of rules serves them all. */
import type { RecipeField } from './types.js';

/** The rules from the recipe columns `code, name, list_price, quantity, ean, active` onto products. */
export function catalogFields(o: { status: { true: readonly (string | number | boolean)[]; false: readonly (string | number | boolean)[] } }): Record<string, RecipeField> {
  return {
    products_model: { from: 'code', trim: true, required: true, empty: 'keep', why: "the ERP's article number: the shop_key, a row without one is refused" },
    'languages.{language}.products_name': { from: 'name', trim: true, required: true, empty: 'keep', why: "the article's name in the ERP's main language" },
    products_price: { from: 'list_price', type: 'decimal', empty: 'keep', why: 'the list price; an article without one keeps the shop\'s price (an empty price is unknown, not 0)' },
    products_quantity: { from: 'quantity', type: 'decimal', empty: 'keep', why: "the warehouse's stock as the ERP computes it" },
    products_ean: { from: 'ean', trim: true, empty: 'clear', why: 'an EAN removed in the ERP is removed in the shop' },
    products_status: { from: 'active', type: 'flag', true: o.status.true, false: o.status.false, empty: 'keep', why: 'an article retired in the ERP goes offline in the shop at once' },
  };
}
