/** Suppliers (spec: Resources › Suppliers; delete removes the product assignments). */
import { simpleHandler } from './simple.js';

export const suppliersHandler = simpleHandler({
  resource: 'suppliers',
  idField: 'suppliers_id',
  fields: {
    suppliers_name: 'string',
    suppliers_street: 'string',
    suppliers_postcode: 'string',
    suppliers_city: 'string',
    suppliers_country: 'country',
    suppliers_email: 'string',
    suppliers_phone: 'string',
    suppliers_fax: 'string',
    suppliers_url: 'string',
  },
  languageFields: ['suppliers_info'],
  required: ['suppliers_name'],
  defaults: { suppliers_name: '', suppliers_street: '', suppliers_postcode: '', suppliers_city: '', suppliers_country: '', suppliers_email: '', suppliers_phone: '', suppliers_fax: '', suppliers_url: '' },
  onDelete(ctx, id) {
    for (const productId of ctx.store.idsWithListMember('products', 'suppliers', 'suppliers_id', id)) {
      const product = ctx.store.get('products', productId);
      if (!product) continue;
      const suppliers = (product.suppliers as { suppliers_id: number }[]).filter((s) => s.suppliers_id !== id);
      ctx.store.put('products', productId, { ...product, suppliers });
    }
  },
});
