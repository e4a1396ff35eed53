/** Creating an order: the whole pipeline of the spec's order rules, for one record of the request. */
import type { SandboxContext } from '../../handler.js';
import { phpFloat, phpInt } from '../../kit.js';
import { blockCountry, readBlock, resolveAddresses } from './addresses.js';
import { orderError, type OrderWarning } from './errors.js';
import { appendHistory, applyTracking, checkScalars, readExternalReference, recordExternalReference, refuseTakenExternalReference, warnUnknownFields } from './fields.js';
import { resolveItem, type PricingContext } from './items.js';
import { bookStock, recordBookings } from './stock.js';
import { checkDrift, computeShipping, computeTotals, mergeSentTotals, readTotals, type Totals } from './totals.js';

type Entry = Record<string, unknown>;

/** Which customer group a (guest) order belongs to. */
export function orderGroup(ctx: SandboxContext, customer: Entry | undefined): number {
  return customer ? (customer.customers_group_id as number) : phpInt(ctx.settings().DEFAULT_CUSTOMERS_STATUS_ID_GUEST ?? '1');
}

/** tax_flag derived from the customer group when not sent. */
export function deriveTaxFlag(ctx: SandboxContext, groupId: number): 0 | 1 | 2 {
  const group = ctx.reference().customer_groups.find((g) => g.customers_group_id === groupId);
  if (group?.tax_exempt === 1) return 2;
  if (group?.show_tax === 1 && ctx.flag('DISPLAY_PRICE_WITH_TAX')) return 1;
  return 0;
}

/** language_id resolution: payload, customer, DEFAULT_LANGUAGE (by code), 1. */
export function resolveLanguage(ctx: SandboxContext, raw: Entry, customer: Entry | undefined): number {
  if (raw.language_id !== undefined && raw.language_id !== null) return phpInt(raw.language_id);
  if (customer && typeof customer.language_id === 'number' && customer.language_id > 0) return customer.language_id;
  const code = ctx.settings().DEFAULT_LANGUAGE;
  const byCode = ctx.reference().languages.find((l) => l.code === code);
  return byCode?.language_id ?? 1;
}

/** Send the order confirmation (customer plus SEND_EXTRA_ORDER_EMAILS_TO); true when sent. */
export function sendConfirmation(ctx: SandboxContext, order: Entry): boolean {
  const to = typeof order.customers_email_address === 'string' && order.customers_email_address ? [order.customers_email_address] : [];
  const extra = (ctx.settings().SEND_EXTRA_ORDER_EMAILS_TO ?? '').split(/[,;]/).map((s) => s.trim()).filter((s) => s.length > 0);
  if (to.length === 0 && extra.length === 0) return false;
  ctx.sendMail({ kind: 'order_confirmation', to, subject: `Order confirmation ${String(order.orders_id)}`, body: `Thank you for your order. Total: ${String(order.ot_total)} ${String(order.currency)}`, resource: 'orders', recordId: order.orders_id as number, data: { cc: extra, ot_total: order.ot_total, language_id: order.language_id } });
  return true;
}

/** The data[] entry of an order answer. */
export function orderAnswer(order: Entry, confirmationRequested: boolean): Entry {
  return {
    orders_id: order.orders_id, customers_id: order.customers_id, ot_subtotal: order.ot_subtotal, ot_tax: order.ot_tax, ot_total: order.ot_total,
    totals_mode: order.totals_mode, tax_flag: order.tax_flag, language_id: order.language_id,
    ...(confirmationRequested ? { confirmation_email_sent: order.confirmation_email_sent === true } : {}),
  };
}

/** Totals by mode for items and shipping. */
export function totalsFor(ctx: SandboxContext, mode: string, items: readonly Entry[], shipping: number, taxFlag: 0 | 1 | 2, sent: Record<string, number> | undefined, index: number): Totals {
  const computed = computeTotals(ctx, items, shipping, taxFlag);
  if (mode === 'recalc') return computed;
  if (mode === 'verbatim') return mergeSentTotals(computed, sent ?? {}, taxFlag, true, index);
  return sent && Object.keys(sent).some((k) => k !== 'shipping') ? mergeSentTotals(computed, sent, taxFlag, false, index) : computed;
}

/** Create one order (throws the order error envelope on failure). */
export function createOrder(ctx: SandboxContext, raw: Entry, index: number, warnings: OrderWarning[], fixedDate?: string): Entry {
  warnUnknownFields(raw, index, warnings);
  checkScalars(ctx, raw, index);
  if (!Array.isArray(raw.products) || raw.products.length === 0) orderError('INVALID_PAYLOAD', 'An order needs products[] with at least one item', index, { field: 'products' });
  if (raw.orders_id !== undefined && raw.orders_id !== null && ctx.store.has('orders', phpInt(raw.orders_id))) {
    orderError('INVALID_PAYLOAD', `Order ${String(raw.orders_id)} exists; send it with PUT to update it`, index, { field: 'orders_id', orders_id: phpInt(raw.orders_id) });
  }
  const ref = readExternalReference(raw, index);
  if (ref) refuseTakenExternalReference(ctx, ref, index);
  const customersId = raw.customers_id === undefined || raw.customers_id === null ? 0 : phpInt(raw.customers_id);
  const customer = customersId > 0 ? ctx.store.get('customers', customersId) : undefined;
  if (customersId > 0 && !customer) orderError('CUSTOMER_NOT_FOUND', `Customer ${customersId} does not exist`, index, { customers_id: customersId });
  const languageId = resolveLanguage(ctx, raw, customer);
  const languageCode = ctx.reference().languages.find((l) => l.language_id === languageId)?.code ?? ctx.reference().master_language;
  const groupId = orderGroup(ctx, customer);
  const taxFlag = raw.tax_flag === undefined || raw.tax_flag === null ? deriveTaxFlag(ctx, groupId) : (phpInt(raw.tax_flag) as 0 | 1 | 2);
  const mode = (raw.totals_mode as string | undefined) ?? 'auto';
  const { billing, delivery } = resolveAddresses(ctx, customer, readBlock(raw.billing, 'billing', index), readBlock(raw.delivery, 'delivery', index), index);
  const deliveryIso = blockCountry(ctx, delivery)?.iso_code_2;
  const pc: PricingContext = { index, taxFlag, languageCode, groupId, customer, deliveryIso, recalc: mode === 'recalc', applyDefaults: raw.apply_default_attributes === true, warnings };
  const items = (raw.products as unknown[]).map((item, i) => resolveItem(ctx, item, i, pc));
  const sentTotals = readTotals(raw.totals, index);
  let shipping = sentTotals?.shipping;
  let shippingMethod = typeof raw.shipping_method === 'string' ? raw.shipping_method : '';
  if (shipping === undefined && raw.compute_shipping === true) {
    const computed = computeShipping(ctx, deliveryIso, taxFlag, index, warnings);
    shipping = computed.cost;
    if (!shippingMethod && computed.method) shippingMethod = computed.method;
  }
  const totals = totalsFor(ctx, mode, items, shipping ?? 0, taxFlag, sentTotals, index);
  checkDrift(raw.expected_total === undefined || raw.expected_total === null ? undefined : phpFloat(raw.expected_total), totals.ot_total, raw.strict_totals === true, index, warnings);
  const booked = bookStock(ctx, items, raw.auto_stock as boolean | undefined, index);

  const id = raw.orders_id !== undefined && raw.orders_id !== null ? phpInt(raw.orders_id) : ctx.store.nextId('orders');
  recordBookings(ctx, id, booked);
  const now = fixedDate ?? ctx.timestamp();
  const status = raw.orders_status !== undefined && raw.orders_status !== null ? phpInt(raw.orders_status) : phpInt(ctx.settings().DEFAULT_ORDERS_STATUS_ID ?? '1');
  const history: Entry[] = [{ orders_status_history_id: 1, orders_status_id: status, comments: typeof raw.comments === 'string' ? raw.comments : '', customer_notified: raw.customer_notified === true ? 1 : 0, date_added: now }];
  appendHistory(ctx, history, raw.status_history, index);
  const order: Entry = {
    orders_id: id,
    customers_id: customersId,
    customers_group_id: groupId,
    customers_name: `${String(billing.firstname ?? '')} ${String(billing.lastname ?? '')}`.trim(),
    customers_email_address: (billing.email_address as string | undefined) || ((customer?.customers_email_address as string | undefined) ?? ''),
    customers_additional_address: billing.additional_address ?? '',
    billing_additional_address: billing.additional_address ?? '',
    delivery_additional_address: delivery.additional_address ?? '',
    language_id: languageId,
    payment_method: typeof raw.payment_method === 'string' ? raw.payment_method : '',
    shipping_method: shippingMethod,
    currency: typeof raw.currency === 'string' ? raw.currency : (ctx.settings().DEFAULT_CURRENCY ?? 'EUR'),
    tax_flag: taxFlag,
    totals_mode: mode,
    orders_status: history[history.length - 1].orders_status_id,
    comments: typeof raw.comments === 'string' ? raw.comments : '',
    date_purchased: typeof raw.date_purchased === 'string' ? raw.date_purchased : now,
    last_modified: now,
    billing,
    delivery,
    products: items,
    totals: totals.lines,
    ot_subtotal: totals.ot_subtotal,
    ot_shipping: totals.ot_shipping,
    ot_tax: totals.ot_tax,
    ot_total: totals.ot_total,
    external_reference: ref ?? null,
    tracking: applyTracking(ctx, [], raw.tracking, index),
    status_history: history,
    confirmation_email_sent: false,
  };
  if (raw.send_confirmation_email === true) order.confirmation_email_sent = sendConfirmation(ctx, order);
  ctx.store.put('orders', id, order);
  if (ref) recordExternalReference(ctx, ref, id);
  return orderAnswer(order, raw.send_confirmation_email === true);
}
