/** The customers handler (spec: Resources › Customers; Endpoints › Customers, write rules 1-7). */
import type { ResourceHandler, SandboxContext } from '../../handler.js';
import { deleteReply, fail, isRecord, phpDeleteId, phpFloat, phpInt, RecordError, type RecordScope, writeEach } from '../../kit.js';
import { exportFromStore } from '../../exports.js';
import type { StoredRecord } from '../../store.js';
import { applyAddresses } from './addresses.js';
import { seedCustomers } from './seed.js';

type Entry = Record<string, unknown>;

const TEXT_FIELDS = ['customers_firstname', 'customers_lastname', 'customers_telephone', 'customers_fax'] as const;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Never exported (spec: the export omits password data, the hash, iban and bic). */
const SECRET_FIELDS = ['customers_password', 'customers_password_request', 'customers_password_request_time', 'customers_hash', 'iban', 'bic'];

/** A stored customer as the export shows it. */
export function customerView(customer: StoredRecord): Entry {
  return Object.fromEntries(Object.entries(customer).filter(([k]) => !SECRET_FIELDS.includes(k)));
}

/** Read the discounts[] set: decimal comma allowed, capped at 100, <= 0 skipped. */
function readDiscounts(ctx: SandboxContext, value: unknown, scope: RecordScope): Entry[] {
  if (!Array.isArray(value)) throw new RecordError('INVALID_PAYLOAD', 'discounts must be an array', 'discounts');
  const byCategory = new Map<number, Entry>();
  value.forEach((raw, i) => {
    if (!isRecord(raw)) throw new RecordError('INVALID_PAYLOAD', `discounts[${i}] must be an object`, `discounts[${i}]`);
    if (raw.value === undefined || raw.value === null || raw.value === '') throw new RecordError('INVALID_PAYLOAD', `discounts[${i}].value is required`, `discounts[${i}].value`);
    const categoryId = raw.category_id === undefined ? 0 : phpInt(raw.category_id);
    if (categoryId !== 0 && !ctx.store.has('categories', categoryId)) {
      scope.warn('CATEGORY_NOT_FOUND', `discounts[${i}]: category ${categoryId} does not exist; entry skipped`, `discounts[${i}].category_id`);
      return;
    }
    const number = typeof raw.value === 'string' ? phpFloat(raw.value.replace(',', '.')) : phpFloat(raw.value);
    if (number <= 0) return;
    const flag = (v: unknown, dflt: 0 | 1) => (v === undefined || v === null ? dflt : phpInt(v) ? 1 : 0);
    byCategory.set(categoryId, {
      category_id: categoryId,
      value: Math.min(100, Math.round(number * 100) / 100),
      subcategories: flag(raw.subcategories, 1),
      qpb: flag(raw.qpb, 0),
      option: flag(raw.option, 0),
      special: flag(raw.special, 0),
    });
  });
  return [...byCategory.values()];
}

function emailOwner(ctx: SandboxContext, email: string): number | undefined {
  return ctx.store.findIds('customers', 'customers_email_address', email)[0];
}

function applyFields(ctx: SandboxContext, customer: Entry, input: Entry, creating: boolean, scope: RecordScope): void {
  const id = customer.customers_id as number;
  if ('customers_email_address' in input) {
    const email = input.customers_email_address;
    if (typeof email !== 'string' || !EMAIL.test(email.trim())) throw new RecordError('INVALID_PAYLOAD', `customers_email_address must be an e-mail address, got ${JSON.stringify(email)}`, 'customers_email_address');
    const owner = emailOwner(ctx, email.trim());
    if (owner !== undefined && owner !== id) throw new RecordError('Already exists', `A customer with the e-mail ${email} already exists (customers_id ${owner})`, 'customers_email_address', { customers_id: owner });
    customer.customers_email_address = email.trim();
  }
  if ('customers_id_extern' in input && input.customers_id_extern !== null) {
    const extern = String(input.customers_id_extern);
    const owners = extern === '' ? [] : ctx.store.findIds('customers', 'customers_id_extern', extern).filter((o) => o !== id);
    if (owners.length > 0) throw new RecordError('Already exists', `The external customer number ${extern} already belongs to customer ${owners[0]}`, 'customers_id_extern', { customers_id: owners[0] });
    customer.customers_id_extern = extern === '' ? null : extern;
  }
  for (const field of TEXT_FIELDS) {
    if (!(field in input) || input[field] === null) continue;
    if (typeof input[field] !== 'string' && typeof input[field] !== 'number') throw new RecordError('INVALID_PAYLOAD', `${field} must be a string`, field);
    customer[field] = String(input[field]);
  }
  if ('customers_group_id' in input && input.customers_group_id !== null) {
    const group = phpInt(input.customers_group_id);
    if (!ctx.reference().customer_groups.some((g) => g.customers_group_id === group)) {
      throw new RecordError('INVALID_PAYLOAD', `customers_group_id ${String(input.customers_group_id)} is no existing customer group`, 'customers_group_id');
    }
    customer.customers_group_id = group;
  }
  if ('language_id' in input && input.language_id !== null) {
    const language = phpInt(input.language_id);
    if (!ctx.reference().languages.some((l) => l.language_id === language)) throw new RecordError('INVALID_PAYLOAD', `language_id ${language} does not exist`, 'language_id');
    customer.language_id = language;
  }
  if ('addresses' in input || creating) applyAddresses(ctx, customer, input.addresses ?? [], creating, scope, () => ctx.store.nextSequence('address_book'));
  if ('discounts' in input) {
    customer.discounts = readDiscounts(ctx, input.discounts, scope);
    // The internal release flag follows the discount set.
    customer.customers_discount_release = (customer.discounts as Entry[]).length > 0 ? 1 : 0;
  }
}

/** Find the customer a PUT addresses: customers_id, else a unique customers_id_extern. */
function locate(ctx: SandboxContext, input: Entry): StoredRecord {
  if (input.customers_id !== undefined && input.customers_id !== null && input.customers_id !== '') {
    const found = ctx.store.get('customers', phpInt(input.customers_id));
    if (!found) throw new RecordError('Not found', `No customer with customers_id ${String(input.customers_id)}`, 'customers_id');
    return found;
  }
  if (input.customers_id_extern !== undefined && input.customers_id_extern !== null && input.customers_id_extern !== '') {
    const ids = ctx.store.findIds('customers', 'customers_id_extern', String(input.customers_id_extern));
    if (ids.length > 1) throw new RecordError('INVALID_PAYLOAD', `The external customer number ${String(input.customers_id_extern)} is not unique (customers ${ids.join(', ')}); address the customer by customers_id`, 'customers_id_extern', { customers_ids: ids });
    const found = ids.length === 1 ? ctx.store.get('customers', ids[0]) : undefined;
    if (!found) throw new RecordError('Not found', `No customer with customers_id_extern ${String(input.customers_id_extern)}`, 'customers_id_extern');
    return found;
  }
  throw new RecordError('MISSING_ID', 'A customer update needs customers_id or customers_id_extern', 'customers_id');
}

export const customersHandler: ResourceHandler = {
  indexes: ['customers_email_address', 'customers_id_extern'],
  seed(ctx, kind) {
    if (kind === 'demo') seedCustomers(ctx);
  },
  export: (ctx, req) => exportFromStore(ctx, req, { view: customerView }),
  create: (ctx, req) =>
    writeEach(ctx, req, 'create', (input, scope) => {
      if (typeof input.customers_email_address !== 'string' || input.customers_email_address.trim() === '') {
        throw new RecordError('INVALID_PAYLOAD', 'customers_email_address is required', 'customers_email_address');
      }
      if (!Array.isArray(input.addresses) || input.addresses.length === 0) throw new RecordError('INVALID_PAYLOAD', 'A new customer needs an address (addresses[])', 'addresses');
      if (input.customers_id !== undefined && input.customers_id !== null && ctx.store.has('customers', phpInt(input.customers_id))) {
        throw new RecordError('Already exists', `Customer ${String(input.customers_id)} already exists`, 'customers_id', { customers_id: phpInt(input.customers_id) });
      }
      const id = input.customers_id !== undefined && input.customers_id !== null && phpInt(input.customers_id) > 0 ? phpInt(input.customers_id) : ctx.store.nextId('customers');
      const now = ctx.timestamp();
      const customer: Entry = {
        customers_id: id, customers_id_extern: null, customers_email_address: '', customers_firstname: '', customers_lastname: '', customers_telephone: '', customers_fax: '',
        customers_group_id: phpInt(ctx.settings().DEFAULT_CUSTOMERS_STATUS_ID ?? '2'), language_id: null, customers_default_address_id: 0, customers_billing_address_id: 0,
        addresses: [], discounts: [], customers_discount_release: 0, customers_date_added: now, customers_last_modified: now,
      };
      applyFields(ctx, customer, input, true, scope);
      ctx.store.put('customers', id, customer);
      return { customers_id: id, customers_id_extern: customer.customers_id_extern };
    }),
  update: (ctx, req) =>
    writeEach(ctx, req, 'update', (input, scope) => {
      const stored = locate(ctx, input);
      const customer: Entry = { ...stored };
      const { customers_id: _id, ...rest } = input;
      // When addressed by the external number, that number is the key, not a change.
      applyFields(ctx, customer, rest, false, scope);
      customer.customers_last_modified = ctx.timestamp();
      ctx.store.put('customers', customer.customers_id as number, customer);
      return { customers_id: customer.customers_id, customers_id_extern: customer.customers_id_extern };
    }),
  delete(ctx, req) {
    const { id, raw } = phpDeleteId(req, 'customers_id');
    if (!ctx.store.has('customers', id)) fail(404, 'Not found', `No customer with customers_id ${String(raw)}`);
    for (const productId of ctx.store.idsWithListMember('products', 'customers_prices', 'customers_id', id)) {
      const product = ctx.store.get('products', productId);
      if (product) ctx.store.put('products', productId, { ...product, customers_prices: (product.customers_prices as Entry[]).filter((p) => p.customers_id !== id) });
    }
    ctx.store.delete('customers', id);
    return deleteReply(req.resource, [id]);
  },
};
