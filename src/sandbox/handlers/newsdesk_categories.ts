/** News categories (fields not shown in the spec: sandbox decision, see docs/gaps/sandbox.md). */
import type { OperationHandler, ResourceHandler } from '../handler.js';
import { deleteReply, fail, isObject, optionalInt, RecordError, writeEach } from '../kit.js';
import type { StoredRecord } from '../store.js';
import { seedNewsCategories } from '../seed/newsdesk.js';
import { languagesInput, mergeLanguages } from './content/languages.js';
import { exportFiltered, flagValue } from './content/values.js';

export const NEWS_CATEGORIES = 'newsdesk_categories';
const LANGUAGE_FIELDS = ['categories_name', 'categories_description'] as const;

const create: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'create', (record) => {
    const given = optionalInt(record, 'newsdesk_categories_id');
    if (given !== undefined && ctx.store.has(NEWS_CATEGORIES, given)) {
      throw new RecordError('Already exists', `News category ${given} already exists`, 'newsdesk_categories_id', { newsdesk_categories_id: given });
    }
    const sent = languagesInput(record, ctx);
    if (!sent || !Object.values(sent).some((b) => typeof b.categories_name === 'string' && b.categories_name.trim() !== '')) {
      throw new RecordError('INVALID_PAYLOAD', 'languages needs at least one block with categories_name', 'languages');
    }
    const parentId = optionalInt(record, 'parent_id') ?? 0;
    if (parentId !== 0 && !ctx.store.has(NEWS_CATEGORIES, parentId)) throw new RecordError('INVALID_PAYLOAD', `parent_id ${parentId} is no news category (0 = root)`, 'parent_id');
    const id = ctx.store.insert(NEWS_CATEGORIES, 'newsdesk_categories_id', {
      ...(given !== undefined ? { newsdesk_categories_id: given } : {}),
      parent_id: parentId,
      categories_status: record.categories_status === undefined ? 1 : flagValue(record, 'categories_status'),
      sort_order: optionalInt(record, 'sort_order') ?? 0,
      date_added: ctx.timestamp(),
      languages: mergeLanguages(undefined, sent, LANGUAGE_FIELDS),
    });
    return { newsdesk_categories_id: id };
  });

/** Delete by newsdesk_categories_id: article assignments are removed, subcategories move up to the parent. */
const deleteOne: OperationHandler = (ctx, req) => {
  const body = isObject(req.body) ? req.body : {};
  const raw = req.query.newsdesk_categories_id ?? body.newsdesk_categories_id;
  const id = Number(raw);
  if (raw === undefined || !Number.isInteger(id) || id <= 0) fail(400, 'INVALID_PAYLOAD', 'Delete needs newsdesk_categories_id (query or body)');
  const category = ctx.store.get(NEWS_CATEGORIES, id);
  if (!category) fail(404, 'Not found', `News category ${id} does not exist`);
  for (const child of ctx.store.all(NEWS_CATEGORIES)) {
    if (child.parent_id === id) ctx.store.put(NEWS_CATEGORIES, child.newsdesk_categories_id as number, { ...child, parent_id: category.parent_id ?? 0 });
  }
  for (const article of ctx.store.all('newsdesk')) {
    const ids = article.categories_ids as number[] | undefined;
    if (ids?.includes(id)) ctx.store.put('newsdesk', article.newsdesk_id as number, { ...article, categories_ids: ids.filter((c) => c !== id) } as StoredRecord);
  }
  ctx.store.delete(NEWS_CATEGORIES, id);
  return deleteReply(req.resource, [id]);
};

/** The sandbox handler of newsdesk_categories (registered in handlers/index.ts). */
export const newsdeskCategoriesHandler: ResourceHandler = {
  seed(ctx, kind) {
    if (kind === 'demo') seedNewsCategories(ctx);
  },
  export: (ctx, req) => exportFiltered(ctx, req, { view: (r) => r }),
  create,
  delete: deleteOne,
};
