/**
 * SEO history: old SEO paths that redirect (301) to their entity. Besides the API, the handlers of
 * news, products, categories and manufacturers call `recordSeoNameChanges` when an update changes
 * a seo_name.
 */
import type { OperationHandler, ResourceHandler, SandboxContext } from '../handler.js';
import { deleteReply, fail, isRecord, oneReply, optionalInt, RecordError, requireInt, writeEach, type RecordScope } from '../kit.js';
import { exportFromStore } from '../exports.js';
import type { StoredRecord } from '../store.js';
import { seedSeoHistory } from '../seed/seohistory.js';
import { languageParam, languagesInput, onlyLanguage } from './content/languages.js';
import { addMonths } from '../dates.js';
import { datetimeOrNull, pathId, recordFromPath, recordToUpdate } from './content/values.js';

export const SEOHISTORY = 'seohistory';
const TYPES = ['c', 's', 'm', 'p', 'n', 'o'] as const;
/** Entity type of an SEO history entry: c category, s CMS, m manufacturer, p product, n news, o other. */
export type SeoType = (typeof TYPES)[number];
/** Column length of sh_seo_string. */
export const SEO_STRING_MAX = 255;

interface SeoEntry {
  sh_id: number;
  sh_base_id: number;
  sh_base_type: SeoType;
  sh_item_id: number;
  sh_item_type: SeoType;
  sh_deletestamp: string;
  sh_date_added: string;
  languages: Record<string, { sh_seo_string: string }>;
}

/** The default deletion time: one year after creation. */
export function defaultDeletestamp(created: string): string {
  return `${addMonths(created.slice(0, 10), 12)}${created.slice(10)}`;
}

function typeValue(record: Record<string, unknown>, field: string, required: boolean): SeoType | undefined {
  const v = record[field];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || !(TYPES as readonly string[]).includes(v)) {
    throw new RecordError('INVALID_PAYLOAD', `${field} must be one of ${TYPES.join(', ')}, got ${JSON.stringify(v)}`, field);
  }
  return v as SeoType;
}

function seoStrings(ctx: SandboxContext, record: Record<string, unknown>, scope: RecordScope): Record<string, { sh_seo_string: string }> | undefined {
  const langs = languagesInput(record, ctx);
  if (!langs) return undefined;
  const out: Record<string, { sh_seo_string: string }> = {};
  for (const [code, block] of Object.entries(langs)) {
    const v = block.sh_seo_string;
    const field = `languages.${code}.sh_seo_string`;
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.trim() === '') throw new RecordError('INVALID_PAYLOAD', `${field} must be a non-empty string`, field);
    let text = v.trim();
    if (/^https?:\/\//i.test(text)) throw new RecordError('INVALID_PAYLOAD', `${field} is a path without domain, got ${JSON.stringify(v)}`, field);
    if (text.startsWith('/')) {
      text = text.replace(/^\/+/, '');
      scope.warn('SEO_STRING_NORMALIZED', `${field}: leading slash removed`, field);
    }
    if (text.length > SEO_STRING_MAX) throw new RecordError('INVALID_PAYLOAD', `${field} is ${text.length} characters; at most ${SEO_STRING_MAX}`, field, { max: SEO_STRING_MAX });
    out[code] = { sh_seo_string: text };
  }
  return out;
}

const create: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'create', (record, scope) => {
    const given = optionalInt(record, 'sh_id');
    if (given !== undefined && ctx.store.has(SEOHISTORY, given)) throw new RecordError('Already exists', `SEO history entry ${given} already exists (use PUT)`, 'sh_id', { sh_id: given });
    const baseId = requireInt(record, 'sh_base_id');
    const baseType = typeValue(record, 'sh_base_type', true) as SeoType;
    const languages = seoStrings(ctx, record, scope);
    if (!languages || Object.keys(languages).length === 0) throw new RecordError('INVALID_PAYLOAD', 'languages{code:{sh_seo_string}} needs at least one SEO string', 'languages');
    const now = ctx.timestamp();
    const entry: Omit<SeoEntry, 'sh_id'> = {
      sh_base_id: baseId,
      sh_base_type: baseType,
      sh_item_id: optionalInt(record, 'sh_item_id') ?? baseId,
      sh_item_type: typeValue(record, 'sh_item_type', false) ?? baseType,
      sh_deletestamp: (record.sh_deletestamp !== undefined ? datetimeOrNull(record, 'sh_deletestamp') : null) ?? defaultDeletestamp(now),
      sh_date_added: now,
      languages,
    };
    const id = ctx.store.insert(SEOHISTORY, 'sh_id', { ...(given !== undefined ? { sh_id: given } : {}), ...entry });
    return { sh_id: id, sh_deletestamp: entry.sh_deletestamp };
  });

const update: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'update', (record, scope) => {
    const { id, stored: entry } = recordToUpdate<SeoEntry>(ctx, record, SEOHISTORY, 'sh_id', 'SEO history entry');
    if (record.sh_base_id !== undefined) entry.sh_base_id = requireInt(record, 'sh_base_id');
    entry.sh_base_type = typeValue(record, 'sh_base_type', false) ?? entry.sh_base_type;
    if (record.sh_item_id !== undefined) entry.sh_item_id = requireInt(record, 'sh_item_id');
    entry.sh_item_type = typeValue(record, 'sh_item_type', false) ?? entry.sh_item_type;
    if (record.sh_deletestamp !== undefined) entry.sh_deletestamp = datetimeOrNull(record, 'sh_deletestamp') ?? defaultDeletestamp(entry.sh_date_added);
    const languages = seoStrings(ctx, record, scope);
    if (languages) entry.languages = { ...entry.languages, ...languages };
    ctx.store.put(SEOHISTORY, id, entry as unknown as StoredRecord);
    return { sh_id: id };
  });

function view(language: ReturnType<typeof languageParam>) {
  return (r: StoredRecord) => {
    const e = r as unknown as SeoEntry;
    return { ...e, languages: onlyLanguage(e.languages, language) };
  };
}

const exportAll: OperationHandler = (ctx, req) => {
  const language = languageParam(ctx, req.query.language);
  return exportFromStore(ctx, req, {
    manualParams: ['language'],
    keep: (r) => !language || language.code in ((r as unknown as SeoEntry).languages ?? {}),
    view: view(language),
  });
};

const exportOne: OperationHandler = (ctx, req) => {
  const record = recordFromPath(ctx, req, SEOHISTORY, 'SEO history entry');
  return oneReply(req.resource, view(undefined)(record));
};

const deleteOne: OperationHandler = (ctx, req) => {
  const id = pathId(req);
  if (!ctx.store.delete(SEOHISTORY, id)) fail(404, 'Not found', `SEO history entry ${id} does not exist`);
  return deleteReply(req.resource, [id]);
};

/** Bulk delete: body `{sh_id:[...]}`, or `expired=1`, or `type` + `base_id` (query or body). */
const bulkDelete: OperationHandler = (ctx, req) => {
  const body = isRecord(req.body) ? req.body : {};
  const pick = (k: string): unknown => req.query[k] ?? body[k];
  let ids: number[];
  if (Array.isArray(body.sh_id)) {
    ids = body.sh_id.map((v) => (typeof v === 'number' && Number.isInteger(v) ? v : fail(400, 'INVALID_PAYLOAD', `sh_id must hold integer ids, got ${JSON.stringify(v)}`)));
    const missing = ids.filter((id) => !ctx.store.has(SEOHISTORY, id));
    ids = ids.filter((id) => !missing.includes(id));
    for (const id of ids) ctx.store.delete(SEOHISTORY, id);
    return { status: 200, body: { ...(deleteReply(req.resource, ids).body as object), not_found: missing } };
  }
  const expired = pick('expired');
  const type = pick('type');
  const baseId = pick('base_id');
  if (expired === '1' || expired === 1 || expired === true) {
    const now = ctx.timestamp();
    ids = ctx.store.list(SEOHISTORY, { where: [{ field: 'sh_deletestamp', op: '<=', value: now }] }).records.map((r) => r.sh_id as number);
  } else if (type !== undefined && baseId !== undefined) {
    if (typeof type !== 'string' || !(TYPES as readonly string[]).includes(type)) fail(400, 'INVALID_PAYLOAD', `type must be one of ${TYPES.join(', ')}`);
    const base = Number(baseId);
    if (!Number.isInteger(base)) fail(400, 'INVALID_PAYLOAD', `base_id must be an integer, got ${JSON.stringify(baseId)}`);
    ids = ctx.store.list(SEOHISTORY, { where: [{ field: 'sh_base_type', op: '=', value: type }, { field: 'sh_base_id', op: '=', value: base }] }).records.map((r) => r.sh_id as number);
  } else {
    return fail(400, 'INVALID_PAYLOAD', 'Bulk delete needs body {sh_id:[...]}, or expired=1, or type and base_id');
  }
  for (const id of ids) ctx.store.delete(SEOHISTORY, id);
  return deleteReply(req.resource, ids);
};

/** What changed: an entity's SEO name in one language. */
export interface SeoNameChange {
  readonly type: SeoType;
  readonly baseId: number;
  /** Language code of the changed name. */
  readonly language: string;
  /** The SEO path that stops being current (without domain and leading slash). */
  readonly oldSeoName: string;
  readonly newSeoName: string;
}

/**
 * Record the automatic 301 entry for a changed seo_name. Nothing happens when the name did not
 * change or was empty; an entry that already holds the old path is renewed instead of duplicated,
 * and an entry for the new (now current again) path is removed so it does not redirect to itself.
 * Returns the sh_id written, or undefined.
 */
export function recordSeoRedirect(ctx: SandboxContext, change: SeoNameChange): number | undefined {
  const oldName = change.oldSeoName.replace(/^\/+/, '').trim().slice(0, SEO_STRING_MAX);
  const newName = change.newSeoName.replace(/^\/+/, '').trim();
  if (oldName === '' || oldName === newName) return undefined;
  const now = ctx.timestamp();
  const entries = ctx.store
    .list(SEOHISTORY, { where: [{ field: 'sh_base_type', op: '=', value: change.type }, { field: 'sh_base_id', op: '=', value: change.baseId }] })
    .records as unknown as SeoEntry[];
  for (const e of entries) {
    if (e.languages[change.language]?.sh_seo_string === newName) {
      delete e.languages[change.language];
      if (Object.keys(e.languages).length === 0) ctx.store.delete(SEOHISTORY, e.sh_id);
      else ctx.store.put(SEOHISTORY, e.sh_id, e as unknown as StoredRecord);
    }
  }
  const existing = entries.find((e) => e.languages[change.language]?.sh_seo_string === oldName);
  if (existing) {
    existing.sh_deletestamp = defaultDeletestamp(now);
    ctx.store.put(SEOHISTORY, existing.sh_id, existing as unknown as StoredRecord);
    return existing.sh_id;
  }
  return ctx.store.insert(SEOHISTORY, 'sh_id', {
    sh_base_id: change.baseId,
    sh_base_type: change.type,
    sh_item_id: change.baseId,
    sh_item_type: change.type,
    sh_deletestamp: defaultDeletestamp(now),
    sh_date_added: now,
    languages: { [change.language]: { sh_seo_string: oldName } },
  });
}

/**
 * Record the automatic 301 entries of an update: every language whose `seo_name` differs between
 * the language blocks `before` and `after` (`languages{code: {seo_name}}`). Returns the sh_ids written.
 */
export function recordSeoNameChanges(ctx: SandboxContext, type: SeoType, baseId: number, before: unknown, after: unknown): number[] {
  // A shop before 2.13.0 redirected news only ("all five entity types for automatic redirects 2.13.0"): `SANDBOX_SEO_AUTO_REDIRECTS: false` plays one.
  if (type !== 'n' && ctx.settings().SANDBOX_SEO_AUTO_REDIRECTS === 'false') return [];
  const seoName = (blocks: unknown, code: string): unknown => (isRecord(blocks) && isRecord(blocks[code]) ? blocks[code].seo_name : undefined);
  const written: number[] = [];
  for (const language of Object.keys(isRecord(after) ? after : {})) {
    const oldSeoName = seoName(before, language);
    const newSeoName = seoName(after, language);
    if (typeof oldSeoName !== 'string' || typeof newSeoName !== 'string') continue;
    const id = recordSeoRedirect(ctx, { type, baseId, language, oldSeoName, newSeoName });
    if (id !== undefined) written.push(id);
  }
  return written;
}

/** The sandbox handler of seohistory (registered in handlers/index.ts). */
export const seohistoryHandler: ResourceHandler = {
  seed(ctx, kind) {
    if (kind === 'demo') seedSeoHistory(ctx);
  },
  export: exportAll,
  exportOne,
  create,
  update,
  delete: deleteOne,
  bulkDelete,
};
