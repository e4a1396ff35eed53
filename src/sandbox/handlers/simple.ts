/**
 * A table-driven handler for flat resources (scalars + a `languages{}` block): manufacturers,
 * suppliers, categories. POST creates (an id already used answers `Already exists`), PUT updates
 * by the id field (`MISSING_ID`, `Not found`), only sent fields are written, unknown fields are
 * ignored, `languages{}` merges per language and field, a changed `seo_name` leaves a 301 entry in
 * the SEO history. Reusable by any similar resource.
 */
import type { ResourceHandler, SandboxContext, SandboxRequest } from '../handler.js';
import { deleteReply, fail, phpDeleteId, phpInt, RecordError, type RecordScope, writeEach } from '../kit.js';
import { exportFromStore } from '../exports.js';
import type { StoredRecord } from '../store.js';
import { recordSeoNameChanges, type SeoType } from './seohistory.js';
import { knownLanguageBlocks } from './content/languages.js';

/** How a scalar field is read. `country`: an ISO code, upper-cased. */
export type FieldKind = 'string' | 'int' | 'flag' | 'country';

/** Configuration of a simple resource. */
export interface SimpleResourceConfig {
  readonly resource: string;
  readonly idField: string;
  readonly fields: Readonly<Record<string, FieldKind>>;
  /** Other names the shop accepts for a field (`status` -> `categories_status`). */
  readonly aliases?: Readonly<Record<string, string>>;
  readonly languageFields: readonly string[];
  /** Aliases inside a language block (`categories_name` -> `name`). */
  readonly languageAliases?: Readonly<Record<string, string>>;
  /** Fields a POST must carry. */
  readonly required: readonly string[];
  readonly defaults: Readonly<Record<string, unknown>>;
  /** Extra checks after the fields are applied (throw RecordError to refuse). */
  readonly validate?: (ctx: SandboxContext, record: StoredRecord, creating: boolean, scope: RecordScope) => void;
  /** Cascade when a record is deleted (inside the transaction). */
  readonly onDelete?: (ctx: SandboxContext, id: number) => void;
  /** Export projection. */
  readonly view?: (ctx: SandboxContext, record: StoredRecord) => Record<string, unknown>;
  /** SEO history type: an update that changes a language's `seo_name` records a 301 entry. */
  readonly seoType?: SeoType;
}

function readField(kind: FieldKind, field: string, value: unknown): unknown {
  if (value === null) return kind === 'int' || kind === 'flag' ? 0 : '';
  switch (kind) {
    case 'int':
    case 'flag': {
      if (typeof value === 'boolean') return value ? 1 : 0;
      if (typeof value === 'number' || (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value))) {
        const n = phpInt(value);
        return kind === 'flag' ? (n ? 1 : 0) : n;
      }
      throw new RecordError('INVALID_PAYLOAD', `${field} must be an integer, got ${JSON.stringify(value)}`, field);
    }
    case 'country':
      if (typeof value !== 'string') throw new RecordError('INVALID_PAYLOAD', `${field} must be a country code, got ${JSON.stringify(value)}`, field);
      return value.trim().toUpperCase();
    default:
      if (typeof value === 'string') return value;
      if (typeof value === 'number') return String(value);
      throw new RecordError('INVALID_PAYLOAD', `${field} must be a string, got ${JSON.stringify(value)}`, field);
  }
}

/** Write sent scalars and languages of `input` into `record`. */
export function applySimpleFields(ctx: SandboxContext, config: SimpleResourceConfig, record: StoredRecord, input: Record<string, unknown>, scope: RecordScope): void {
  for (const [key, value] of Object.entries(input)) {
    const field = config.aliases?.[key] ?? key;
    if (field === config.idField || !(field in config.fields)) continue;
    // The canonical name wins over an alias sent in the same record.
    if (field !== key && field in input) continue;
    record[field] = readField(config.fields[field], field, value);
  }
  if ('languages' in input) {
    const stored: Record<string, Record<string, unknown>> = { ...((record.languages as Record<string, Record<string, unknown>> | undefined) ?? {}) };
    for (const [code, block] of knownLanguageBlocks(ctx, input.languages ?? null, scope)) {
      const merged = { ...(stored[code] ?? Object.fromEntries(config.languageFields.map((f) => [f, '']))) };
      for (const [key, value] of Object.entries(block)) {
        const field = config.languageAliases?.[key] ?? key;
        if (!config.languageFields.includes(field)) continue;
        if (field !== key && field in block) continue;
        merged[field] = value === null ? '' : String(value);
      }
      stored[code] = merged;
    }
    record.languages = stored;
  }
}

/** Build the handler of a simple resource. */
export function simpleHandler(config: SimpleResourceConfig, extra: Partial<ResourceHandler> = {}): ResourceHandler {
  const view = (ctx: SandboxContext, r: StoredRecord) => (config.view ? config.view(ctx, r) : r);
  const hasValue = (v: unknown) => v !== undefined && v !== null && v !== '';
  return {
    export: (ctx, req) => exportFromStore(ctx, req, { view: (r) => view(ctx, r) }),
    create: (ctx, req) =>
      writeEach(ctx, req, 'create', (input, scope) => {
        for (const field of config.required) {
          const present = hasValue(input[field]) || Object.entries(config.aliases ?? {}).some(([alias, target]) => target === field && hasValue(input[alias]));
          if (!present) throw new RecordError('INVALID_PAYLOAD', `${field} is required`, field);
        }
        let id: number | undefined;
        if (hasValue(input[config.idField])) {
          id = phpInt(input[config.idField]);
          if (id <= 0) throw new RecordError('INVALID_PAYLOAD', `${config.idField} must be a positive integer`, config.idField);
          if (ctx.store.has(config.resource, id)) throw new RecordError('Already exists', `${config.idField} ${id} already exists; use PUT to change it`, config.idField, { [config.idField]: id });
        }
        id ??= ctx.store.nextId(config.resource);
        const now = ctx.timestamp();
        const record: StoredRecord = { [config.idField]: id, ...config.defaults, languages: {}, date_added: now, last_modified: now };
        applySimpleFields(ctx, config, record, input, scope);
        config.validate?.(ctx, record, true, scope);
        ctx.store.put(config.resource, id, record);
        return { [config.idField]: id };
      }),
    update: (ctx, req) =>
      writeEach(ctx, req, 'update', (input, scope) => {
        if (!hasValue(input[config.idField])) throw new RecordError('MISSING_ID', `An update needs ${config.idField}`, config.idField);
        const id = phpInt(input[config.idField]);
        const stored = ctx.store.get(config.resource, id);
        if (!stored) throw new RecordError('Not found', `No record with ${config.idField} ${String(input[config.idField])}`, config.idField);
        const record: StoredRecord = { ...stored };
        applySimpleFields(ctx, config, record, input, scope);
        config.validate?.(ctx, record, false, scope);
        if (config.seoType) recordSeoNameChanges(ctx, config.seoType, id, stored.languages, record.languages);
        record.last_modified = ctx.timestamp();
        ctx.store.put(config.resource, id, record);
        return { [config.idField]: id };
      }),
    delete: (ctx, req) => simpleDelete(ctx, req, config),
    ...extra,
  };
}

/** Delete by the id field (query, or body as a courtesy); 404 `Not found` for an unknown id. */
export function simpleDelete(ctx: SandboxContext, req: SandboxRequest, config: SimpleResourceConfig) {
  const { id, raw } = phpDeleteId(req, config.idField, { path: true });
  if (!ctx.store.has(config.resource, id)) fail(404, 'Not found', `No record with ${config.idField} ${String(raw)}`);
  config.onDelete?.(ctx, id);
  ctx.store.delete(config.resource, id);
  return deleteReply(req.resource, [id]);
}
