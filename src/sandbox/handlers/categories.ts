/**
 * Categories (spec: Resources › Categories; Endpoints › Categories): the tree, the delete cascade
 * (subcategories and product assignments) and the productlist.
 */
import type { SandboxContext } from '../handler.js';
import { API_VERSION, deleteReply, fail, intParam, ok, pageParams, phpDeleteId, RecordError } from '../kit.js';
import type { StoredRecord } from '../store.js';
import { languageParam, masterLanguageCode } from './content/languages.js';
import { simpleHandler, type SimpleResourceConfig } from './simple.js';

const config: SimpleResourceConfig = {
  resource: 'categories',
  idField: 'categories_id',
  fields: { parent_id: 'int', categories_status: 'flag', sort_order: 'int', categories_image: 'string' },
  aliases: { status: 'categories_status' },
  // seo_name: not in the spec's field table, but automatic SEO redirects cover categories (2.13.0).
  languageFields: ['name', 'heading', 'short_description', 'description', 'title_tag', 'desc_tag', 'seo_name'],
  languageAliases: { categories_name: 'name', categories_heading: 'heading' },
  required: [],
  defaults: { parent_id: 0, categories_status: 1, sort_order: 0, categories_image: '' },
  seoType: 'c',
  validate(ctx, record) {
    const parent = record.parent_id as number;
    if (parent === 0) return;
    if (parent === record.categories_id) throw new RecordError('INVALID_PAYLOAD', 'A category cannot be its own parent', 'parent_id');
    if (!ctx.store.has('categories', parent)) throw new RecordError('INVALID_PAYLOAD', `parent_id ${parent} does not exist`, 'parent_id');
    if (descendants(ctx, record.categories_id as number).includes(parent)) throw new RecordError('INVALID_PAYLOAD', `parent_id ${parent} is below this category (a cycle)`, 'parent_id');
  },
};

/** Ids of every category below `id` (children, grandchildren…). */
export function descendants(ctx: SandboxContext, id: number): number[] {
  const out: number[] = [];
  const queue = [id];
  while (queue.length > 0) {
    const current = queue.shift() as number;
    const children = ctx.store.list('categories', { where: [{ field: 'parent_id', op: '=', value: current }] }).records.map((c) => c.categories_id as number);
    for (const child of children) {
      if (out.includes(child) || child === id) continue;
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

function removeAssignments(ctx: SandboxContext, categoryId: number): void {
  for (const productId of ctx.store.idsWithListMember('products', 'categories', null, categoryId)) {
    const product = ctx.store.get('products', productId);
    if (!product) continue;
    ctx.store.put('products', productId, { ...product, categories: (product.categories as number[]).filter((c) => c !== categoryId) });
  }
}

function productListEntry(ctx: SandboxContext, category: StoredRecord, code: string, includeInactive: boolean): Record<string, unknown> {
  const id = category.categories_id as number;
  const products = ctx.store
    .idsWithListMember('products', 'categories', null, id)
    .map((pid) => ctx.store.get('products', pid))
    .filter((p): p is StoredRecord => p !== undefined && (includeInactive || p.products_status === 1))
    .map((p) => ({ id: p.products_id as number, model: (p.products_model as string | null) ?? null }));
  const languages = (category.languages as Record<string, { name?: string }> | undefined) ?? {};
  return { categories_id: id, categories_name: languages[code]?.name ?? '', products_count: products.length, products };
}

export const categoriesHandler = simpleHandler(config, {
  delete(ctx, req) {
    const { id, raw } = phpDeleteId(req, 'categories_id');
    if (!ctx.store.has('categories', id)) fail(404, 'Not found', `No category with categories_id ${String(raw)}`);
    const ids = [id, ...descendants(ctx, id)];
    for (const cid of ids) {
      removeAssignments(ctx, cid);
      ctx.store.delete('categories', cid);
    }
    return deleteReply(req.resource, ids);
  },
  extra: {
    productlist(ctx, req) {
      const page = pageParams(req.resource, req.query);
      const code = languageParam(ctx, req.query.language)?.code ?? masterLanguageCode(ctx);
      const where = [];
      if (req.query.categories_id !== undefined && req.query.categories_id !== '') where.push({ field: 'categories_id', op: '=' as const, value: intParam(req.query.categories_id, 'categories_id') });
      if (req.query.status === '1') where.push({ field: 'categories_status', op: '=' as const, value: 1 });
      const includeInactive = req.query.include_inactive_products === '1';
      const { records, total } = ctx.store.list('categories', { where, limit: page.limit, offset: page.offset });
      return ok({
        success: true,
        type: 'categories_productlist',
        api_version: API_VERSION,
        pagination: { total, limit: page.limit, offset: page.offset },
        data: records.map((c) => productListEntry(ctx, c, code, includeInactive)),
      });
    },
  },
});
