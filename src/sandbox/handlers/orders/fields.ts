/** Reading and checking the top-level fields of an order payload; tracking and status history. */
import type { SandboxContext } from '../../handler.js';
import { isNumeric, isRecord, phpFloat, phpInt, writableFields } from '../../kit.js';
import { orders } from '../../../shop/resources/orders.js';
import { orderError, type OrderWarning } from './errors.js';

type Entry = Record<string, unknown>;

const BOOLEAN_FIELDS = ['strict_totals', 'apply_default_attributes', 'compute_shipping', 'send_confirmation_email', 'auto_stock', 'customer_notified'] as const;
const STRING_FIELDS = ['payment_method', 'shipping_method', 'currency', 'comments'] as const;

/** The fields of the order interface (the registry's write schema). */
const KNOWN = writableFields(orders);

/** Warn UNKNOWN_FIELD for every field outside the order interface (rule 6). */
export function warnUnknownFields(raw: Entry, index: number, warnings: OrderWarning[]): void {
  for (const key of Object.keys(raw)) {
    if (!KNOWN.has(key)) warnings.push({ index, code: 'UNKNOWN_FIELD', message: `Field ${key} is not part of the order interface and was ignored`, field: key });
  }
}

/** Type checks of the scalar fields (INVALID_PAYLOAD naming the field). */
export function checkScalars(ctx: SandboxContext, raw: Entry, index: number): void {
  const bad = (field: string, what: string) => orderError('INVALID_PAYLOAD', `${field} must be ${what}, got ${JSON.stringify(raw[field])}`, index, { field });
  for (const f of BOOLEAN_FIELDS) if (raw[f] !== undefined && typeof raw[f] !== 'boolean') bad(f, 'a JSON boolean');
  for (const f of STRING_FIELDS) if (raw[f] !== undefined && raw[f] !== null && typeof raw[f] !== 'string') bad(f, 'a string');
  if (raw.customers_id !== undefined && raw.customers_id !== null && !(isNumeric(raw.customers_id) && Number.isInteger(phpFloat(raw.customers_id)))) bad('customers_id', 'an integer');
  if (raw.tax_flag !== undefined && raw.tax_flag !== null && ![0, 1, 2].includes(phpInt(raw.tax_flag) as number)) bad('tax_flag', '0, 1 or 2');
  if (raw.tax_flag !== undefined && raw.tax_flag !== null && !isNumeric(raw.tax_flag)) bad('tax_flag', '0, 1 or 2');
  if (raw.totals_mode !== undefined && !['auto', 'recalc', 'verbatim'].includes(raw.totals_mode as string)) bad('totals_mode', 'auto, recalc or verbatim');
  if (raw.expected_total !== undefined && raw.expected_total !== null && !isNumeric(raw.expected_total)) bad('expected_total', 'a decimal string');
  if (raw.language_id !== undefined && raw.language_id !== null) {
    if (!isNumeric(raw.language_id) || !ctx.reference().languages.some((l) => l.language_id === phpInt(raw.language_id))) bad('language_id', 'an existing language id');
  }
  if (raw.orders_status !== undefined && raw.orders_status !== null && !ctx.reference().order_statuses.some((s) => s.id === phpInt(raw.orders_status))) bad('orders_status', 'an existing order status id');
  if (raw.date_purchased !== undefined && (typeof raw.date_purchased !== 'string' || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(raw.date_purchased))) bad('date_purchased', "a datetime 'YYYY-MM-DD HH:MM:SS'");
  for (const f of ['tracking', 'status_history'] as const) if (raw[f] !== undefined && !Array.isArray(raw[f])) bad(f, 'an array');
}

/** The external reference of a payload, validated. */
export function readExternalReference(raw: Entry, index: number): { source: string; external_id: string; marketplace_id: number | null } | undefined {
  const ref = raw.external_reference;
  if (ref === undefined || ref === null) return undefined;
  if (!isRecord(ref)) return orderError('INVALID_PAYLOAD', 'external_reference must be an object {source, external_id}', index, { field: 'external_reference' });
  if (typeof ref.source !== 'string' || ref.source.trim() === '') orderError('INVALID_PAYLOAD', 'external_reference.source is required', index, { field: 'external_reference.source' });
  if ((typeof ref.external_id !== 'string' && typeof ref.external_id !== 'number') || String(ref.external_id).trim() === '') {
    orderError('INVALID_PAYLOAD', 'external_reference.external_id is required', index, { field: 'external_reference.external_id' });
  }
  if (ref.marketplace_id !== undefined && ref.marketplace_id !== null && !isNumeric(ref.marketplace_id)) orderError('INVALID_PAYLOAD', 'external_reference.marketplace_id must be an integer', index, { field: 'external_reference.marketplace_id' });
  return { source: ref.source as string, external_id: String(ref.external_id), marketplace_id: ref.marketplace_id === undefined || ref.marketplace_id === null ? null : phpInt(ref.marketplace_id) };
}

/** Refuse with DUPLICATE_EXTERNAL_REFERENCE when another order already holds this marketplace reference. */
export function refuseTakenExternalReference(ctx: SandboxContext, ref: { source: string; external_id: string }, index: number): void {
  const existing = ctx.sql<[string, string], { orders_id: number }>('SELECT orders_id FROM order_external_refs WHERE source = ? AND external_id = ?').get(ref.source, ref.external_id);
  if (existing) orderError('DUPLICATE_EXTERNAL_REFERENCE', `An order for ${ref.source} ${ref.external_id} exists already (orders_id ${existing.orders_id})`, index, { orders_id: existing.orders_id, source: ref.source, external_id: ref.external_id });
}

/** Record that order `id` holds this marketplace reference. */
export function recordExternalReference(ctx: SandboxContext, ref: { source: string; external_id: string }, id: number): void {
  ctx.sql('INSERT INTO order_external_refs (source, external_id, orders_id) VALUES (?, ?, ?)').run(ref.source, ref.external_id, id);
}

/** Upsert tracking entries by code; aliases `method` -> service_provider and `tracking_number` -> code. */
export function applyTracking(ctx: SandboxContext, stored: readonly Entry[], value: unknown, index: number): Entry[] {
  const out = stored.map((t) => ({ ...t }));
  if (!Array.isArray(value)) return out;
  value.forEach((raw, i) => {
    if (!isRecord(raw)) orderError('INVALID_PAYLOAD', `tracking[${i}] must be an object`, index, { field: `tracking[${i}]` });
    const code = raw.code ?? raw.tracking_number;
    if (typeof code !== 'string' || code.trim() === '') orderError('INVALID_PAYLOAD', `tracking[${i}] needs code (alias tracking_number)`, index, { field: `tracking[${i}].code` });
    if (raw.is_retoure !== undefined && typeof raw.is_retoure !== 'boolean') orderError('INVALID_PAYLOAD', `tracking[${i}].is_retoure must be a JSON boolean`, index, { field: `tracking[${i}].is_retoure` });
    const provider = raw.service_provider ?? raw.method;
    const existing = out.find((t) => t.code === code);
    const entry: Entry = existing ?? { tracking_id: out.reduce((m, t) => Math.max(m, t.tracking_id as number), 0) + 1, code, service_provider: '', link: '', label_link: '', external_id: '', is_retoure: false, date_added: ctx.timestamp() };
    if (provider !== undefined) entry.service_provider = String(provider);
    for (const f of ['link', 'label_link', 'external_id'] as const) if (raw[f] !== undefined && raw[f] !== null) entry[f] = String(raw[f]);
    if (raw.is_retoure !== undefined) entry.is_retoure = raw.is_retoure;
    if (!existing) out.push(entry);
  });
  return out;
}

/** Append status-history entries (append-only: every sent entry is appended). */
export function appendHistory(ctx: SandboxContext, history: Entry[], value: unknown, index: number): void {
  if (!Array.isArray(value)) return;
  value.forEach((raw, i) => {
    if (!isRecord(raw)) orderError('INVALID_PAYLOAD', `status_history[${i}] must be an object`, index, { field: `status_history[${i}]` });
    const status = phpInt(raw.orders_status_id);
    if (!ctx.reference().order_statuses.some((s) => s.id === status)) orderError('INVALID_PAYLOAD', `status_history[${i}].orders_status_id ${String(raw.orders_status_id)} is no existing order status`, index, { field: `status_history[${i}].orders_status_id` });
    const date = typeof raw.date_added === 'string' && /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(raw.date_added) ? raw.date_added : ctx.timestamp();
    history.push({ orders_status_history_id: history.length + 1, orders_status_id: status, comments: typeof raw.comments === 'string' ? raw.comments : '', customer_notified: phpInt(raw.customer_notified) ? 1 : 0, date_added: date });
  });
}
