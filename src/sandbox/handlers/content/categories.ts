/**
 * The category resources of news and FAQ (fields not shown in the spec: sandbox decision, see
 * docs/spec-gaps.md): create with a name in at least one language and an existing parent;
 * delete by id from query or body, moving subcategories up to the deleted one's parent.
 */
import type { OperationHandler, ResourceHandler, SandboxContext } from '../../handler.js';
import { deleteReply, fail, optionalInt, RecordError, writeEach } from '../../kit.js';
import { exportFromStore } from '../../exports.js';
import { languagesInput, mergeLanguages } from './languages.js';
import { deleteId, flagValue } from './values.js';

const LANGUAGE_FIELDS = ['categories_name', 'categories_description'] as const;

/** What differs between the category resources. */
export interface ContentCategoryConfig {
  readonly resource: string;
  readonly idField: string;
  /** 'News category', 'FAQ category'. */
  readonly label: string;
  /** The label inside a sentence ('news category'). */
  readonly noun: string;
  /** Whether a new category records `date_added`. */
  readonly dateAdded: boolean;
  /** Detach the deleted category from the records that use it. */
  readonly detach: (ctx: SandboxContext, id: number) => void;
  readonly seed: (ctx: SandboxContext) => void;
}

/** The handler of a news or FAQ category resource. */
export function contentCategoryHandler(config: ContentCategoryConfig): ResourceHandler {
  const { resource, idField } = config;
  const create: OperationHandler = (ctx, req) =>
    writeEach(ctx, req, 'create', (record) => {
      const given = optionalInt(record, idField);
      if (given !== undefined && ctx.store.has(resource, given)) {
        throw new RecordError('Already exists', `${config.label} ${given} already exists`, idField, { [idField]: given });
      }
      const sent = languagesInput(record, ctx);
      if (!sent || !Object.values(sent).some((b) => typeof b.categories_name === 'string' && b.categories_name.trim() !== '')) {
        throw new RecordError('INVALID_PAYLOAD', 'languages needs at least one block with categories_name', 'languages');
      }
      const parentId = optionalInt(record, 'parent_id') ?? 0;
      if (parentId !== 0 && !ctx.store.has(resource, parentId)) throw new RecordError('INVALID_PAYLOAD', `parent_id ${parentId} is no ${config.noun} (0 = root)`, 'parent_id');
      const id = ctx.store.insert(resource, idField, {
        ...(given !== undefined ? { [idField]: given } : {}),
        parent_id: parentId,
        categories_status: record.categories_status === undefined ? 1 : flagValue(record, 'categories_status'),
        sort_order: optionalInt(record, 'sort_order') ?? 0,
        ...(config.dateAdded ? { date_added: ctx.timestamp() } : {}),
        languages: mergeLanguages(undefined, sent, LANGUAGE_FIELDS),
      });
      return { [idField]: id };
    });

  const deleteOne: OperationHandler = (ctx, req) => {
    const id = deleteId(req, idField);
    const category = ctx.store.get(resource, id);
    if (!category) fail(404, 'Not found', `${config.label} ${id} does not exist`);
    for (const child of ctx.store.all(resource)) {
      if (child.parent_id === id) ctx.store.put(resource, child[idField] as number, { ...child, parent_id: category.parent_id ?? 0 });
    }
    config.detach(ctx, id);
    ctx.store.delete(resource, id);
    return deleteReply(req.resource, [id]);
  };

  return {
    seed(ctx, kind) {
      if (kind === 'demo') config.seed(ctx);
    },
    export: (ctx, req) => exportFromStore(ctx, req),
    create,
    delete: deleteOne,
  };
}
