/** Which fields identify a record when a create that may have landed is looked up in the shop. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lookupKey, shopDeduplicates } from '../../src/pipeline/push/lookup.js';
import type { ShopApiError } from '../../src/shop/errors.js';
import { allResources, getResource } from '../../src/shop/registry/index.js';
import { pushFixture, type PushFixture } from './support.js';

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

describe('natural keys from the registry', () => {
  it('leaves customers named by e-mail and orders named by external reference to the shop', () => {
    expect(shopDeduplicates(getResource('customers'), { customers_email_address: 'a@example.com' })).toBe(true);
    expect(shopDeduplicates(getResource('orders'), { external_reference: { source: 'erp', external_id: 'A-1' } })).toBe(true);
    expect(shopDeduplicates(getResource('newsletter_subscribers'), { subscribe_email: 'a@example.com' })).toBe(true);
    expect(shopDeduplicates(getResource('customers'), { customers_firstname: 'Erika' })).toBe(false);
  });

  it('looks news and FAQ categories up by their names under their parent', () => {
    expect(lookupKey(getResource('faqdesk_categories'), {}, { parent_id: 3, languages: { de: { categories_name: 'Versand', categories_description: 'x' } } })).toEqual({ parent_id: 3, languages: { de: { categories_name: 'Versand' } } });
    expect(lookupKey(getResource('newsdesk_categories'), {}, { languages: { en: { categories_name: 'News' } } })).toEqual({ parent_id: 0, languages: { en: { categories_name: 'News' } } });
  });

  it('names only fields the resource can write, and covers every update alternative with an enforced key', () => {
    for (const resource of allResources) {
      const write = resource.schemas.write as unknown as { shape?: Record<string, unknown> };
      for (const key of resource.naturalKeys ?? []) {
        for (const field of [...key.fields, ...(key.scope ?? [])]) {
          const top = field.split('.')[0]!;
          expect(write.shape && top in write.shape, `${resource.name}: natural key field ${field} is not in the write schema`).toBe(true);
        }
      }
      for (const alternative of resource.key.alternatives) {
        expect(resource.naturalKeys?.some((k) => k.enforced && k.fields.includes(alternative)), `${resource.name}: ${alternative}`).toBe(true);
      }
    }
  });
});

/** A valid create payload per resource with a natural key, and a second record with the same key. */
const SAMPLES: Record<string, () => Record<string, unknown>> = {
  products: () => ({ products_model: 'NK-1', products_price: 1 }),
  customers: () => ({ customers_email_address: 'nk@example.com', customers_id_extern: 'NK-1', addresses: [{ entry_firstname: 'N', entry_lastname: 'K', entry_street_address: 'Weg 1', entry_postcode: '10115', entry_city: 'Berlin', entry_country: 'DE' }] }),
  newsletter_subscribers: () => ({ subscribe_email: 'nk@example.com' }),
  manufacturers: () => ({ manufacturers_name: 'NK' }),
  suppliers: () => ({ suppliers_name: 'NK' }),
  categories: () => ({ languages: { de: { name: 'NK' } } }),
  newsdesk_categories: () => ({ languages: { de: { categories_name: 'NK' } } }),
  faqdesk_categories: () => ({ languages: { de: { categories_name: 'NK' } } }),
  orders: () => ({
    customers_id: 0,
    auto_stock: false,
    billing: { firstname: 'A', lastname: 'B', street_address: 'S 1', postcode: '1', city: 'C', country_iso_code_2: 'DE' },
    products: [{ products_model: 'X-1', quantity: 1, products_price: 1 }],
    external_reference: { source: 'erp', external_id: 'NK-1' },
  }),
};

describe('natural keys against the sandbox', () => {
  let f: PushFixture;
  beforeEach(async () => {
    f = await pushFixture();
  });
  afterEach(async () => {
    await f.close();
  });

  it('are enforced by the shop exactly where the registry says so', async () => {
    const keyed = allResources.filter((r) => (r.naturalKeys ?? []).length > 0);
    expect(keyed.map((r) => r.name).sort()).toEqual(Object.keys(SAMPLES).sort());
    for (const resource of keyed) {
      const sample = SAMPLES[resource.name]!;
      const first = await f.shop.create(resource.name as never, [sample()]);
      expect(first.outcomes[0]!.ok, `${resource.name}: ${JSON.stringify(first.outcomes[0]!.error)}`).toBe(true);
      const enforced = resource.naturalKeys!.some((k) => k.enforced);
      const second = await f.shop.create(resource.name as never, [sample()]).catch((err: unknown) => ({ outcomes: [{ ok: false, error: err as ShopApiError }] }));
      const outcome = second.outcomes[0]!;
      if (enforced) {
        expect(outcome.ok, `${resource.name}: a duplicate create must be refused`).toBe(false);
        expect(['ALREADY_EXISTS', 'DUPLICATE_EXTERNAL_REFERENCE']).toContain((outcome.error as ShopApiError).code);
      } else {
        expect(outcome.ok, `${resource.name}: the shop stores a second record with the same key (${JSON.stringify(outcome.error)})`).toBe(true);
      }
    }
  });
});
