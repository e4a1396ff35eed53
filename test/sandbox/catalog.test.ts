/**
 * Categories, manufacturers and suppliers in the sandbox.
 *
 * | rule | spec line |
 * |---|---|
 * | category fields; import sample keys status, categories_name, categories_heading | shop-api.md:44-54 |
 * | category export parameters categories_id, parent_id | :376 |
 * | category delete cascades to subcategories and product assignments | :376 |
 * | productlist shape and parameters | :54, :378 |
 * | manufacturers with product-safety contact fields | :311, :621 |
 * | supplier fields; delete removes product assignments | :213, :517 |
 */
import { describe, expect, it } from 'vitest';
import { useShop } from './harness.js';

const shop = useShop();

describe('categories', () => {
  it('takes the import sample keys status, categories_name and categories_heading', async () => {
    const res = await shop.client.create('categories', [{ parent_id: 4, status: 0, sort_order: 5, languages: { de: { categories_name: 'Balkon', categories_heading: 'Alles für den Balkon' }, en: { name: 'Balcony' } } }]);
    const id = res.outcomes[0].data?.categories_id as number;
    const [category] = await shop.all('categories', { categories_id: id });
    expect(category).toMatchObject({ parent_id: 4, categories_status: 0, sort_order: 5, languages: { de: { name: 'Balkon', heading: 'Alles für den Balkon' }, en: { name: 'Balcony' } } });
  });

  it('filters the export by categories_id and parent_id', async () => {
    const children = await shop.all('categories', { parent_id: 1 });
    expect(children.map((c) => c.categories_id)).toEqual([2, 3]);
  });

  it('refuses a parent that does not exist or a cycle', async () => {
    const res = await shop.client.update('categories', [{ categories_id: 1, parent_id: 2 }, { categories_id: 2, parent_id: 999 }]);
    expect(res.outcomes.map((o) => o.error?.apiCode)).toEqual(['INVALID_PAYLOAD', 'INVALID_PAYLOAD']);
  });

  it('lists categories with their products, active ones by default', async () => {
    const list = await shop.api('GET', '/categories/productlist?categories_id=8&language=en');
    expect(list.body).toMatchObject({ type: 'categories_productlist', api_version: expect.any(String), pagination: { total: 1 } });
    const outlet = list.body.data[0];
    expect(outlet.categories_name).toBe('Outlet');
    expect(outlet.products.map((p: { id: number }) => p.id)).not.toContain(47);
    const withInactive = await shop.api('GET', '/categories/productlist?categories_id=8&include_inactive_products=1');
    expect(withInactive.body.data[0].products.map((p: { id: number }) => p.id)).toContain(47);
    expect(withInactive.body.data[0].products_count).toBe(withInactive.body.data[0].products.length);
    const active = await shop.api('GET', '/categories/productlist?status=1');
    expect(active.body.data.map((c: { categories_id: number }) => c.categories_id)).not.toContain(8);
    const viaClient = [];
    for await (const entry of shop.client.categoryProductList({ categories_id: 2 })) viaClient.push(entry);
    expect(viaClient).toHaveLength(1);
  });

  it('deletes subcategories and product assignments with a category', async () => {
    const before = await shop.client.exportOne('products', 9);
    expect(before?.categories).toContain(3);
    const res = await shop.client.delete('categories', 1);
    expect(res.deleted?.sort()).toEqual([1, 2, 3]);
    expect(await shop.all('categories', { parent_id: 1 })).toEqual([]);
    expect((await shop.client.exportOne('products', 9))?.categories).toEqual([]);
    expect((await shop.api('DELETE', '/delete/json/categories?categories_id=1')).status).toBe(404);
  });
});

describe('manufacturers', () => {
  it('writes and exports the product-safety contact fields, EU and non-EU', async () => {
    const fields = {
      manufacturers_gpsr_contact_company: 'Acme EU GmbH', manufacturers_gpsr_contact_street: 'Weg 1', manufacturers_gpsr_contact_postcode: '10115', manufacturers_gpsr_contact_city: 'Berlin',
      manufacturers_gpsr_contact_country: 'de', manufacturers_gpsr_contact_email: 'eu@acme.example', manufacturers_gpsr_contact_phone: '+49 1', manufacturers_gpsr_contact_url: 'https://acme.example',
      manufacturers_gpsr_non_eu_contact_company: 'Acme Inc.', manufacturers_gpsr_non_eu_contact_country: 'US',
    };
    const res = await shop.client.create('manufacturers', [{ manufacturers_name: 'Acme', manufacturers_image: 'acme.png', languages: { de: { manufacturers_description: 'Hersteller' } }, ...fields }]);
    const id = res.outcomes[0].data?.manufacturers_id as number;
    const [m] = await shop.all('manufacturers', { manufacturers_id: id });
    expect(m).toMatchObject({ ...fields, manufacturers_gpsr_contact_country: 'DE', manufacturers_image: 'acme.png', languages: { de: { manufacturers_description: 'Hersteller' } } });
    await shop.client.update('manufacturers', [{ manufacturers_id: id, manufacturers_gpsr_contact_city: 'Potsdam' }]);
    const [after] = await shop.all('manufacturers', { manufacturers_id: id });
    expect(after).toMatchObject({ manufacturers_gpsr_contact_city: 'Potsdam', manufacturers_gpsr_contact_company: 'Acme EU GmbH' });
  });

  it('answers Not found and MISSING_ID on update, and deletes with the products losing the reference', async () => {
    const res = await shop.client.update('manufacturers', [{ manufacturers_id: 999, manufacturers_name: 'x' }, { manufacturers_name: 'y' }]);
    expect(res.outcomes.map((o) => o.error?.apiCode)).toEqual(['Not found', 'MISSING_ID']);
    expect((await shop.client.delete('manufacturers', 4)).deleted).toEqual([4]);
    expect((await shop.client.exportOne('products', 17))?.manufacturers_id).toBe(0);
  });
});

describe('suppliers', () => {
  it('writes every supplier field', async () => {
    const fields = { suppliers_name: 'Neu AG', suppliers_street: 'Str. 1', suppliers_postcode: '12345', suppliers_city: 'Ort', suppliers_country: 'AT', suppliers_email: 'a@neu.example', suppliers_phone: '1', suppliers_fax: '2', suppliers_url: 'https://neu.example', languages: { de: { suppliers_info: 'Info' } } };
    const id = (await shop.client.create('suppliers', [fields])).outcomes[0].data?.suppliers_id as number;
    expect((await shop.all('suppliers', { suppliers_id: id }))[0]).toMatchObject(fields);
  });

  it('removes product assignments when a supplier is deleted', async () => {
    expect((await shop.client.exportOne('products', 24))?.suppliers).toEqual([expect.objectContaining({ suppliers_id: 3 })]);
    expect((await shop.client.delete('suppliers', 3)).deleted).toEqual([3]);
    expect((await shop.client.exportOne('products', 24))?.suppliers).toEqual([]);
  });
});
