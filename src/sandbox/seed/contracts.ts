/** Demo contracts: an active monthly subscription with domains, a paused yearly one and a cancelled one. */
import type { SandboxContext } from '../handler.js';
import { formatDateTime } from '../dates.js';

function daysAgo(ctx: SandboxContext, days: number): string {
  return formatDateTime(new Date(ctx.now().getTime() - days * 86_400_000));
}

/** Load the demo contracts (customers and products 1 and 2 come from the catalog seed). */
export function seedContracts(ctx: SandboxContext): void {
  const contract = (id: number, customer: number, product: number, status: number, interval: number, price: number, days: number, extra: Record<string, unknown>) => {
    const added = daysAgo(ctx, days);
    ctx.store.put('contracts', id, {
      contracts_id: id,
      customers_id: customer,
      products_id: product,
      contracts_status: status,
      contracts_interval: interval,
      contracts_price: price,
      contracts_date_added: added,
      contracts_date_start: added.slice(0, 10),
      contracts_date_end: null,
      current_period_date_begin: added.slice(0, 10),
      current_period_date_end: added.slice(0, 10),
      attributes: [],
      domains: [],
      status_history: [{ id: 1, contracts_status: 1, contracts_status_text: 'active', previous_status: null, comment: 'created', date_added: added }],
      orders: [],
      ...extra,
    });
  };
  contract(1, 1, 1, 1, 12, 29.9, 40, {
    attributes: [{ id: 1, key: 'plan', value: 'pro' }, { id: 2, key: 'seats', value: '5' }],
    domains: [{ id: 1, domain: 'shop.example.org', active: 1 }, { id: 2, domain: 'old-shop.example.org', active: 0 }],
    orders: [{ orders_id: 1, date_added: daysAgo(ctx, 40) }],
    current_period_date_begin: daysAgo(ctx, 10).slice(0, 10),
    current_period_date_end: daysAgo(ctx, -20).slice(0, 10),
  });
  contract(2, 2, 1, 2, 1, 299, 200, {
    status_history: [
      { id: 1, contracts_status: 1, contracts_status_text: 'active', previous_status: null, comment: 'created', date_added: daysAgo(ctx, 200) },
      { id: 2, contracts_status: 2, contracts_status_text: 'paused', previous_status: 1, comment: 'Customer asked for a pause', date_added: daysAgo(ctx, 30) },
    ],
  });
  contract(3, 1, 2, 3, 4, 59.5, 400, {
    contracts_date_end: daysAgo(ctx, 35).slice(0, 10),
    status_history: [
      { id: 1, contracts_status: 1, contracts_status_text: 'active', previous_status: null, comment: 'created', date_added: daysAgo(ctx, 400) },
      { id: 2, contracts_status: 3, contracts_status_text: 'cancelled', previous_status: 1, comment: 'Cancelled by customer', date_added: daysAgo(ctx, 35) },
    ],
  });
}
