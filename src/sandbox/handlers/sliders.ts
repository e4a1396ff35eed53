/**
 * Sliders (slides). Writes use the envelope type `slider`. POST with a used slider_id is refused
 * with `Already exists` (409 when the whole request fails so) and PUT without slider_id with
 * `MISSING_ID` (400 likewise); a mixed request answers 200 with per-record errors. The target is
 * entity_type/entity_id, the legacy categories_id/content_id are ignored (shop 4.8+).
 */
import type { OperationHandler, ResourceHandler, SandboxContext, SandboxRequest } from '../handler.js';
import { deleteReply, fail, intParam, oneReply, optionalInt, optionalString, RecordError, writeEach } from '../kit.js';
import { exportFromStore, intQuery } from '../exports.js';
import type { StoredRecord } from '../store.js';
import { seedSliders } from '../seed/sliders.js';
import { languageParam, languagesInput, mergeLanguages, onlyLanguage } from './content/languages.js';
import { dateOrNull, flagValue, pathId, recordFromPath } from './content/values.js';

export const SLIDERS = 'sliders';
const ENTITY_TYPES = ['category', 'content', 'news'] as const;
const LANGUAGE_FIELDS = ['title', 'description', 'direction', 'width', 'image', 'image_mobile', 'video', 'video_mobile'] as const;

function applyFields(ctx: SandboxContext, record: Record<string, unknown>, slide: Record<string, unknown>): void {
  if (record.slider_status !== undefined) slide.slider_status = flagValue(record, 'slider_status');
  if (record.sort_order !== undefined) slide.sort_order = optionalInt(record, 'sort_order');
  if (record.entity_type !== undefined) {
    if (record.entity_type !== null && !(ENTITY_TYPES as readonly unknown[]).includes(record.entity_type)) {
      throw new RecordError('INVALID_PAYLOAD', `entity_type must be one of ${ENTITY_TYPES.join(', ')}, got ${JSON.stringify(record.entity_type)}`, 'entity_type');
    }
    slide.entity_type = record.entity_type;
  }
  if (record.entity_id !== undefined) slide.entity_id = optionalInt(record, 'entity_id') ?? null;
  if (record.target !== undefined) slide.target = optionalString(record, 'target') ?? '';
  if (record.type !== undefined) {
    const type = optionalInt(record, 'type') ?? 0;
    if (type < 0) throw new RecordError('INVALID_PAYLOAD', 'type must be 0 (image), 1 (video) or another slide type >= 0', 'type');
    slide.type = type;
  }
  if ('date_from' in record) slide.date_from = dateOrNull(record, 'date_from');
  if ('date_till' in record) slide.date_till = dateOrNull(record, 'date_till');
  if (record.shop_ids !== undefined) slide.shop_ids = optionalString(record, 'shop_ids') ?? '';
  const languages = languagesInput(record, ctx);
  if (languages) {
    for (const [code, block] of Object.entries(languages)) {
      if (block.width !== undefined && !(typeof block.width === 'number' && Number.isInteger(block.width))) {
        throw new RecordError('INVALID_PAYLOAD', `languages.${code}.width must be an integer`, `languages.${code}.width`);
      }
    }
    slide.languages = mergeLanguages(slide.languages as Record<string, Record<string, unknown>> | undefined, languages, LANGUAGE_FIELDS);
  }
}

const create: OperationHandler = (ctx, req) => {
  return writeEach(ctx, req, 'create', (record) => {
    const given = optionalInt(record, 'slider_id');
    if (given !== undefined && ctx.store.has(SLIDERS, given)) throw new RecordError('Already exists', `Slider ${given} already exists (use PUT)`, 'slider_id', { slider_id: given }, 409);
    const slide: Record<string, unknown> = {
      slider_status: 1, sort_order: 0, entity_type: null, entity_id: null, target: '', type: 0, date_from: null, date_till: null, shop_ids: '', languages: {},
      date_added: ctx.timestamp(),
    };
    applyFields(ctx, record, slide);
    const id = ctx.store.insert(SLIDERS, 'slider_id', { ...(given !== undefined ? { slider_id: given } : {}), ...slide });
    return { slider_id: id };
  });
};

const update: OperationHandler = (ctx, req) => {
  return writeEach(ctx, req, 'update', (record, scope) => {
    const raw = record.slider_id;
    if (raw === undefined || raw === null || raw === '' || raw === 0) throw new RecordError('MISSING_ID', `slider_id is required on update (record ${scope.index})`, 'slider_id', undefined, 400);
    const id = optionalInt(record, 'slider_id') as number;
    const slide = ctx.store.get(SLIDERS, id);
    if (!slide) throw new RecordError('Not found', `Slider ${id} does not exist`, 'slider_id', { slider_id: id });
    applyFields(ctx, record, slide);
    slide.last_modified = ctx.timestamp();
    ctx.store.put(SLIDERS, id, slide);
    return { slider_id: id };
  });
};

function listing(ctx: SandboxContext, req: SandboxRequest, range?: { from: number; to: number }) {
  const language = languageParam(ctx, req.query.language);
  const categoryId = intQuery(req.query, 'categories_id');
  const contentId = intQuery(req.query, 'content_id');
  return exportFromStore(ctx, req, {
    manualParams: ['categories_id', 'content_id', 'language'],
    idFrom: range?.from,
    idTo: range?.to,
    keep: (r) =>
      (categoryId === undefined || (r.entity_type === 'category' && r.entity_id === categoryId)) &&
      (contentId === undefined || (r.entity_type === 'content' && r.entity_id === contentId)),
    view: (r: StoredRecord) => ({ ...r, languages: onlyLanguage(r.languages as Record<string, unknown>, language) }),
  });
}

const exportOne: OperationHandler = (ctx, req) => {
  const record = recordFromPath(ctx, req, SLIDERS, 'Slider');
  return oneReply(req.resource, record);
};

/** `/export/json/sliders/{from}:{to}`: slides with ids in the range (both ends included). */
const range: OperationHandler = (ctx, req) => {
  const from = intParam(req.params.start, 'from');
  const to = intParam(req.params.end, 'to');
  if (from > to) fail(400, 'INVALID_PAYLOAD', `The range ${from}:${to} is empty; from must be <= to`);
  return listing(ctx, req, { from, to });
};

const deleteOne: OperationHandler = (ctx, req) => {
  const id = pathId(req);
  if (!ctx.store.delete(SLIDERS, id)) fail(404, 'Not found', `Slider ${id} does not exist`);
  return deleteReply(req.resource, [id]);
};

/** The sandbox handler of sliders (registered in handlers/index.ts). */
export const slidersHandler: ResourceHandler = {
  seed(ctx, kind) {
    if (kind === 'demo') seedSliders(ctx);
  },
  export: (ctx, req) => listing(ctx, req),
  exportOne,
  range,
  create,
  update,
  delete: deleteOne,
};
