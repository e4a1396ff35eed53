/**
 * Product price lists: groups[] (rule 7), customers_prices[] (rule 8) and specials[] (rule 3).
 */
import type { SandboxContext } from '../../handler.js';
import { isNumeric, isRecord, phpFloat, phpInt, RecordError, round4, type RecordScope } from '../../kit.js';

type Entry = Record<string, unknown>;

function list(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw new RecordError('INVALID_PAYLOAD', `${field} must be an array`, field);
  return value;
}

function taxRate(ctx: SandboxContext, product: Entry): number {
  const cls = ctx.reference().tax_classes.find((t) => t.tax_class_id === product.products_tax_class_id);
  return cls?.rate ?? 0;
}

/** groups[]: upsert per customers_group_id > 0; groups not listed stay; gross computed from the tax class. */
export function applyGroups(ctx: SandboxContext, product: Entry, value: unknown, scope: RecordScope): void {
  const stored = new Map<number, Entry>(((product.groups as Entry[] | undefined) ?? []).map((g) => [g.customers_group_id as number, g]));
  const known = new Set(ctx.reference().customer_groups.map((g) => g.customers_group_id));
  list(value, 'groups').forEach((raw, i) => {
    if (!isRecord(raw)) {
      scope.warn('GROUP_PRICE_INVALID', `groups[${i}] must be an object {customers_group_id, customers_group_price}, not an id list; entry skipped`, `groups[${i}]`);
      return;
    }
    const groupId = phpInt(raw.customers_group_id);
    if (groupId <= 0) {
      scope.warn('GROUP_PRICE_INVALID', `groups[${i}] needs customers_group_id > 0 (group 0 is set through products_price); entry skipped`, `groups[${i}].customers_group_id`);
      return;
    }
    if (!known.has(groupId)) {
      scope.warn('GROUP_NOT_FOUND', `customer group ${groupId} does not exist; entry skipped`, `groups[${i}].customers_group_id`);
      return;
    }
    const entry: Entry = { ...(stored.get(groupId) ?? { customers_group_id: groupId, customers_group_price: 0 }) };
    if ('customers_group_price' in raw) entry.customers_group_price = round4(phpFloat(raw.customers_group_price));
    for (let step = 1; step <= 8; step++) {
      for (const key of [`products_price${step}`, `products_price${step}_qty`]) if (key in raw) entry[key] = round4(phpFloat(raw[key]));
    }
    stored.set(groupId, entry);
  });
  const rate = taxRate(ctx, product);
  product.groups = [...stored.values()]
    .sort((a, b) => (a.customers_group_id as number) - (b.customers_group_id as number))
    .map((g) => ({ ...g, customers_group_price_gross: round4((g.customers_group_price as number) * (1 + rate / 100)) }));
}

const CUSTOMER_PRICE_COLUMNS = ['products_qty_blocks', 'products_min_qty', 'products_max_qty', ...Array.from({ length: 12 }, (_, i) => [`products_price${i + 1}`, `products_price${i + 1}_qty`]).flat()];

function resolveCustomer(ctx: SandboxContext, raw: Entry, i: number, scope: RecordScope): { id: number; extern: string | null } | undefined {
  if (raw.customers_id !== undefined && raw.customers_id !== null && raw.customers_id !== '') {
    const id = phpInt(raw.customers_id);
    const customer = id > 0 ? ctx.store.get('customers', id) : undefined;
    if (!customer) {
      scope.warn('CUSTOMER_NOT_FOUND', `customers_prices[${i}]: customer ${String(raw.customers_id)} does not exist; entry skipped`, `customers_prices[${i}].customers_id`);
      return undefined;
    }
    return { id, extern: (customer.customers_id_extern as string | null) ?? null };
  }
  if (typeof raw.customers_id_extern === 'string' || typeof raw.customers_id_extern === 'number') {
    const extern = String(raw.customers_id_extern);
    const ids = ctx.store.findIds('customers', 'customers_id_extern', extern);
    if (ids.length > 1) {
      scope.warn('CUSTOMER_EXTERN_AMBIGUOUS', `customers_prices[${i}]: external customer number ${extern} belongs to ${ids.length} customers; entry skipped`, `customers_prices[${i}].customers_id_extern`, { customers_ids: ids });
      return undefined;
    }
    if (ids.length === 0) {
      scope.warn('CUSTOMER_NOT_FOUND', `customers_prices[${i}]: no customer has the external number ${extern}; entry skipped`, `customers_prices[${i}].customers_id_extern`);
      return undefined;
    }
    return { id: ids[0], extern };
  }
  scope.warn('CUSTOMER_NOT_FOUND', `customers_prices[${i}] names no customer (customers_id or customers_id_extern); entry skipped`, `customers_prices[${i}]`);
  return undefined;
}

/** customers_prices[]: partial upsert per customer, `_action: 'delete'`, `customers_prices_replace: true`. */
export function applyCustomerPrices(ctx: SandboxContext, product: Entry, value: unknown, replace: boolean, scope: RecordScope): void {
  const stored = new Map<number, Entry>(replace ? [] : ((product.customers_prices as Entry[] | undefined) ?? []).map((p) => [p.customers_id as number, p]));
  list(value, 'customers_prices').forEach((raw, i) => {
    if (!isRecord(raw)) {
      scope.warn('CUSTOMER_PRICE_INVALID', `customers_prices[${i}] must be an object; entry skipped`, `customers_prices[${i}]`);
      return;
    }
    const customer = resolveCustomer(ctx, raw, i, scope);
    if (!customer) return;
    if (raw._action === 'delete') {
      stored.delete(customer.id);
      return;
    }
    const existing = stored.get(customer.id);
    const entry: Entry = existing
      ? { ...existing }
      : { customers_id: customer.id, customers_id_extern: customer.extern, customers_price: product.products_price, products_qty_blocks: 1, products_min_qty: 1 };
    entry.customers_id_extern = customer.extern;
    const priceKey = 'customers_price' in raw ? 'customers_price' : 'price' in raw ? 'price' : undefined;
    if (priceKey) {
      const price = phpFloat(raw[priceKey]);
      if (!isNumeric(raw[priceKey]) || price <= 0) {
        scope.warn('CUSTOMER_PRICE_INVALID', `customers_prices[${i}].${priceKey} ${JSON.stringify(raw[priceKey])} is not above 0; the price is ignored`, `customers_prices[${i}].${priceKey}`);
      } else entry.customers_price = round4(price);
    }
    for (const col of CUSTOMER_PRICE_COLUMNS) if (col in raw) entry[col] = round4(phpFloat(raw[col]));
    stored.set(customer.id, entry);
  });
  product.customers_prices = [...stored.values()].sort((a, b) => (a.customers_id as number) - (b.customers_id as number));
}

/** specials[]: upsert by specials_price_id, else by customers_group_id; `action: 'delete'` removes. */
export function applySpecials(product: Entry, value: unknown, scope: RecordScope): void {
  const stored = ((product.specials as Entry[] | undefined) ?? []).map((s) => ({ ...s }));
  let nextId = stored.reduce((m, s) => Math.max(m, s.specials_price_id as number), 0) + 1;
  list(value, 'specials').forEach((raw, i) => {
    if (!isRecord(raw)) {
      scope.warn('SPECIAL_INVALID', `specials[${i}] must be an object; entry skipped`, `specials[${i}]`);
      return;
    }
    const byId = raw.specials_price_id !== undefined ? phpInt(raw.specials_price_id) : undefined;
    const group = raw.customers_group_id !== undefined ? phpInt(raw.customers_group_id) : undefined;
    const pos = stored.findIndex((s) => (byId !== undefined ? s.specials_price_id === byId : group !== undefined && s.customers_group_id === group));
    if (raw.action === 'delete') {
      if (pos >= 0) stored.splice(pos, 1);
      else scope.warn('SPECIAL_NOT_FOUND', `specials[${i}]: no special to delete`, `specials[${i}]`);
      return;
    }
    if (byId !== undefined && pos < 0) {
      scope.warn('SPECIAL_NOT_FOUND', `specials[${i}]: specials_price_id ${byId} does not exist on this product; entry skipped`, `specials[${i}].specials_price_id`);
      return;
    }
    const entry: Entry = pos >= 0 ? stored[pos] : { specials_price_id: nextId++, customers_group_id: group ?? 0, status: 1, specials_begin: null, specials_end: null, specials_type: '', specials_price_name: {} };
    if (group !== undefined) entry.customers_group_id = group;
    if ('specials_new_products_price' in raw) {
      entry.specials_new_products_price = round4(phpFloat(raw.specials_new_products_price));
      entry.discount_percent = null;
    } else if ('discount_percent' in raw) {
      const pct = phpFloat(raw.discount_percent);
      entry.discount_percent = pct;
      entry.specials_new_products_price = round4(phpFloat(product.products_price) * (1 - pct / 100));
    } else if (pos < 0) {
      scope.warn('SPECIAL_INVALID', `specials[${i}] needs specials_new_products_price or discount_percent; entry skipped`, `specials[${i}]`);
      return;
    }
    for (const key of ['specials_begin', 'specials_end', 'specials_type'] as const) if (key in raw) entry[key] = raw[key] ?? null;
    if ('status' in raw) entry.status = phpInt(raw.status) ? 1 : 0;
    if (isRecord(raw.specials_price_name)) entry.specials_price_name = { ...(entry.specials_price_name as Entry), ...raw.specials_price_name };
    if (pos < 0) stored.push(entry);
  });
  product.specials = stored;
}
