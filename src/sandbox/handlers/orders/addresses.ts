/**
 * Billing and delivery blocks of orders (convenience rule 1 and 7): billing is completed from the
 * customer's billing address (sent fields win); delivery falls back to billing when it misses
 * required fields.
 */
import type { SandboxContext } from '../../handler.js';
import { isRecord } from '../../kit.js';
import type { Country } from '../../reference.js';
import { orderError } from './errors.js';

type Entry = Record<string, unknown>;

/** Fields of an order address block. */
export const ADDRESS_BLOCK_FIELDS = ['company', 'firstname', 'lastname', 'street_address', 'suburb', 'postcode', 'city', 'state', 'country', 'country_iso_code_2', 'telephone', 'email_address', 'additional_address'] as const;

const REQUIRED = ['firstname', 'lastname', 'street_address', 'postcode', 'city'] as const;

function filled(v: unknown): boolean {
  return typeof v === 'string' ? v.trim() !== '' : v !== undefined && v !== null;
}

/** Whether a block has every required field (a country by name or ISO code included). */
export function isComplete(block: Entry | undefined): boolean {
  if (!block) return false;
  return REQUIRED.every((f) => filled(block[f])) && (filled(block.country) || filled(block.country_iso_code_2));
}

/** Read a sent block: strings only, unknown keys dropped. */
export function readBlock(value: unknown, field: string, index: number): Entry | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) return orderError('INVALID_PAYLOAD', `${field} must be an object`, index, { field });
  const out: Entry = {};
  for (const f of ADDRESS_BLOCK_FIELDS) {
    const v = value[f];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string' && typeof v !== 'number') orderError('INVALID_PAYLOAD', `${field}.${f} must be a string`, index, { field: `${field}.${f}` });
    out[f] = String(v);
  }
  return out;
}

/** The customer's billing address (or default address) as an order block. */
export function customerBlock(ctx: SandboxContext, customer: Entry): Entry | undefined {
  const addresses = (customer.addresses as Entry[] | undefined) ?? [];
  const address = addresses.find((a) => a.address_book_id === customer.customers_billing_address_id) ?? addresses.find((a) => a.address_book_id === customer.customers_default_address_id) ?? addresses[0];
  if (!address) return undefined;
  const country = ctx.reference().countries.find((c) => c.countries_id === address.entry_country_id);
  const zone = country?.zones.find((z) => z.zone_id === address.entry_zone_id);
  return {
    company: address.entry_company ?? '',
    firstname: address.entry_firstname ?? '',
    lastname: address.entry_lastname ?? '',
    street_address: address.entry_street_address ?? '',
    suburb: address.entry_suburb ?? '',
    postcode: address.entry_postcode ?? '',
    city: address.entry_city ?? '',
    state: zone?.name ?? '',
    country: country?.name ?? '',
    country_iso_code_2: country?.iso_code_2 ?? '',
    telephone: customer.customers_telephone ?? '',
    email_address: customer.customers_email_address ?? '',
  };
}

/** The country of a block (ISO code first, then the name). */
export function blockCountry(ctx: SandboxContext, block: Entry | undefined): Country | undefined {
  if (!block) return undefined;
  const countries = ctx.reference().countries;
  const iso = typeof block.country_iso_code_2 === 'string' ? block.country_iso_code_2.trim().toUpperCase() : '';
  if (iso) return countries.find((c) => c.iso_code_2 === iso);
  const name = typeof block.country === 'string' ? block.country.trim().toLowerCase() : '';
  return countries.find((c) => c.name.toLowerCase() === name || c.iso_code_2.toLowerCase() === name);
}

/** Complete a block's country fields from what was found. */
function withCountry(ctx: SandboxContext, block: Entry): Entry {
  const country = blockCountry(ctx, block);
  if (!country) return block;
  return { ...block, country: filled(block.country) && block.country !== country.iso_code_2 ? block.country : country.name, country_iso_code_2: country.iso_code_2 };
}

/** Resolve billing and delivery for a new order. */
export function resolveAddresses(ctx: SandboxContext, customer: Entry | undefined, sentBilling: Entry | undefined, sentDelivery: Entry | undefined, index: number): { billing: Entry; delivery: Entry } {
  let billing = sentBilling ?? {};
  if (customer && !isComplete(billing)) billing = { ...(customerBlock(ctx, customer) ?? {}), ...billing };
  if (!isComplete(billing)) {
    const missing = [...REQUIRED.filter((f) => !filled(billing[f])), ...(filled(billing.country) || filled(billing.country_iso_code_2) ? [] : ['country'])];
    orderError('INVALID_PAYLOAD', `billing is incomplete (missing ${missing.join(', ')}) and no customer address can complete it`, index, { field: 'billing', missing });
  }
  billing = withCountry(ctx, billing);
  let delivery: Entry;
  if (sentDelivery && isComplete(sentDelivery)) delivery = withCountry(ctx, sentDelivery);
  else {
    // Delivery falls back to billing as a whole, so street and city never mix between two addresses.
    delivery = { ...billing };
    delete delivery.additional_address;
    if (sentDelivery?.additional_address !== undefined) delivery.additional_address = sentDelivery.additional_address;
  }
  return { billing, delivery };
}
