/** Manufacturers with the product-safety contact fields (spec: Resources › Manufacturers). */
import { GPSR_FIELDS } from '../../shop/resources/manufacturers.js';
import { simpleHandler, type FieldKind } from './simple.js';

const fields: Record<string, FieldKind> = { manufacturers_name: 'string', manufacturers_image: 'string' };
for (const f of GPSR_FIELDS) fields[f] = f.endsWith('_country') ? 'country' : 'string';

export const manufacturersHandler = simpleHandler({
  resource: 'manufacturers',
  idField: 'manufacturers_id',
  fields,
  languageFields: ['manufacturers_description', 'manufacturers_url', 'manufacturers_meta_title', 'manufacturers_meta_description', 'manufacturers_meta_keywords', 'seo_name'],
  required: ['manufacturers_name'],
  seoType: 'm',
  defaults: { manufacturers_name: '', manufacturers_image: '', ...Object.fromEntries(GPSR_FIELDS.map((f) => [f, ''])) },
  // Products keep existing; they lose the reference to the deleted manufacturer.
  onDelete(ctx, id) {
    for (const productId of ctx.store.list('products', { where: [{ field: 'manufacturers_id', op: '=', value: id }] }).records.map((p) => p.products_id as number)) {
      const product = ctx.store.get('products', productId);
      if (product) ctx.store.put('products', productId, { ...product, manufacturers_id: 0 });
    }
  },
});
