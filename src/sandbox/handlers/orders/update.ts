/**
 * Updating an order (PUT with orders_id): status (append-only history), tracking, addresses,
 * methods, comments, totals by mode. Items are taken on create only.
 */
import type { SandboxContext } from '../../handler.js';
import { isRecord, phpFloat, phpInt } from '../../kit.js';
import { blockCountry, readBlock } from './addresses.js';
import { orderError, type OrderWarning } from './errors.js';
import { appendHistory, applyTracking, checkScalars, readExternalReference, recordExternalReference, refuseTakenExternalReference, warnUnknownFields } from './fields.js';
import { orderAnswer, sendConfirmation, totalsFor } from './create.js';
import { resolveItem, type PricingContext } from './items.js';
import { checkDrift, readTotals } from './totals.js';

type Entry = Record<string, unknown>;

/** Update one order (throws the order error envelope on failure). */
export function updateOrder(ctx: SandboxContext, raw: Entry, index: number, warnings: OrderWarning[]): Entry {
  warnUnknownFields(raw, index, warnings);
  checkScalars(ctx, raw, index);
  const id = phpInt(raw.orders_id);
  const stored = ctx.store.get('orders', id);
  if (!stored) return orderError('Not found', `Order ${String(raw.orders_id)} does not exist`, index, { orders_id: id });
  const order: Entry = { ...stored };
  if (raw.products !== undefined) warnings.push({ index, code: 'FIELD_IGNORED', message: 'products[] are taken on create only; an update does not change the items', field: 'products' });

  const ref = readExternalReference(raw, index);
  const storedRef = order.external_reference as { source: string; external_id: string } | null;
  if (ref && (!storedRef || storedRef.source !== ref.source || storedRef.external_id !== ref.external_id)) {
    if (storedRef) orderError('INVALID_PAYLOAD', 'external_reference of an order cannot change', index, { field: 'external_reference' });
    refuseTakenExternalReference(ctx, ref, index);
    recordExternalReference(ctx, ref, id);
    order.external_reference = ref;
  }
  for (const f of ['payment_method', 'shipping_method', 'currency'] as const) if (typeof raw[f] === 'string') order[f] = raw[f];
  for (const f of ['billing', 'delivery'] as const) {
    const block = readBlock(raw[f], f, index);
    if (block) {
      order[f] = { ...(order[f] as Entry), ...block };
      if (block.additional_address !== undefined) order[`${f}_additional_address`] = block.additional_address;
      if (f === 'billing' && block.additional_address !== undefined) order.customers_additional_address = block.additional_address;
    }
  }
  const history = [...(order.status_history as Entry[])];
  const previousStatus = order.orders_status as number;
  if (raw.orders_status !== undefined && raw.orders_status !== null && (phpInt(raw.orders_status) !== previousStatus || typeof raw.comments === 'string')) {
    history.push({ orders_status_history_id: history.length + 1, orders_status_id: phpInt(raw.orders_status), comments: typeof raw.comments === 'string' ? raw.comments : '', customer_notified: raw.customer_notified === true ? 1 : 0, date_added: ctx.timestamp() });
  } else if (typeof raw.comments === 'string') {
    history.push({ orders_status_history_id: history.length + 1, orders_status_id: previousStatus, comments: raw.comments, customer_notified: raw.customer_notified === true ? 1 : 0, date_added: ctx.timestamp() });
  }
  appendHistory(ctx, history, raw.status_history, index);
  order.status_history = history;
  order.orders_status = history[history.length - 1].orders_status_id;
  if (raw.tracking !== undefined) order.tracking = applyTracking(ctx, order.tracking as Entry[], raw.tracking, index);

  const mode = raw.totals_mode as string | undefined;
  const sentTotals = readTotals(raw.totals, index);
  if (mode !== undefined || sentTotals !== undefined || raw.tax_flag !== undefined) {
    const taxFlag = raw.tax_flag === undefined || raw.tax_flag === null ? (order.tax_flag as 0 | 1 | 2) : (phpInt(raw.tax_flag) as 0 | 1 | 2);
    const effectiveMode = mode ?? 'auto';
    let items = order.products as Entry[];
    if (effectiveMode === 'recalc') {
      const customer = (order.customers_id as number) > 0 ? ctx.store.get('customers', order.customers_id as number) : undefined;
      const languageCode = ctx.reference().languages.find((l) => l.language_id === order.language_id)?.code ?? ctx.reference().master_language;
      const pc: PricingContext = { index, taxFlag, languageCode, groupId: order.customers_group_id as number, customer, deliveryIso: blockCountry(ctx, order.delivery as Entry)?.iso_code_2, recalc: true, applyDefaults: false, warnings };
      // Manual items (products_id 0) are left alone.
      items = items.map((item, i) => ((item.products_id as number) > 0 ? { ...resolveItem(ctx, { products_id: item.products_id, quantity: item.quantity, products_name: item.products_name, attributes: (item.attributes as Entry[]).map((a) => ({ option_id: a.option_id, value_id: a.value_id })) }, i, pc) } : item));
      order.products = items;
    }
    const shipping = sentTotals?.shipping ?? (order.ot_shipping as number);
    const totals = totalsFor(ctx, effectiveMode, items, shipping, taxFlag, sentTotals, index);
    Object.assign(order, { tax_flag: taxFlag, totals_mode: effectiveMode, totals: totals.lines, ot_subtotal: totals.ot_subtotal, ot_shipping: totals.ot_shipping, ot_tax: totals.ot_tax, ot_total: totals.ot_total });
  }
  checkDrift(raw.expected_total === undefined || raw.expected_total === null ? undefined : phpFloat(raw.expected_total), order.ot_total as number, raw.strict_totals === true, index, warnings);
  order.last_modified = ctx.timestamp();
  if (raw.send_confirmation_email === true) order.confirmation_email_sent = sendConfirmation(ctx, order);
  else if (raw.customer_notified === true && order.orders_status !== previousStatus && typeof order.customers_email_address === 'string' && order.customers_email_address) {
    const status = ctx.reference().order_statuses.find((s) => s.id === order.orders_status)?.name ?? String(order.orders_status);
    ctx.sendMail({ kind: 'order_status', to: [order.customers_email_address], subject: `Order ${id}: ${status}`, body: typeof raw.comments === 'string' ? raw.comments : '', resource: 'orders', recordId: id, data: { orders_status: order.orders_status } });
  }
  ctx.store.put('orders', id, order);
  return orderAnswer(order, raw.send_confirmation_email === true);
}

/** Whether a payload addresses an existing order (PUT with orders_id). */
export function isUpdate(raw: unknown): boolean {
  return isRecord(raw) && raw.orders_id !== undefined && raw.orders_id !== null && raw.orders_id !== '';
}
