/** Which fields identify a record when a create that may have landed is looked up in the shop. */
import { describe, expect, it } from 'vitest';
import { lookupKey, shopDeduplicates } from '../../src/pipeline/push/lookup.js';
import { getResource } from '../../src/shop/registry/index.js';

describe('lookup key of a possibly created record', () => {
  it('uses the manufacturer name, not the contact data', () => {
    expect(lookupKey(getResource('manufacturers'), {}, { manufacturers_name: 'ACME', manufacturers_gpsr_contact_city: 'Berlin' })).toEqual({ manufacturers_name: 'ACME' });
  });

  it('identifies a category by its names under its parent, a root category by parent 0', () => {
    const categories = getResource('categories');
    expect(lookupKey(categories, {}, { parent_id: 7, sort_order: 2, languages: { de: { name: 'Zubehör', heading: 'Z' }, en: { name: 'Accessories' } } })).toEqual({ parent_id: 7, languages: { de: { name: 'Zubehör' }, en: { name: 'Accessories' } } });
    expect(lookupKey(categories, {}, { languages: { de: { name: 'Werkzeug' } } })).toEqual({ parent_id: 0, languages: { de: { name: 'Werkzeug' } } });
  });

  it("prefers the mapping's shop key over the natural key", () => {
    expect(lookupKey(getResource('manufacturers'), { shopKey: 'manufacturers_image' }, { manufacturers_name: 'ACME', manufacturers_image: 'acme.png' })).toEqual({ manufacturers_image: 'acme.png' });
  });

  it('falls back to the non-list content of the payload for resources without any key', () => {
    expect(lookupKey(getResource('newsletters'), {}, { title: 'Sale', body: 'Hi', recipients: [1, 2] })).toEqual({ title: 'Sale', body: 'Hi' });
  });

  it('leaves records the shop de-duplicates by natural key to the shop', () => {
    expect(shopDeduplicates(getResource('products'), { products_model: 'X-1' })).toBe(true);
    expect(shopDeduplicates(getResource('customers'), { customers_id_extern: 'K-1' })).toBe(true);
    expect(shopDeduplicates(getResource('manufacturers'), { manufacturers_name: 'ACME' })).toBe(false);
  });
});
