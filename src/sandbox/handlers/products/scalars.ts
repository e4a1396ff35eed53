/**
 * Product scalar fields: how the shop reads each one (integers, decimals in PHP fashion, strings),
 * plus warranty_period and warranty_type with their special rules (spec: Products import rules 5, 6).
 */
import { distance } from 'fastest-levenshtein';
import { products } from '../../../shop/resources/products.js';
import { roundNumber } from '../../../util/decimal.js';
import { isNumeric, phpFloat, phpInt, RecordError, type RecordScope } from '../../kit.js';

const INT_FIELDS = [
  'manufacturers_id', 'products_status', 'contract', 'contract_use_current_price', 'products_inventory_management', 'service', 'sitemap',
  'non_cart', 'non_price', 'products_free_shipping', 'shipping_profile', 'products_unit_id', 'base_unit_id', 'products_sort_order', 'products_tax_class_id',
] as const;

const DECIMAL_FIELDS = [
  'products_price', 'products_weight', 'products_quantity', 'products_cost', 'products_min_qty', 'products_max_qty', 'products_qty_blocks',
  'products_base_price', 'products_reorder_level', 'products_safe_quantity',
] as const;

const STRING_FIELDS = ['products_model', 'products_ean', 'products_api', 'contract_option', 'products_date_available'] as const;

/** Defaults of a new product (the shop's column defaults). */
export function productDefaults(defaultWarranty: string): Record<string, unknown> {
  return {
    products_model: null,
    products_ean: '',
    products_price: 0,
    products_weight: 0,
    products_quantity: 0,
    products_cost: 0,
    manufacturers_id: 0,
    products_status: 1,
    contract: 0,
    contract_use_current_price: 0,
    contract_option: '',
    products_inventory_management: 1,
    products_min_qty: 1,
    products_max_qty: 0,
    products_qty_blocks: 1,
    products_base_price: 0,
    service: 0,
    sitemap: 1,
    non_cart: 0,
    non_price: 0,
    products_free_shipping: 0,
    shipping_profile: 0,
    products_unit_id: 0,
    base_unit_id: 0,
    products_sort_order: 0,
    products_tax_class_id: 1,
    warranty_period: /^\d+$/.test(defaultWarranty) ? Number(defaultWarranty) : 24,
    warranty_type: null,
    products_api: '',
    products_reorder_level: 0,
    products_safe_quantity: 0,
    products_date_available: null,
  };
}

const WARRANTY_TYPES = ['physical', 'digital'] as const;

/** Correct the spelling of a warranty_type (case, blanks, small typos); undefined when unrecognisable. */
export function correctWarrantyType(value: string): string | undefined {
  const v = value.trim().toLowerCase();
  for (const t of WARRANTY_TYPES) if (v === t) return t;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const t of WARRANTY_TYPES) {
    const d = distance(v, t);
    if (d < bestDistance) {
      bestDistance = d;
      best = t;
    }
  }
  return bestDistance <= 2 ? best : undefined;
}

/** A decimal column as the shop stores it: rounded half-up to the places the registry gives the field (as a MySQL DECIMAL column does). */
function decimalValue(field: string, value: unknown): number {
  const scale = products.decimalScales[field];
  const stored = (n: number) => (scale === undefined ? n : roundNumber(n, scale));
  if (typeof value === 'number' && Number.isFinite(value)) return stored(value);
  if (typeof value === 'string' && (value.trim() === '' || /^\s*[+-]?(\d|\.\d)/.test(value))) return stored(phpFloat(value));
  throw new RecordError('INVALID_PAYLOAD', `${field} must be a decimal, got ${JSON.stringify(value)}`, field);
}

function intValue(field: string, value: unknown): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (isNumeric(value)) return phpInt(value);
  throw new RecordError('INVALID_PAYLOAD', `${field} must be an integer, got ${JSON.stringify(value)}`, field);
}

/** Write the sent scalars into `target` (only the keys present; null writes the column default of its kind). */
export function applyScalars(target: Record<string, unknown>, input: Record<string, unknown>, scope: RecordScope): void {
  for (const field of INT_FIELDS) {
    if (!(field in input)) continue;
    const v = input[field];
    target[field] = v === null ? 0 : intValue(field, v);
  }
  for (const field of DECIMAL_FIELDS) {
    if (!(field in input)) continue;
    const v = input[field];
    target[field] = v === null ? 0 : decimalValue(field, v);
  }
  for (const field of STRING_FIELDS) {
    if (!(field in input)) continue;
    const v = input[field];
    if (v === null) target[field] = field === 'products_model' ? null : '';
    else if (typeof v === 'string' || typeof v === 'number') target[field] = String(v);
    else throw new RecordError('INVALID_PAYLOAD', `${field} must be a string, got ${JSON.stringify(v)}`, field);
  }
  if ('warranty_period' in input) {
    const v = input.warranty_period;
    // An empty string overrides the default of 24 months: the product then has no warranty period.
    if (v === '' || v === null) target.warranty_period = '';
    else if (isNumeric(v)) target.warranty_period = phpInt(v);
    else throw new RecordError('INVALID_PAYLOAD', `warranty_period must be a number of months or '', got ${JSON.stringify(v)}`, 'warranty_period');
  }
  if ('warranty_type' in input) {
    const v = input.warranty_type;
    if (v === '' || v === null) target.warranty_type = null;
    else {
      const corrected = typeof v === 'string' ? correctWarrantyType(v) : undefined;
      if (corrected) target.warranty_type = corrected;
      else scope.warn('WARRANTY_TYPE_INVALID', `warranty_type ${JSON.stringify(v)} is not one of physical, digital; the stored value is kept`, 'warranty_type');
    }
  }
}
