/** FAQ categories (fields not shown in the spec: sandbox decision, see docs/gaps/sandbox.md). */
import type { OperationHandler, ResourceHandler } from '../handler.js';
import { deleteReply, fail, isObject, optionalInt, RecordError, writeEach } from '../kit.js';
import { seedFaqCategories } from '../seed/faqdesk.js';
import { languagesInput, mergeLanguages } from './content/languages.js';
import { exportFiltered, flagValue } from './content/values.js';

export const FAQ_CATEGORIES = 'faqdesk_categories';
const LANGUAGE_FIELDS = ['categories_name', 'categories_description'] as const;

const create: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'create', (record) => {
    const given = optionalInt(record, 'faqdesk_categories_id');
    if (given !== undefined && ctx.store.has(FAQ_CATEGORIES, given)) {
      throw new RecordError('Already exists', `FAQ category ${given} already exists`, 'faqdesk_categories_id', { faqdesk_categories_id: given });
    }
    const sent = languagesInput(record, ctx);
    if (!sent || !Object.values(sent).some((b) => typeof b.categories_name === 'string' && b.categories_name.trim() !== '')) {
      throw new RecordError('INVALID_PAYLOAD', 'languages needs at least one block with categories_name', 'languages');
    }
    const parentId = optionalInt(record, 'parent_id') ?? 0;
    if (parentId !== 0 && !ctx.store.has(FAQ_CATEGORIES, parentId)) throw new RecordError('INVALID_PAYLOAD', `parent_id ${parentId} is no FAQ category (0 = root)`, 'parent_id');
    const id = ctx.store.insert(FAQ_CATEGORIES, 'faqdesk_categories_id', {
      ...(given !== undefined ? { faqdesk_categories_id: given } : {}),
      parent_id: parentId,
      categories_status: record.categories_status === undefined ? 1 : flagValue(record, 'categories_status'),
      sort_order: optionalInt(record, 'sort_order') ?? 0,
      languages: mergeLanguages(undefined, sent, LANGUAGE_FIELDS),
    });
    return { faqdesk_categories_id: id };
  });

/** Delete by faqdesk_categories_id: its entries stay without category (0), subcategories move up. */
const deleteOne: OperationHandler = (ctx, req) => {
  const body = isObject(req.body) ? req.body : {};
  const raw = req.query.faqdesk_categories_id ?? body.faqdesk_categories_id;
  const id = Number(raw);
  if (raw === undefined || !Number.isInteger(id) || id <= 0) fail(400, 'INVALID_PAYLOAD', 'Delete needs faqdesk_categories_id (query or body)');
  const category = ctx.store.get(FAQ_CATEGORIES, id);
  if (!category) fail(404, 'Not found', `FAQ category ${id} does not exist`);
  for (const child of ctx.store.all(FAQ_CATEGORIES)) {
    if (child.parent_id === id) ctx.store.put(FAQ_CATEGORIES, child.faqdesk_categories_id as number, { ...child, parent_id: category.parent_id ?? 0 });
  }
  for (const entry of ctx.store.all('faqdesk')) {
    if (entry.faqdesk_categories_id === id) ctx.store.put('faqdesk', entry.faqdesk_id as number, { ...entry, faqdesk_categories_id: 0 });
  }
  ctx.store.delete(FAQ_CATEGORIES, id);
  return deleteReply(req.resource, [id]);
};

/** The sandbox handler of faqdesk_categories (registered in handlers/index.ts). */
export const faqdeskCategoriesHandler: ResourceHandler = {
  seed(ctx, kind) {
    if (kind === 'demo') seedFaqCategories(ctx);
  },
  export: (ctx, req) => exportFiltered(ctx, req, { view: (r) => r }),
  create,
  delete: deleteOne,
};
