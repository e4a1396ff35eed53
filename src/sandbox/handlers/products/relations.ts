/**
 * Product languages (rule 2), images, categories, upsells (rule 4), suppliers (rule 10) and the
 * lists the spec only names (extra_fields, badges, xsells, tabs, videos, downloads: replace).
 */
import type { SandboxContext } from '../../handler.js';
import { isRecord, phpInt, RecordError, type RecordScope } from '../../kit.js';
import { knownLanguageBlocks } from '../content/languages.js';
import { hasProductImage } from './media.js';

type Entry = Record<string, unknown>;

const LANGUAGE_FIELDS = [
  'products_name', 'products_description', 'products_short_description', 'products_head_title_tag', 'products_head_desc_tag',
  'products_head_keywords_tag', 'seo_name', 'products_url', 'products_checkout_description', 'products_image_title',
] as const;

/** An empty language block. */
function emptyBlock(): Entry {
  return Object.fromEntries(LANGUAGE_FIELDS.map((f) => [f, '']));
}

/** A URL slug from a name. */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/ß/g, 'ss')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** languages{}: merge the sent languages and fields; on create, fill missing languages from the master. */
export function applyLanguages(ctx: SandboxContext, product: Entry, value: unknown, creating: boolean, scope: RecordScope): void {
  const languages = ctx.reference().languages;
  const stored: Record<string, Entry> = { ...((product.languages as Record<string, Entry> | undefined) ?? {}) };
  const sentCodes: string[] = [];
  for (const [code, block] of knownLanguageBlocks(ctx, value, scope)) {
    const merged: Entry = { ...(stored[code] ?? emptyBlock()) };
    for (const f of LANGUAGE_FIELDS) if (f in block) merged[f] = block[f] === null ? '' : String(block[f]);
    stored[code] = merged;
    sentCodes.push(code);
  }
  if (creating) {
    const master = ctx.reference().master_language;
    const source = sentCodes.includes(master) ? stored[master] : sentCodes.length > 0 ? stored[sentCodes[0]] : undefined;
    for (const lang of languages) if (!stored[lang.code]) stored[lang.code] = { ...(source ?? emptyBlock()) };
  }
  for (const block of Object.values(stored)) {
    if (!block.seo_name && typeof block.products_name === 'string' && block.products_name) block.seo_name = slugify(block.products_name);
  }
  product.languages = stored;
}

/**
 * images[]: replaces the gallery; entries are file names or `{image, sort_order, alt}`. A name the
 * shop's image folder does not hold is stored all the same, with a warning (the file may come later).
 */
export function applyImages(ctx: SandboxContext, product: Entry, value: unknown, scope: RecordScope): void {
  if (!Array.isArray(value)) throw new RecordError('INVALID_PAYLOAD', 'images must be an array', 'images');
  value.forEach((raw, i) => {
    const name = typeof raw === 'string' ? raw : isRecord(raw) && typeof raw.image === 'string' ? raw.image : '';
    if (name !== '' && !hasProductImage(ctx, name)) scope.warn('IMAGE_FILE_MISSING', `images[${i}]: ${name} is not in the shop's image folder (upload it with POST /media)`, `images[${i}].image`);
  });
  product.images = value
    .map((raw, i): Entry | undefined => {
      if (typeof raw === 'string') return raw ? { image: raw, sort_order: i + 1, alt: {} } : undefined;
      if (isRecord(raw) && typeof raw.image === 'string' && raw.image) {
        return { image: raw.image, sort_order: raw.sort_order === undefined ? i + 1 : phpInt(raw.sort_order), alt: isRecord(raw.alt) ? raw.alt : {} };
      }
      return undefined;
    })
    .filter((e): e is Entry => e !== undefined);
}

/** categories[]: replaces the assignments; unknown ids are skipped with a warning (0 = top level). */
export function applyCategories(ctx: SandboxContext, product: Entry, value: unknown, scope: RecordScope): void {
  if (!Array.isArray(value)) throw new RecordError('INVALID_PAYLOAD', 'categories must be an array of category ids', 'categories');
  const ids: number[] = [];
  value.forEach((raw, i) => {
    const id = phpInt(isRecord(raw) ? raw.categories_id : raw);
    if (id !== 0 && !ctx.store.has('categories', id)) {
      scope.warn('CATEGORY_NOT_FOUND', `categories[${i}]: category ${String(raw)} does not exist; skipped`, `categories[${i}]`);
      return;
    }
    if (!ids.includes(id)) ids.push(id);
  });
  product.categories = ids;
}

/** upsells[]: replace; self-references and unknown models are skipped silently. */
export function applyUpsells(ctx: SandboxContext, product: Entry, value: unknown): void {
  if (!Array.isArray(value)) throw new RecordError('INVALID_PAYLOAD', 'upsells must be an array', 'upsells');
  const out: Entry[] = [];
  value.forEach((raw, i) => {
    const model = typeof raw === 'string' ? raw : isRecord(raw) && typeof raw.products_model === 'string' ? raw.products_model : undefined;
    if (!model) return;
    if (typeof product.products_model === 'string' && model.toLowerCase() === product.products_model.toLowerCase()) return;
    const ids = ctx.store.findIds('products', 'products_model', model);
    const target = ids.find((id) => id !== product.products_id);
    if (target === undefined) return;
    if (out.some((u) => u.products_id === target)) return;
    out.push({ products_id: target, products_model: model, sort_order: isRecord(raw) && raw.sort_order !== undefined ? phpInt(raw.sort_order) : i + 1 });
  });
  product.upsells = out;
}

/** suppliers[]: replaces all assignments; an entry without products_model has no number. */
export function applySuppliers(ctx: SandboxContext, product: Entry, value: unknown, scope: RecordScope): void {
  if (!Array.isArray(value)) throw new RecordError('INVALID_PAYLOAD', 'suppliers must be an array', 'suppliers');
  const out: Entry[] = [];
  value.forEach((raw, i) => {
    if (!isRecord(raw)) {
      scope.warn('SUPPLIER_INVALID', `suppliers[${i}] must be an object {suppliers_id, products_model}; skipped`, `suppliers[${i}]`);
      return;
    }
    const id = phpInt(raw.suppliers_id);
    if (id <= 0 || !ctx.store.has('suppliers', id)) {
      scope.warn('SUPPLIER_NOT_FOUND', `suppliers[${i}]: supplier ${String(raw.suppliers_id)} does not exist; skipped`, `suppliers[${i}].suppliers_id`);
      return;
    }
    const number = typeof raw.products_model === 'string' || typeof raw.products_model === 'number' ? String(raw.products_model) : null;
    const existing = out.find((s) => s.suppliers_id === id);
    if (existing) existing.products_model = number;
    else out.push({ suppliers_id: id, products_model: number });
  });
  product.suppliers = out;
}

/** Lists whose semantics the spec does not show: stored as sent (replace). */
export const PLAIN_LISTS = ['extra_fields', 'badges', 'xsells', 'tabs', 'videos', 'downloads'] as const;

/** Apply a plain list (replace). */
export function applyPlainList(product: Entry, field: string, value: unknown): void {
  if (!Array.isArray(value)) throw new RecordError('INVALID_PAYLOAD', `${field} must be an array`, field);
  product[field] = value;
}

/** contenteditor{}: merged per language code. */
export function applyContentEditor(product: Entry, value: unknown): void {
  if (!isRecord(value)) throw new RecordError('INVALID_PAYLOAD', 'contenteditor must be an object keyed by language code', 'contenteditor');
  product.contenteditor = { ...((product.contenteditor as Entry | undefined) ?? {}), ...value };
}
