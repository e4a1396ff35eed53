/** FAQ entries: export by entry or category with paging, create/update, delete by faqdesk_id. */
import type { OperationHandler, ResourceHandler } from '../handler.js';
import { deleteReply, fail, optionalInt, RecordError, writeEach } from '../kit.js';
import { exportFromStore } from '../exports.js';
import type { StoredRecord } from '../store.js';
import { seedFaq } from '../seed/faqdesk.js';
import { languagesInput, mergeLanguages } from './content/languages.js';
import { deleteId, flagValue, recordToUpdate } from './content/values.js';
import { FAQ_CATEGORIES } from './faqdesk_categories.js';

export const FAQ = 'faqdesk';
const LANGUAGE_FIELDS = ['faqdesk_question', 'faqdesk_answer_short', 'faqdesk_answer_long'] as const;

function applyFields(record: Record<string, unknown>, entry: Record<string, unknown>, categoryExists: (id: number) => boolean): void {
  const category = optionalInt(record, 'faqdesk_categories_id');
  if (category !== undefined) {
    if (category !== 0 && !categoryExists(category)) throw new RecordError('INVALID_PAYLOAD', `faqdesk_categories_id ${category} is no FAQ category (0 = none)`, 'faqdesk_categories_id');
    entry.faqdesk_categories_id = category;
  }
  if (record.faqdesk_status !== undefined) entry.faqdesk_status = flagValue(record, 'faqdesk_status');
  if (record.faqdesk_sort_order !== undefined) entry.faqdesk_sort_order = optionalInt(record, 'faqdesk_sort_order');
}

const create: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'create', (record) => {
    const given = optionalInt(record, 'faqdesk_id');
    if (given !== undefined && ctx.store.has(FAQ, given)) throw new RecordError('Already exists', `FAQ entry ${given} already exists (use PUT)`, 'faqdesk_id', { faqdesk_id: given });
    const sent = languagesInput(record, ctx);
    if (!sent || !Object.values(sent).some((b) => typeof b.faqdesk_question === 'string' && b.faqdesk_question.trim() !== '')) {
      throw new RecordError('INVALID_PAYLOAD', 'languages needs at least one block with faqdesk_question', 'languages');
    }
    const entry: Record<string, unknown> = { faqdesk_categories_id: 0, faqdesk_status: 1, faqdesk_sort_order: 0, date_added: ctx.timestamp(), last_modified: null };
    applyFields(record, entry, (id) => ctx.store.has(FAQ_CATEGORIES, id));
    entry.languages = mergeLanguages(undefined, sent, LANGUAGE_FIELDS);
    const id = ctx.store.insert(FAQ, 'faqdesk_id', { ...(given !== undefined ? { faqdesk_id: given } : {}), ...entry });
    return { faqdesk_id: id };
  });

const update: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'update', (record) => {
    const { id, stored: entry } = recordToUpdate(ctx, record, FAQ, 'faqdesk_id', 'FAQ entry');
    applyFields(record, entry, (c) => ctx.store.has(FAQ_CATEGORIES, c));
    const sent = languagesInput(record, ctx);
    if (sent) entry.languages = mergeLanguages(entry.languages as Record<string, Record<string, unknown>>, sent, LANGUAGE_FIELDS);
    entry.last_modified = ctx.timestamp();
    ctx.store.put(FAQ, id, entry as StoredRecord);
    return { faqdesk_id: id };
  });

const deleteOne: OperationHandler = (ctx, req) => {
  const id = deleteId(req, 'faqdesk_id');
  if (!ctx.store.delete(FAQ, id)) fail(404, 'Not found', `FAQ entry ${id} does not exist`);
  return deleteReply(req.resource, [id]);
};

/** The sandbox handler of faqdesk (registered in handlers/index.ts). */
export const faqdeskHandler: ResourceHandler = {
  seed(ctx, kind) {
    if (kind === 'demo') seedFaq(ctx);
  },
  export: (ctx, req) => exportFromStore(ctx, req, { view: (r) => r }),
  create,
  update,
  delete: deleteOne,
};
