/**
 * Order totals: the tax_flag table, the totals modes (auto, recalc, verbatim), ot_tax lines per
 * rate with rate-exact titles (rule 8), compute_shipping (rule 4) and the drift check.
 */
import type { SandboxContext } from '../../handler.js';
import { isNumeric, isRecord, phpFloat, round2 } from '../../kit.js';
import { orderError, type OrderWarning } from './errors.js';

type Entry = Record<string, unknown>;

/** Tolerance of the drift check. */
export const DRIFT_TOLERANCE = 0.01;

/** A totals line as the order stores it. */
export interface TotalLine {
  readonly class: string;
  readonly title: string;
  readonly value: number;
  readonly rate?: number;
}

/** Computed totals of an order. */
export interface Totals {
  readonly ot_subtotal: number;
  readonly ot_shipping: number;
  readonly ot_tax: number;
  readonly ot_total: number;
  readonly lines: readonly TotalLine[];
}

/** Read the sent totals object (decimal values; key `shipping` named, others taken by name). */
export function readTotals(value: unknown, index: number): Record<string, number> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) return orderError('INVALID_PAYLOAD', 'totals must be an object', index, { field: 'totals' });
  const out: Record<string, number> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!isNumeric(v)) orderError('INVALID_PAYLOAD', `totals.${key} must be a decimal`, index, { field: `totals.${key}` });
    out[key.replace(/^ot_/, '')] = phpFloat(v);
  }
  return out;
}

function rateLabel(rate: number): string {
  return `${Number.isInteger(rate) ? rate : String(rate)}%`;
}

function taxTitle(ctx: SandboxContext, rate: number, taxFlag: 0 | 1 | 2): string {
  const name = ctx.reference().tax_classes.find((t) => t.rate === rate)?.name ?? 'MwSt.';
  const base = `${name} ${rateLabel(rate)}`;
  if (!ctx.flag('MODULE_ORDER_TOTAL_PREFIX')) return base;
  return `${taxFlag === 1 ? 'inkl.' : 'zzgl.'} ${base}`;
}

/** Compute the totals from items and shipping according to the tax_flag table. */
export function computeTotals(ctx: SandboxContext, items: readonly Entry[], shipping: number, taxFlag: 0 | 1 | 2): Totals {
  let subtotal = 0;
  const taxByRate = new Map<number, number>();
  for (const item of items) {
    const line = (item.products_price as number) * (item.quantity as number);
    subtotal += line;
    const rate = item.products_tax as number;
    if (taxFlag === 2 || rate <= 0) continue;
    const tax = taxFlag === 0 ? (line * rate) / 100 : (line * rate) / (100 + rate);
    taxByRate.set(rate, (taxByRate.get(rate) ?? 0) + tax);
  }
  const taxLines = [...taxByRate.entries()].sort((a, b) => b[0] - a[0]).map(([rate, value]) => ({ class: 'ot_tax', title: taxTitle(ctx, rate, taxFlag), value: round2(value), rate }));
  const tax = round2(taxLines.reduce((s, l) => s + l.value, 0));
  const sub = round2(subtotal);
  const total = round2(taxFlag === 0 ? sub + shipping + tax : sub + shipping);
  return { ot_subtotal: sub, ot_shipping: round2(shipping), ot_tax: tax, ot_total: total, lines: buildLines(sub, shipping, taxLines, total) };
}

function buildLines(subtotal: number, shipping: number, taxLines: TotalLine[], total: number): TotalLine[] {
  return [
    { class: 'ot_subtotal', title: 'Zwischensumme', value: subtotal },
    { class: 'ot_shipping', title: 'Versandkosten', value: round2(shipping) },
    ...taxLines,
    { class: 'ot_total', title: 'Summe', value: total },
  ];
}

/** Apply sent totals over computed ones (auto with totals, verbatim): sent keys win; a missing total follows the tax_flag table. */
export function mergeSentTotals(computed: Totals, sent: Record<string, number>, taxFlag: 0 | 1 | 2, verbatim: boolean, index: number): Totals {
  if (verbatim && sent.total === undefined) orderError('INVALID_PAYLOAD', 'totals_mode verbatim needs totals.total', index, { field: 'totals.total' });
  const subtotal = round2(sent.subtotal ?? computed.ot_subtotal);
  const shipping = round2(sent.shipping ?? computed.ot_shipping);
  const tax = round2(sent.tax ?? computed.ot_tax);
  const total = round2(sent.total ?? (taxFlag === 0 ? subtotal + shipping + tax : subtotal + shipping));
  const computedTax = computed.lines.filter((l) => l.class === 'ot_tax');
  const taxLines = sent.tax !== undefined ? [{ class: 'ot_tax', title: computedTax[0]?.title ?? 'MwSt.', value: tax }] : computedTax;
  return { ot_subtotal: subtotal, ot_shipping: shipping, ot_tax: tax, ot_total: total, lines: buildLines(subtotal, shipping, taxLines, total) };
}

/** The cheapest shipping for a delivery country, or a warning. */
export function computeShipping(ctx: SandboxContext, deliveryIso: string | undefined, taxFlag: 0 | 1 | 2, index: number, warnings: OrderWarning[]): { cost: number; method?: string } {
  if (!deliveryIso) {
    warnings.push({ index, code: 'SHIPPING_AUTO_FAILED', message: 'compute_shipping: the delivery country is unknown; no shipping cost was added', field: 'delivery' });
    return { cost: 0 };
  }
  const methods = ctx.reference().shipping_methods.filter((m) => m.countries.includes(deliveryIso)).sort((a, b) => a.cost - b.cost);
  const best = methods[0];
  if (!best) {
    warnings.push({ index, code: 'SHIPPING_AUTO_EMPTY', message: `compute_shipping: no shipping method serves ${deliveryIso}; no shipping cost was added`, field: 'delivery' });
    return { cost: 0 };
  }
  const rate = ctx.reference().tax_classes.find((t) => t.tax_class_id === best.tax_class_id)?.rate ?? 0;
  return { cost: round2(taxFlag === 1 ? best.cost * (1 + rate / 100) : best.cost), method: best.name };
}

/** The drift check: a warning, or TOTAL_DRIFT when strict. */
export function checkDrift(expected: number | undefined, calculated: number, strict: boolean, index: number, warnings: OrderWarning[]): void {
  if (expected === undefined) return;
  const drift = Math.abs(expected - calculated);
  if (drift <= DRIFT_TOLERANCE + 1e-9) return;
  const details = { expected: expected.toFixed(2), calculated: calculated.toFixed(2), tolerance: DRIFT_TOLERANCE };
  if (strict) orderError('TOTAL_DRIFT', `expected_total ${details.expected} differs from the computed total ${details.calculated} by more than ${DRIFT_TOLERANCE}`, index, details);
  warnings.push({ index, code: 'TOTAL_DRIFT', message: `expected_total ${details.expected} differs from the computed total ${details.calculated}; the order was created with the computed total`, field: 'expected_total', details });
}
