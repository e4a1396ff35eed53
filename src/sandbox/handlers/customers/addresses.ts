/**
 * Customer addresses (spec: Customers write rules 3-6): update by address_book_id, empty string
 * clears, null and absent keep, country and zone rules, ADDRESS_COUNTRY, ADDRESS_TRUNCATED,
 * `_set_default` / `_set_billing`.
 */
import type { SandboxContext } from '../../handler.js';
import { isRecord, phpInt, RecordError, type RecordScope } from '../../kit.js';
import type { Country } from '../../reference.js';

type Entry = Record<string, unknown>;

/** Text columns of the address book and their lengths (characters). */
export const ADDRESS_COLUMNS: Readonly<Record<string, number>> = {
  entry_company: 64,
  entry_firstname: 64,
  entry_lastname: 64,
  entry_street_address: 64,
  entry_suburb: 32,
  entry_postcode: 10,
  entry_city: 64,
};

/** The shop country (setting STORE_COUNTRY: id or ISO code). */
export function shopCountry(ctx: SandboxContext): Country {
  const setting = (ctx.settings().STORE_COUNTRY ?? '81').trim();
  const countries = ctx.reference().countries;
  return countries.find((c) => String(c.countries_id) === setting || c.iso_code_2 === setting.toUpperCase()) ?? countries[0];
}

/** Find a country by ISO code or id. */
export function findCountry(ctx: SandboxContext, iso: unknown, id: unknown): Country | undefined {
  const countries = ctx.reference().countries;
  if (typeof iso === 'string' && iso.trim() !== '') return countries.find((c) => c.iso_code_2 === iso.trim().toUpperCase());
  if (id !== undefined && id !== null && id !== '') return countries.find((c) => c.countries_id === phpInt(id));
  return undefined;
}

function writeText(entry: Entry, raw: Entry, index: number, scope: RecordScope): void {
  for (const [column, max] of Object.entries(ADDRESS_COLUMNS)) {
    if (!(column in raw)) continue;
    const value = raw[column];
    if (value === null) continue; // null keeps the stored value
    if (typeof value !== 'string' && typeof value !== 'number') throw new RecordError('INVALID_PAYLOAD', `addresses[${index}].${column} must be a string`, `addresses[${index}].${column}`);
    const chars = [...String(value)];
    if (chars.length > max) {
      scope.warn('ADDRESS_TRUNCATED', `addresses[${index}].${column} is longer than ${max} characters and was truncated`, `addresses[${index}].${column}`, { max, length: chars.length });
    }
    entry[column] = chars.slice(0, max).join('');
  }
}

function writeCountry(ctx: SandboxContext, entry: Entry, raw: Entry, index: number, creating: boolean, scope: RecordScope): void {
  const countrySent = (raw.entry_country !== undefined && raw.entry_country !== null) || (raw.entry_country_id !== undefined && raw.entry_country_id !== null);
  if (countrySent) {
    const country = findCountry(ctx, raw.entry_country, raw.entry_country_id);
    if (!country) {
      const sent = raw.entry_country ?? raw.entry_country_id;
      scope.warn('ADDRESS_COUNTRY', `addresses[${index}]: unknown country ${JSON.stringify(sent)}; ${creating ? 'the shop country is used' : 'the stored country is kept'}`, `addresses[${index}].entry_country`);
      if (creating) setCountry(entry, shopCountry(ctx), 0);
    } else if (country.countries_id !== entry.entry_country_id) {
      // A new country without entry_zone_id sets the zone to 0.
      setCountry(entry, country, 0);
    }
  } else if (creating) {
    setCountry(entry, shopCountry(ctx), 0);
  }
  if (raw.entry_zone_id !== undefined && raw.entry_zone_id !== null) entry.entry_zone_id = phpInt(raw.entry_zone_id);
}

function setCountry(entry: Entry, country: Country, zone: number): void {
  entry.entry_country_id = country.countries_id;
  entry.entry_country = country.iso_code_2;
  entry.entry_zone_id = zone;
}

/** Apply addresses[] to a customer (mutates `customer.addresses` and the default/billing ids). */
export function applyAddresses(ctx: SandboxContext, customer: Entry, value: unknown, creating: boolean, scope: RecordScope, nextAddressId: () => number): void {
  if (!Array.isArray(value)) throw new RecordError('INVALID_PAYLOAD', 'addresses must be an array', 'addresses');
  const addresses = ((customer.addresses as Entry[] | undefined) ?? []).map((a) => ({ ...a }));
  value.forEach((raw, index) => {
    if (!isRecord(raw)) throw new RecordError('INVALID_PAYLOAD', `addresses[${index}] must be an object`, `addresses[${index}]`);
    let entry: Entry | undefined;
    let isNew = false;
    if (raw.address_book_id !== undefined && raw.address_book_id !== null) {
      const id = phpInt(raw.address_book_id);
      entry = addresses.find((a) => a.address_book_id === id);
      if (!entry) throw new RecordError('Not found', `addresses[${index}]: address_book_id ${id} does not belong to this customer`, `addresses[${index}].address_book_id`);
    } else {
      const onlyFlags = Object.keys(raw).every((k) => k === '_set_default' || k === '_set_billing');
      if (onlyFlags) {
        scope.warn('ADDRESS_NOT_FOUND', `addresses[${index}] holds only flags but no address_book_id; ignored`, `addresses[${index}]`);
        return;
      }
      isNew = true;
      entry = { address_book_id: nextAddressId(), entry_company: '', entry_firstname: '', entry_lastname: '', entry_street_address: '', entry_suburb: '', entry_postcode: '', entry_city: '', entry_country_id: 0, entry_country: '', entry_zone_id: 0 };
      addresses.push(entry);
    }
    writeText(entry, raw, index, scope);
    writeCountry(ctx, entry, raw, index, isNew, scope);
    if (raw._set_default === true) customer.customers_default_address_id = entry.address_book_id;
    if (raw._set_billing === true) customer.customers_billing_address_id = entry.address_book_id;
  });
  customer.addresses = addresses;
  const first = addresses[0]?.address_book_id;
  if (first !== undefined) {
    if (!addresses.some((a) => a.address_book_id === customer.customers_default_address_id)) customer.customers_default_address_id = first;
    if (!addresses.some((a) => a.address_book_id === customer.customers_billing_address_id)) customer.customers_billing_address_id = customer.customers_default_address_id;
  }
  if (creating && addresses.length === 0) throw new RecordError('INVALID_PAYLOAD', 'A new customer needs an address (addresses[])', 'addresses');
}
