/**
 * Products in the sandbox, rule by rule.
 *
 * | rule | spec line |
 * |---|---|
 * | POST creates, PUT updates, addressed by products_model | shop-api.md:461 (rule 1) |
 * | languages nested only; POST fills missing languages from the master | :462 (rule 2) |
 * | specials, action 'delete' | :463 (rule 3), :186 |
 * | upsells replace, self and unknown skipped silently | :464 (rule 4) |
 * | warranty_period '' overrides the default 24 | :465 (rule 5) |
 * | warranty_type allowed values, spelling, missing/empty/unknown | :466 (rule 6) |
 * | groups upsert per group, gross from tax class | :467 (rule 7), :182 |
 * | customers_prices partial upsert, delete, replace, defaults, warnings | :468 (rule 8), :184 |
 * | storages: every clause of rule 9 | :469 (rule 9), :170-179 |
 * | suppliers replace, number lost | :470 (rule 10) |
 * | option groups in the export | :163-165 |
 * | range export {START}:{END}; single product; delete by id or model | :451-457 |
 * | images replace the gallery | :142 |
 */
import { describe, expect, it } from 'vitest';
import { openShop, useShop } from './harness.js';

const shop = useShop();

const write = (method: 'POST' | 'PUT', data: unknown[]) => shop.api(method, '/import/json/products', { type: 'products', data });
const product = async (id: number) => (await shop.client.exportOne('products', id)) as Record<string, any>;

describe('create and update', () => {
  it('creates with POST, updates with PUT by products_model, and refuses duplicates and unknown products', async () => {
    const created = await shop.client.create('products', [{ products_model: 'T-100', products_price: 10, languages: { de: { products_name: 'Test' } } }]);
    expect(created.outcomes[0]).toMatchObject({ ok: true, data: { products_model: 'T-100' } });
    const id = created.outcomes[0].data?.products_id as number;
    const updated = await shop.client.update('products', [{ products_model: 'T-100', products_price: 12.5 }]);
    expect(updated.outcomes[0].ok).toBe(true);
    expect((await product(id)).products_price).toBe(12.5);
    const again = await shop.client.create('products', [{ products_model: 't-100' }]);
    expect(again.outcomes[0].error?.apiCode).toBe('Already exists');
    expect(again.outcomes[0].error?.details).toMatchObject({ products_id: id });
    const unknown = await shop.client.update('products', [{ products_model: 'NOPE-1', products_price: 1 }]);
    expect(unknown.outcomes[0].error?.apiCode).toBe('Not found');
  });

  it('stores decimals with the places its columns keep (the registry\'s scales), rounding half-up: prices 4, quantities 8', async () => {
    const res = await write('POST', [{ products_model: 'T-SCALE', products_price: '12.34565', products_quantity: 0.1 + 0.2, products_weight: '1.00005' }]);
    const p = await product(res.body.data[0].products_id);
    expect(p).toMatchObject({ products_price: 12.3457, products_quantity: 0.3, products_weight: 1.0001 });
    await write('PUT', [{ products_model: 'T-SCALE', storages: [{ storages_id: 1, products_quantity: 1.1 + 2.2, products_safe_quantity: '0.123456789' }] }]);
    expect((await product(p.products_id)).storages).toEqual([expect.objectContaining({ storages_id: 1, products_quantity: 3.3, products_safe_quantity: 0.12345679 })]);
  });

  it('fills missing languages from the master language on POST and merges languages on PUT', async () => {
    const res = await write('POST', [{ products_model: 'T-LANG', languages: { de: { products_name: 'Lampe', products_description: 'Hell' } } }]);
    const id = res.body.data[0].products_id;
    const p = await product(id);
    expect(p.languages.en).toMatchObject({ products_name: 'Lampe', products_description: 'Hell' });
    await write('PUT', [{ products_id: id, languages: { en: { products_name: 'Lamp' } }, products_name: 'flat names are ignored' }]);
    const after = await product(id);
    expect(after.languages.en).toMatchObject({ products_name: 'Lamp', products_description: 'Hell' });
    expect(after.languages.de.products_name).toBe('Lampe');
    expect(after).not.toHaveProperty('products_name');
  });

  it('reads every scalar field of the interface and refuses a wrong type naming the field', async () => {
    const scalars = { products_ean: '4000000000001', products_weight: 1.25, products_quantity: 7, products_cost: 3.3, manufacturers_id: 2, products_status: 0, contract: 1, contract_use_current_price: 1, contract_option: 'x', products_inventory_management: 0, products_min_qty: 2, products_max_qty: 9, products_qty_blocks: 2, products_base_price: 1.5, service: 1, sitemap: 0, non_cart: 1, non_price: 1, products_free_shipping: 1, shipping_profile: 3, products_unit_id: 4, base_unit_id: 5, products_sort_order: 6, products_api: 'erp', products_reorder_level: 8, products_safe_quantity: 4 };
    const res = await write('POST', [{ products_model: 'T-SCALAR', ...scalars }]);
    expect(await product(res.body.data[0].products_id)).toMatchObject(scalars);
    const bad = await write('PUT', [{ products_model: 'T-SCALAR', products_price: 'cheap' }]);
    expect(bad.body.errors[0]).toMatchObject({ code: 'INVALID_PAYLOAD', field: 'products_price' });
  });

  it('applies warranty_period and warranty_type rules', async () => {
    const res = await write('POST', [{ products_model: 'T-WAR' }, { products_model: 'T-WAR2', warranty_period: '' }]);
    const [a, b] = res.body.data.map((d: { products_id: number }) => d.products_id);
    expect((await product(a)).warranty_period).toBe(24);
    expect((await product(b)).warranty_period).toBe('');
    await write('PUT', [{ products_id: a, warranty_type: ' Physikal ' }]);
    expect((await product(a)).warranty_type).toBe('physical');
    const unknown = await write('PUT', [{ products_id: a, warranty_type: 'lifetime' }]);
    expect(unknown.body.success).toBe(true);
    expect(unknown.body.warnings[0]).toMatchObject({ code: 'WARRANTY_TYPE_INVALID', field: 'warranty_type' });
    expect((await product(a)).warranty_type).toBe('physical');
    await write('PUT', [{ products_id: a, products_price: 3 }]);
    expect((await product(a)).warranty_type).toBe('physical');
    await write('PUT', [{ products_id: a, warranty_type: '' }]);
    expect((await product(a)).warranty_type).toBeNull();
  });

  it('replaces the image gallery with alt texts', async () => {
    await write('PUT', [{ products_id: 6, images: ['a.jpg', { image: 'b.jpg', sort_order: 5, alt: { de: 'B' } }] }]);
    expect((await product(6)).images).toEqual([{ image: 'a.jpg', sort_order: 1, alt: {} }, { image: 'b.jpg', sort_order: 5, alt: { de: 'B' } }]);
  });
});

describe('price lists', () => {
  it('upserts group prices per group, computes the gross price and keeps unlisted groups', async () => {
    await write('PUT', [{ products_id: 10, groups: [{ customers_group_id: 2, customers_group_price: 10 }] }]);
    const groups = (await product(10)).groups;
    expect(groups.find((g: { customers_group_id: number }) => g.customers_group_id === 2)).toMatchObject({ customers_group_price: 10, customers_group_price_gross: 11.9 });
    expect(groups.find((g: { customers_group_id: number }) => g.customers_group_id === 3)).toBeDefined();
    const zero = await write('PUT', [{ products_id: 10, groups: [{ customers_group_id: 0, customers_group_price: 1 }, 3] }]);
    expect(zero.body.warnings.map((w: { code: string }) => w.code)).toEqual(['GROUP_PRICE_INVALID', 'GROUP_PRICE_INVALID']);
  });

  it('upserts customer prices partially, with defaults, deletes and replaces them', async () => {
    await write('PUT', [{ products_id: 11, products_price: 20, customers_prices: [{ customers_id: 1 }, { customers_id_extern: 'K-10002', price: 15, products_price1: 14, products_price1_qty: 10 }] }]);
    let prices = (await product(11)).customers_prices;
    expect(prices).toEqual([
      expect.objectContaining({ customers_id: 1, customers_price: 20, products_qty_blocks: 1, products_min_qty: 1 }),
      expect.objectContaining({ customers_id: 2, customers_id_extern: 'K-10002', customers_price: 15, products_price1: 14, products_price1_qty: 10 }),
    ]);
    await write('PUT', [{ products_id: 11, customers_prices: [{ customers_id: 2, products_min_qty: 5 }, { customers_id: 1, _action: 'delete' }] }]);
    prices = (await product(11)).customers_prices;
    expect(prices).toEqual([expect.objectContaining({ customers_id: 2, customers_price: 15, products_price1: 14, products_min_qty: 5 })]);
    await write('PUT', [{ products_id: 11, customers_prices_replace: true, customers_prices: [{ customers_id: 3, customers_price: 9 }] }]);
    expect((await product(11)).customers_prices.map((p: { customers_id: number }) => p.customers_id)).toEqual([3]);
    await write('PUT', [{ products_id: 11, customers_prices_replace: 'true', customers_prices: [] }]);
    expect((await product(11)).customers_prices).toHaveLength(1);
    await write('PUT', [{ products_id: 11, customers_prices_replace: true, customers_prices: [] }]);
    expect((await product(11)).customers_prices).toEqual([]);
  });

  it('warns for prices <= 0 and ambiguous external numbers and skips the entry', async () => {
    const res = await write('PUT', [{ products_id: 12, customers_prices: [{ customers_id_extern: 'K-DUP', customers_price: 5 }, { customers_id: 1, customers_price: 0 }] }]);
    expect(res.body.success).toBe(true);
    expect(res.body.warnings.map((w: { code: string }) => w.code)).toEqual(['CUSTOMER_EXTERN_AMBIGUOUS', 'CUSTOMER_PRICE_INVALID']);
    const prices = (await product(12)).customers_prices;
    expect(prices).toEqual([expect.objectContaining({ customers_id: 1, customers_price: (await product(12)).products_price })]);
  });

  it('re-imports exported customer prices unchanged', async () => {
    const before = await product(11);
    await write('PUT', [{ products_id: 11, customers_prices: [{ customers_id: 4, customers_price: 8.5, products_qty_blocks: 2 }] }]);
    const exported = (await product(11)).customers_prices;
    await write('PUT', [{ products_id: 11, customers_prices_replace: true, customers_prices: exported }]);
    expect((await product(11)).customers_prices).toEqual(exported);
    expect(before.products_id).toBe(11);
  });

  it('adds, changes and deletes specials', async () => {
    const added = await write('PUT', [{ products_id: 13, specials: [{ customers_group_id: 0, discount_percent: 10, specials_end: '2027-01-01 00:00:00', specials_price_name: { de: 'Aktion' } }] }]);
    expect(added.body.success).toBe(true);
    const specials = (await product(13)).specials;
    expect(specials).toHaveLength(1);
    expect(specials[0]).toMatchObject({ customers_group_id: 0, discount_percent: 10, specials_end: '2027-01-01 00:00:00', status: 1 });
    const id = specials[0].specials_price_id;
    await write('PUT', [{ products_id: 13, specials: [{ specials_price_id: id, specials_new_products_price: 5 }] }]);
    expect((await product(13)).specials[0].specials_new_products_price).toBe(5);
    await write('PUT', [{ products_id: 13, specials: [{ specials_price_id: id, action: 'delete' }] }]);
    expect((await product(13)).specials).toEqual([]);
  });
});

describe('relations', () => {
  it('replaces upsells and skips self-references and unknown models silently', async () => {
    const res = await write('PUT', [{ products_id: 14, upsells: ['DEMO-1014', 'DEMO-1020', { products_model: 'UNKNOWN' }, { products_model: 'DEMO-1021', sort_order: 7 }] }]);
    expect(res.body.warnings).toEqual([]);
    expect((await product(14)).upsells).toEqual([
      { products_id: 20, products_model: 'DEMO-1020', sort_order: 2 },
      { products_id: 21, products_model: 'DEMO-1021', sort_order: 7 },
    ]);
    await write('PUT', [{ products_id: 14, upsells: [] }]);
    expect((await product(14)).upsells).toEqual([]);
  });

  it('replaces supplier assignments and loses the number of an entry without products_model', async () => {
    await write('PUT', [{ products_id: 15, suppliers: [{ suppliers_id: 1, products_model: 'S-A' }, { suppliers_id: 2, products_model: 'S-B' }] }]);
    await write('PUT', [{ products_id: 15, suppliers: [{ suppliers_id: 2 }] }]);
    expect((await product(15)).suppliers).toEqual([{ suppliers_id: 2, products_model: null, suppliers_name: 'Elektro-Import Schulz' }]);
  });

  it('exports option groups with combinations, including an unmaintained one', async () => {
    const speaker = await product(2);
    expect(speaker.option_groups[0].options.map((o: { id: number }) => o.id)).toEqual([2, 3]);
    expect(speaker.option_groups[0].combinations[2]).toMatchObject({ detail_id: 0, model: null });
    expect((await product(1)).options['1'].values).toHaveLength(2);
  });

  it('exports a range of products and a single product, and deletes by id or model', async () => {
    expect((await shop.client.exportRange('products', 20, 24)).map((p) => p.products_id)).toEqual([20, 21, 22, 23, 24]);
    expect((await shop.api('GET', '/export/json/product/99999')).status).toBe(404);
    await write('POST', [{ products_model: 'T-DEL1' }, { products_model: 'T-DEL2' }]);
    const byModel = await shop.client.delete('products', { products_model: 'T-DEL1' });
    expect(byModel.deleted).toHaveLength(1);
    const id2 = (await shop.api('GET', '/export/json/products?limit=250')).body.data.find((p: { products_model: string }) => p.products_model === 'T-DEL2').products_id;
    expect((await shop.client.delete('products', id2)).deleted).toEqual([id2]);
    expect((await shop.api('DELETE', `/delete/json/products?products_id=${id2}`)).status).toBe(404);
  });
});

describe('storages (rule 9)', () => {
  const storageRow = async (id: number, storagesId: number, optionsId = 0) => (await product(id)).storages?.find((r: { storages_id: number; options_id: number }) => r.storages_id === storagesId && r.options_id === optionsId);

  it('inserts a new row with both quantities and updates the same triple partially', async () => {
    await write('PUT', [{ products_id: 30, storages: [{ storages_id: 1, products_quantity: 5, products_safe_quantity: 1, products_storage_text: 'R1' }] }]);
    expect(await storageRow(30, 1)).toMatchObject({ products_quantity: 5, products_safe_quantity: 1, products_storage_text: 'R1', products_id: 30 });
    await write('PUT', [{ products_id: 30, storages: [{ warehouse_id: 1, products_reorder_level: 3 }] }]);
    expect(await storageRow(30, 1)).toMatchObject({ products_quantity: 5, products_reorder_level: 3, products_storage_text: 'R1' });
    // options_id names a SKU of the product (docs/spec-gaps.md, "Variants"): give product 30 one.
    const variant = await write('PUT', [{ products_id: 30, options: [{ values: [{ option: { de: 'Größe' }, value: { de: 'M' } }], model: 'V-30-M', quantity: 1 }] }]);
    expect(variant.body.errors).toEqual([]);
    const sku = (Object.values((await product(30)).options as Record<string, { values: { products_attributes_id: number }[] }>)[0]!.values[0]!.products_attributes_id);
    await write('PUT', [{ products_id: 30, storages: [{ storages_id: 1, options_id: sku, products_quantity: 2, products_safe_quantity: 0 }] }]);
    expect(await storageRow(30, 1, sku)).toMatchObject({ products_quantity: 2 });
    expect(await storageRow(30, 1, 0)).toMatchObject({ products_quantity: 5 });
  });

  it('skips a storage row whose options_id names no SKU of the product, with STORAGE_OPTION_NOT_FOUND', async () => {
    const answer = await write('PUT', [{ products_id: 30, storages: [{ storages_id: 1, options_id: 4, products_quantity: 2, products_safe_quantity: 0 }] }]);
    expect(answer.body.warnings).toEqual([expect.objectContaining({ code: 'STORAGE_OPTION_NOT_FOUND', field: 'storages[0].options_id' })]);
    expect(await storageRow(30, 1, 4)).toBeUndefined();
  });

  it('reads 50,5 as 50, writes 0 for null, and writes nothing for a key-only entry', async () => {
    await write('PUT', [{ products_id: 35, storages: [{ storages_id: 3, products_quantity: '50,5', products_safe_quantity: '2.25' }] }]);
    expect(await storageRow(35, 3)).toMatchObject({ products_quantity: 50, products_safe_quantity: 2.25 });
    await write('PUT', [{ products_id: 35, storages: [{ storages_id: 3, products_safe_quantity: null }, { storages_id: 1 }] }]);
    expect(await storageRow(35, 3)).toMatchObject({ products_quantity: 50, products_safe_quantity: 0 });
    expect(await storageRow(35, 1)).toBeUndefined();
  });

  it('silently drops a new row without both quantities, and an entry without id or with id <= 0', async () => {
    const res = await write('PUT', [{ products_id: 32, storages: [{ storages_id: 1, products_quantity: 4 }, { products_quantity: 1, products_safe_quantity: 1 }, { storages_id: 0, products_quantity: 1, products_safe_quantity: 1 }] }]);
    expect(res.body.warnings).toEqual([]);
    expect((await product(32)).storages).toEqual([]);
  });

  it('warns STORAGE_NOT_FOUND for unknown or inactive warehouses and continues with the others', async () => {
    const res = await write('PUT', [{ products_id: 33, storages: [{ storages_id: 2, products_quantity: 1, products_safe_quantity: 1 }, { storages_id: 77, products_quantity: 1, products_safe_quantity: 1 }, { storages_id: 3, products_quantity: 9, products_safe_quantity: 1 }] }]);
    expect(res.body.warnings.map((w: { code: string; details: { storages_id: number } }) => [w.code, w.details.storages_id])).toEqual([['STORAGE_NOT_FOUND', 2], ['STORAGE_NOT_FOUND', 77]]);
    expect(await storageRow(33, 3)).toMatchObject({ products_quantity: 9 });
  });

  it('keeps unlisted rows, exports rows of inactive warehouses, and does not compute products_quantity', async () => {
    const before = await product(4);
    expect(before.storages.some((r: { storages_id: number }) => r.storages_id === 2)).toBe(true);
    await write('PUT', [{ products_id: 4, storages: [{ storages_id: 1, products_quantity: 99 }] }]);
    const after = await product(4);
    expect(after.storages).toHaveLength(before.storages.length);
    expect(after.products_quantity).toBe(before.products_quantity);
  });

  it('ignores storages with STORAGE_SYSTEM_DISABLED and drops the key from the export when disabled', async () => {
    const other = await openShop();
    try {
      await other.api('PUT', '/sandbox/settings', { EXTENDED_STORAGE_SYSTEM: 'false' });
      const res = await other.api('PUT', '/import/json/products', { type: 'products', data: [{ products_id: 1, products_price: 1, storages: [{ storages_id: 1, products_quantity: 1, products_safe_quantity: 1 }] }] });
      expect(res.body.warnings[0]).toMatchObject({ code: 'STORAGE_SYSTEM_DISABLED' });
      expect(res.body.success).toBe(true);
      const p = (await other.api('GET', '/export/json/product/1')).body.data[0];
      expect(p).not.toHaveProperty('storages');
      expect(p.products_price).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('drops an over-long bin location without an error, as the database would', async () => {
    const res = await write('PUT', [{ products_id: 36, storages: [{ storages_id: 1, products_quantity: 1, products_safe_quantity: 1, products_storage_text: 'x'.repeat(51) }] }]);
    expect(res.body).toMatchObject({ success: true, warnings: [], errors: [] });
    expect(await storageRow(36, 1)).toBeUndefined();
  });
});
