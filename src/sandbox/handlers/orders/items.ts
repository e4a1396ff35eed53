/**
 * Order items: resolution by products_id or products_model (convenience rule 2), attributes and
 * default attributes (rule 3), prices for the tax flag, and the recalc price (group price,
 * specials, category and customer discount; the cheaper effective price wins; rule 6).
 */
import type { SandboxContext } from '../../handler.js';
import { isNumeric, isRecord, phpFloat, phpInt, round4 } from '../../kit.js';
import { orderError, type OrderWarning } from './errors.js';

type Entry = Record<string, unknown>;

/** Countries inside the EU VAT area (delivery elsewhere is tax-free in recalc). */
const EU = new Set(['DE', 'AT', 'FR', 'NL', 'BE', 'IT', 'ES', 'PL', 'DK', 'SE', 'FI', 'IE', 'LU', 'PT', 'CZ']);

/** What pricing needs to know about the order. */
export interface PricingContext {
  readonly index: number;
  readonly taxFlag: 0 | 1 | 2;
  readonly languageCode: string;
  readonly groupId: number;
  readonly customer?: Entry;
  readonly deliveryIso?: string;
  readonly recalc: boolean;
  readonly applyDefaults: boolean;
  readonly warnings: OrderWarning[];
}

function taxRate(ctx: SandboxContext, product: Entry, pc: PricingContext): number {
  if (pc.taxFlag === 2) return 0;
  if (pc.recalc && pc.deliveryIso && !EU.has(pc.deliveryIso)) return 0;
  return ctx.reference().tax_classes.find((t) => t.tax_class_id === product.products_tax_class_id)?.rate ?? 0;
}

function categoryAncestors(ctx: SandboxContext, id: number): number[] {
  const out = [id];
  let current = ctx.store.get('categories', id);
  while (current && (current.parent_id as number) > 0 && !out.includes(current.parent_id as number)) {
    out.push(current.parent_id as number);
    current = ctx.store.get('categories', current.parent_id as number);
  }
  return out;
}

/** The best discount in percent for a product: customer discounts by category (with inheritance) and the group discount. */
function discountPercent(ctx: SandboxContext, product: Entry, pc: PricingContext, itemIndex: number): number {
  let best = ctx.reference().customer_groups.find((g) => g.customers_group_id === pc.groupId)?.discount ?? 0;
  const discounts = (pc.customer?.discounts as Entry[] | undefined) ?? [];
  if (discounts.length === 0) return best;
  for (const d of discounts) {
    const categoryId = d.category_id as number;
    if (categoryId !== 0 && !ctx.store.has('categories', categoryId)) {
      pc.warnings.push({ index: pc.index, code: 'CATEGORY_DISCOUNT_UNAVAILABLE', message: `products[${itemIndex}]: the discount's category ${categoryId} no longer exists; it was not applied`, field: `products[${itemIndex}]` });
      continue;
    }
    const assigned = (product.categories as number[] | undefined) ?? [];
    const applies = assigned.some((c) => {
      if (c === categoryId) return true;
      if (d.subcategories !== 1) return false;
      return categoryId === 0 || categoryAncestors(ctx, c).includes(categoryId);
    });
    if (applies) best = Math.max(best, d.value as number);
  }
  return best;
}

/** The net unit price the shop computes for a customer (recalc). */
export function shopNetPrice(ctx: SandboxContext, product: Entry, pc: PricingContext, itemIndex: number): number {
  const group = ((product.groups as Entry[] | undefined) ?? []).find((g) => g.customers_group_id === pc.groupId);
  const base = group && (group.customers_group_price as number) > 0 ? (group.customers_group_price as number) : phpFloat(product.products_price);
  const now = ctx.timestamp();
  const specials = ((product.specials as Entry[] | undefined) ?? []).filter(
    (s) => s.status === 1 && (s.customers_group_id === 0 || s.customers_group_id === pc.groupId) && (!s.specials_begin || (s.specials_begin as string) <= now) && (!s.specials_end || (s.specials_end as string) >= now),
  );
  const candidates = [base, ...specials.map((s) => s.specials_new_products_price as number)];
  // Category and customer discounts apply in recalc only (convenience rule 6).
  const pct = pc.recalc ? discountPercent(ctx, product, pc, itemIndex) : 0;
  if (pct > 0) candidates.push(base * (1 - pct / 100));
  return Math.min(...candidates.filter((c) => Number.isFinite(c) && c >= 0));
}

function optionValue(product: Entry, optionId: number, valueId: number): { option: Entry; value: Entry } | undefined {
  const options = (product.options as Record<string, Entry> | undefined) ?? {};
  const option = options[String(optionId)];
  const value = ((option?.values as Entry[] | undefined) ?? []).find((v) => v.options_values_id === valueId);
  return option && value ? { option, value } : groupedOptionValue(product, optionId, valueId);
}

/** An option value of an attribute group (option_groups[]): named there, without a surcharge of its own (the price is the combination's). */
function groupedOptionValue(product: Entry, optionId: number, valueId: number): { option: Entry; value: Entry } | undefined {
  for (const group of (product.option_groups as Entry[] | undefined) ?? []) {
    const option = ((group.options as Entry[] | undefined) ?? []).find((o) => o.id === optionId);
    if (!option) continue;
    for (const combination of (group.combinations as Entry[] | undefined) ?? []) {
      const value = ((combination.values as Entry[] | undefined) ?? []).find((v) => v.options_id === optionId && v.options_values_id === valueId);
      if (value) return { option: { options_id: optionId, languages: option.languages }, value: { options_values_id: valueId, languages: value.languages, price_prefix: '+', price: 0 } };
    }
  }
  return undefined;
}

function name(block: unknown, code: string): string {
  const langs = (block as Record<string, { name?: string }> | undefined) ?? {};
  return langs[code]?.name ?? Object.values(langs)[0]?.name ?? '';
}

/** Resolve the attributes of an item: sent ones, or the defaults when asked (display attributes included). */
function resolveAttributes(product: Entry | undefined, raw: Entry, pc: PricingContext, itemIndex: number): Entry[] {
  const sent = raw.attributes;
  if (sent !== undefined && !Array.isArray(sent)) orderError('INVALID_PAYLOAD', `products[${itemIndex}].attributes must be an array`, pc.index, { field: `products[${itemIndex}].attributes` });
  const out: Entry[] = [];
  const push = (option: Entry, value: Entry) =>
    out.push({
      option_id: option.options_id, value_id: value.options_values_id, products_options: name(option.languages, pc.languageCode), products_options_values: name(value.languages, pc.languageCode),
      price_prefix: value.price_prefix === '-' ? '-' : '+', options_values_price: phpFloat(value.price),
    });
  if (Array.isArray(sent) && sent.length > 0) {
    sent.forEach((a, i) => {
      const found = isRecord(a) && product ? optionValue(product, phpInt(a.option_id), phpInt(a.value_id)) : undefined;
      if (!found) {
        pc.warnings.push({ index: pc.index, code: 'ATTRIBUTE_NOT_FOUND', message: `products[${itemIndex}].attributes[${i}] names no option value of this product; skipped`, field: `products[${itemIndex}].attributes[${i}]` });
        return;
      }
      push(found.option, found.value);
    });
  } else if (pc.applyDefaults && product) {
    for (const option of Object.values((product.options as Record<string, Entry> | undefined) ?? {})) {
      const value = ((option.values as Entry[] | undefined) ?? []).find((v) => v.default === 1);
      if (value) push(option, value);
    }
  }
  return out;
}

/** Build one order item. */
export function resolveItem(ctx: SandboxContext, raw: unknown, itemIndex: number, pc: PricingContext): Entry {
  const field = `products[${itemIndex}]`;
  if (!isRecord(raw)) return orderError('INVALID_PAYLOAD', `${field} must be an object`, pc.index, { field });
  if (!isNumeric(raw.quantity) || phpFloat(raw.quantity) <= 0) orderError('INVALID_PAYLOAD', `${field}.quantity must be a number above 0`, pc.index, { field: `${field}.quantity` });
  for (const f of ['products_price', 'products_tax'] as const) {
    if (raw[f] !== undefined && raw[f] !== null && !isNumeric(raw[f])) orderError('INVALID_PAYLOAD', `${field}.${f} must be a decimal`, pc.index, { field: `${field}.${f}` });
  }
  const quantity = phpFloat(raw.quantity);
  let product: Entry | undefined;
  let productsId = raw.products_id === undefined || raw.products_id === null ? undefined : phpInt(raw.products_id);
  if (productsId !== undefined && productsId > 0) {
    product = ctx.store.get('products', productsId);
    if (!product) {
      if (!pc.recalc) orderError('PRODUCT_NOT_FOUND', `${field}: product ${productsId} does not exist`, pc.index, { field: `${field}.products_id`, products_id: productsId });
      pc.warnings.push({ index: pc.index, code: 'RECALC_PRODUCT_NOT_FOUND', message: `${field}: product ${productsId} does not exist; the item keeps the sent price`, field: `${field}.products_id` });
    }
  } else if (productsId === undefined && typeof raw.products_model === 'string' && raw.products_model !== '') {
    const ids = ctx.store.findIds('products', 'products_model', raw.products_model);
    product = ids.length > 0 ? ctx.store.get('products', ids[0]) : undefined;
    if (!product) pc.warnings.push({ index: pc.index, code: 'PRODUCT_MODEL_NOT_FOUND', message: `${field}: no product has the model ${raw.products_model}; the item is kept as a manual item`, field: `${field}.products_model` });
    productsId = product ? (product.products_id as number) : 0;
  } else if (productsId === undefined) {
    orderError('INVALID_PAYLOAD', `${field} needs products_id or products_model`, pc.index, { field });
  }
  const attributes = resolveAttributes(product, raw, pc, itemIndex);
  const languages = (product?.languages as Record<string, { products_name?: string }> | undefined) ?? {};
  const itemName = typeof raw.products_name === 'string' && raw.products_name ? raw.products_name : (languages[pc.languageCode]?.products_name ?? (typeof raw.products_model === 'string' ? raw.products_model : ''));
  const rate = product ? taxRate(ctx, product, pc) : pc.taxFlag === 2 ? 0 : phpFloat(raw.products_tax ?? 0);
  const surcharge = attributes.reduce((sum, a) => sum + (a.price_prefix === '-' ? -1 : 1) * (a.options_values_price as number), 0);
  let net: number | undefined;
  if (product && (pc.recalc || raw.products_price === undefined || raw.products_price === null)) net = shopNetPrice(ctx, product, pc, itemIndex) + surcharge;
  let price: number;
  let tax: number;
  if (net !== undefined) {
    price = pc.taxFlag === 1 ? net * (1 + rate / 100) : net;
    tax = rate;
  } else {
    price = phpFloat(raw.products_price ?? 0);
    tax = raw.products_tax === undefined || raw.products_tax === null ? rate : phpFloat(raw.products_tax);
    if (pc.taxFlag === 2) tax = 0;
  }
  return {
    products_id: productsId ?? 0,
    products_model: (product?.products_model as string | null | undefined) ?? (typeof raw.products_model === 'string' ? raw.products_model : ''),
    products_name: itemName,
    quantity,
    products_price: round4(price),
    products_tax: tax,
    final_price: round4(price * quantity),
    products_ek_price: product ? phpFloat(product.products_cost) : 0,
    products_ean: (product?.products_ean as string | undefined) ?? '',
    attributes,
  };
}
