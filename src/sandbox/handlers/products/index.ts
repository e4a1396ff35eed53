/** The products handler (spec: Resources › Products; Endpoints › Products). */
import type { ResourceHandler, SandboxContext } from '../../handler.js';
import { exportFromStore } from '../../exports.js';
import { deleteReply, fail, intParam, isRecord, listReply, oneReply, phpInt } from '../../kit.js';
import type { StoredRecord } from '../../store.js';
import { seedCatalog } from '../../seed/catalog.js';
import { storagesView } from './storages.js';
import { clearOptionCatalog, initOptionCatalog } from './options.js';
import { uploadMedia } from './media.js';
import { createProducts, findProduct, updateProducts } from './write.js';

/** A stored product as the export shows it. */
export function productView(ctx: SandboxContext, product: StoredRecord): Record<string, unknown> {
  const { storages: _storages, ...rest } = product;
  const suppliers = ((product.suppliers as StoredRecord[] | undefined) ?? []).map((s) => ({
    ...s,
    suppliers_name: (ctx.store.get('suppliers', s.suppliers_id as number)?.suppliers_name as string | undefined) ?? '',
  }));
  const view: Record<string, unknown> = { ...rest, suppliers };
  const storages = storagesView(ctx, product);
  if (storages !== undefined) view.storages = storages;
  return view;
}

export const productsHandler: ResourceHandler = {
  indexes: ['products_model'],
  init: initOptionCatalog,
  seed(ctx, kind) {
    clearOptionCatalog(ctx);
    if (kind === 'demo') seedCatalog(ctx);
  },
  export: (ctx, req) => exportFromStore(ctx, req, { view: (p) => productView(ctx, p) }),
  exportOne(ctx, req) {
    const product = ctx.store.get('products', intParam(req.params.id, 'products_id'));
    if (!product) fail(404, 'Not found', `No product with products_id ${req.params.id}`);
    return oneReply(req.resource, productView(ctx, product));
  },
  range(ctx, req) {
    const start = intParam(req.params.start, 'START');
    const end = intParam(req.params.end, 'END');
    const { records, total } = ctx.store.list('products', { idFrom: Math.min(start, end), idTo: Math.max(start, end) });
    return listReply(req.resource, records.map((p) => productView(ctx, p)), { total, limit: total, offset: 0 });
  },
  create: createProducts,
  update: updateProducts,
  extra: { media: uploadMedia },
  delete(ctx, req) {
    const body = isRecord(req.body) ? req.body : {};
    const idRaw = req.query.products_id ?? body.products_id;
    const model = req.query.products_model ?? body.products_model;
    if ((idRaw === undefined || idRaw === '') && (model === undefined || model === '')) {
      fail(400, 'INVALID_PAYLOAD', 'Delete needs products_id or products_model');
    }
    const product = findProduct(ctx, idRaw !== undefined && idRaw !== '' ? { products_id: phpInt(idRaw) } : { products_model: model });
    if (!product) fail(404, 'Not found', `No product with ${idRaw !== undefined && idRaw !== '' ? `products_id ${String(idRaw)}` : `products_model ${String(model)}`}`);
    ctx.store.delete('products', product.products_id as number);
    return deleteReply(req.resource, [product.products_id as number]);
  },
};
