/**
 * Customers in the sandbox, write rule by write rule.
 *
 * | rule | spec line |
 * |---|---|
 * | POST requires e-mail plus address; PUT by customers_id or unique customers_id_extern | shop-api.md:500 (rule 1) |
 * | customers_id_extern and customers_group_id writable; group validated | :501 (rule 2) |
 * | address by address_book_id; '' clears, null/absent keep; country/zone only when sent | :502 (rule 3) |
 * | unknown country: ADDRESS_COUNTRY; update keeps, new gets shop country | :503 (rule 4) |
 * | truncation by characters with ADDRESS_TRUNCATED | :504 (rule 5) |
 * | _set_default / _set_billing only | :505 (rule 6) |
 * | discounts replace, [] removes, absent keeps; comma decimals, cap 100, <= 0 skipped | :506 (rule 7), :217-226 |
 * | export omits password data, hash, iban, bic | :209 |
 * | export parameters | :496 |
 * | the e-mail filter compares case-insensitively | :496 |
 */
import { describe, expect, it } from 'vitest';
import { useShop } from './harness.js';

const shop = useShop();

const customer = async (id: number) => (await shop.all('customers', { customers_id: id }))[0];
const address = { entry_firstname: 'Lena', entry_lastname: 'Neu', entry_street_address: 'Weg 1', entry_postcode: '10115', entry_city: 'Berlin', entry_country: 'DE' };

describe('create and address', () => {
  it('requires an e-mail and an address on POST and refuses a used e-mail', async () => {
    const res = await shop.client.create('customers', [
      { customers_email_address: 'lena@example.com', customers_firstname: 'Lena', addresses: [address] },
      { customers_firstname: 'NoMail', addresses: [address] },
      { customers_email_address: 'noaddress@example.com' },
      { customers_email_address: 'ERIKA@example.com', addresses: [address] },
    ]);
    expect(res.outcomes.map((o) => o.ok)).toEqual([true, false, false, false]);
    expect(res.outcomes.slice(1).map((o) => o.error?.apiCode)).toEqual(['INVALID_PAYLOAD', 'INVALID_PAYLOAD', 'Already exists']);
    const lena = await customer(res.outcomes[0].data?.customers_id as number);
    expect(lena.addresses[0]).toMatchObject({ entry_country_id: 81, entry_country: 'DE', entry_zone_id: 0 });
    expect(lena.customers_default_address_id).toBe(lena.addresses[0].address_book_id);
    expect(lena.customers_group_id).toBe(2);
  });

  it('updates by customers_id_extern without e-mail, and refuses an ambiguous external number', async () => {
    const res = await shop.client.update('customers', [{ customers_id_extern: 'K-10003', customers_telephone: '+43 1 555' }, { customers_id_extern: 'K-DUP', customers_fax: 'x' }]);
    expect(res.outcomes[0].ok).toBe(true);
    expect((await customer(3)).customers_telephone).toBe('+43 1 555');
    expect(res.outcomes[1].error?.apiCode).toBe('INVALID_PAYLOAD');
    expect(res.outcomes[1].error?.details).toMatchObject({ customers_ids: [8, 9] });
  });

  it('writes customers_id_extern and validates customers_group_id', async () => {
    const res = await shop.client.update('customers', [{ customers_id: 7, customers_id_extern: 'K-70007', customers_group_id: 3 }, { customers_id: 7, customers_group_id: 42 }, { customers_id: 7, customers_id_extern: 'K-10001' }]);
    expect(res.outcomes.map((o) => o.error?.apiCode)).toEqual([undefined, 'INVALID_PAYLOAD', 'Already exists']);
    expect(await customer(7)).toMatchObject({ customers_id_extern: 'K-70007', customers_group_id: 3 });
  });

  it('changes only sent address fields: empty string clears, null and absent keep', async () => {
    const before = (await customer(1)).addresses[0];
    await shop.client.update('customers', [{ customers_id: 1, addresses: [{ address_book_id: before.address_book_id, entry_company: 'Firma', entry_street_address: null, entry_suburb: '' }] }]);
    const after = (await customer(1)).addresses[0];
    expect(after).toMatchObject({ entry_company: 'Firma', entry_street_address: before.entry_street_address, entry_city: before.entry_city, entry_suburb: '', entry_country_id: 81, entry_zone_id: before.entry_zone_id });
    await shop.client.update('customers', [{ customers_id: 1, addresses: [{ address_book_id: before.address_book_id, entry_company: '' }] }]);
    expect((await customer(1)).addresses[0].entry_company).toBe('');
  });

  it('changes country and zone only when sent; a new country without zone sets zone 0', async () => {
    const id = (await customer(2)).addresses[0].address_book_id;
    await shop.client.update('customers', [{ customers_id: 2, addresses: [{ address_book_id: id, entry_city: 'Augsburg' }] }]);
    expect((await customer(2)).addresses[0]).toMatchObject({ entry_country_id: 81, entry_zone_id: 79 });
    await shop.client.update('customers', [{ customers_id: 2, addresses: [{ address_book_id: id, entry_country: 'AT' }] }]);
    expect((await customer(2)).addresses[0]).toMatchObject({ entry_country_id: 14, entry_country: 'AT', entry_zone_id: 0 });
    await shop.client.update('customers', [{ customers_id: 2, addresses: [{ address_book_id: id, entry_country: 'AT', entry_zone_id: 96 }] }]);
    expect((await customer(2)).addresses[0].entry_zone_id).toBe(96);
  });

  it('warns ADDRESS_COUNTRY: an update keeps the country, a new address gets the shop country', async () => {
    const id = (await customer(3)).addresses[0].address_book_id;
    const res = await shop.client.update('customers', [{ customers_id: 3, addresses: [{ address_book_id: id, entry_country: 'XX' }, { ...address, entry_country: 'ZZ' }] }]);
    expect(res.outcomes[0].warnings.map((w) => w.code)).toEqual(['ADDRESS_COUNTRY', 'ADDRESS_COUNTRY']);
    const addresses = (await customer(3)).addresses;
    expect(addresses[0].entry_country).toBe('AT');
    expect(addresses[1]).toMatchObject({ entry_country: 'DE', entry_country_id: 81 });
  });

  it('truncates over-long values by characters with ADDRESS_TRUNCATED', async () => {
    const id = (await customer(4)).addresses[0].address_book_id;
    const long = 'Ä'.repeat(70);
    const res = await shop.client.update('customers', [{ customers_id: 4, addresses: [{ address_book_id: id, entry_street_address: long }] }]);
    expect(res.outcomes[0].warnings[0]).toMatchObject({ code: 'ADDRESS_TRUNCATED', field: 'addresses[0].entry_street_address' });
    expect((await customer(4)).addresses[0].entry_street_address).toBe('Ä'.repeat(64));
  });

  it('sets the default and billing address with an object holding only the flags', async () => {
    const c = await customer(4);
    const second = c.addresses[1];
    await shop.client.update('customers', [{ customers_id: 4, addresses: [{ address_book_id: second.address_book_id, _set_default: true }] }]);
    const after = await customer(4);
    expect(after.customers_default_address_id).toBe(second.address_book_id);
    expect(after.addresses[1]).toEqual(second);
    await shop.client.update('customers', [{ customers_id: 4, addresses: [{ address_book_id: c.addresses[0].address_book_id, _set_billing: true }] }]);
    expect((await customer(4)).customers_billing_address_id).toBe(c.addresses[0].address_book_id);
  });
});

describe('discounts and export', () => {
  it('replaces the discount set, with comma decimals, cap at 100 and values <= 0 skipped', async () => {
    await shop.client.update('customers', [{ customers_id: 5, discounts: [{ category_id: 2, value: '12,5' }, { category_id: 4, value: 150, qpb: 1 }, { category_id: 5, value: 0 }, { category_id: 6, value: -3 }] }]);
    const c = await customer(5);
    expect(c.discounts).toEqual([
      { category_id: 2, value: 12.5, subcategories: 1, qpb: 0, option: 0, special: 0 },
      { category_id: 4, value: 100, subcategories: 1, qpb: 1, option: 0, special: 0 },
    ]);
    expect(c.customers_discount_release).toBe(1);
    await shop.client.update('customers', [{ customers_id: 5, customers_fax: '1' }]);
    expect((await customer(5)).discounts).toHaveLength(2);
    await shop.client.update('customers', [{ customers_id: 5, discounts: [] }]);
    expect(await customer(5)).toMatchObject({ discounts: [], customers_discount_release: 0 });
  });

  it('omits password data, hash, iban and bic from the export', async () => {
    const c = await customer(1);
    for (const secret of ['customers_password', 'customers_password_request', 'customers_password_request_time', 'customers_hash', 'iban', 'bic']) expect(c).not.toHaveProperty(secret);
    expect(c.customers_email_address).toBe('erika@example.com');
  });

  it('finds a customer by e-mail whatever the case', async () => {
    expect((await shop.all('customers', { customers_email_address: 'MAX.Schneider@Example.COM' })).map((c) => c.customers_id)).toEqual([2]);
    expect((await shop.all('customers', { customers_email_address: 'max.schneider@example' })).map((c) => c.customers_id)).toEqual([]);
  });

  it('filters the export by e-mail and group and deletes with the customer prices', async () => {
    expect((await shop.all('customers', { customers_email_address: 'max.schneider@example.com' })).map((c) => c.customers_id)).toEqual([2]);
    expect((await shop.all('customers', { customers_group_id: 4 })).map((c) => c.customers_id)).toEqual([6]);
    await shop.client.update('products', [{ products_id: 1, customers_prices: [{ customers_id: 10, customers_price: 50 }] }]);
    expect((await shop.client.delete('customers', 10)).deleted).toEqual([10]);
    expect((await shop.client.exportOne('products', 1))?.customers_prices).toEqual([]);
  });
});
