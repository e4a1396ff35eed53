/** Product create (POST) and update (PUT), record by record (spec: Products import rules 1-12). */
import type { SandboxContext, SandboxReply, SandboxRequest } from '../../handler.js';
import { phpInt, RecordError, writeEach, type RecordScope } from '../../kit.js';
import { applyCustomerPrices, applyGroups, applySpecials } from './prices.js';
import { applyCategories, applyContentEditor, applyImages, applyLanguages, applyPlainList, applySuppliers, applyUpsells, PLAIN_LISTS } from './relations.js';
import { applyScalars, productDefaults } from './scalars.js';
import { applyStorages } from './storages.js';
import { applyOptions } from './options.js';
import { recordSeoNameChanges } from '../seohistory.js';

type Entry = Record<string, unknown>;

/** Find a product by products_id, else products_model; undefined when neither matches. */
export function findProduct(ctx: SandboxContext, input: Entry): Entry | undefined {
  if (input.products_id !== undefined && input.products_id !== null && input.products_id !== '') return ctx.store.get('products', phpInt(input.products_id));
  if (typeof input.products_model === 'string' && input.products_model !== '') {
    const ids = ctx.store.findIds('products', 'products_model', input.products_model);
    return ids.length > 0 ? ctx.store.get('products', ids[0]) : undefined;
  }
  return undefined;
}

function modelOwner(ctx: SandboxContext, model: unknown): number | undefined {
  if (typeof model !== 'string' || model === '') return undefined;
  return ctx.store.findIds('products', 'products_model', model)[0];
}

/** Apply every sent field of `input` to `product` (mutates). */
function applyAll(ctx: SandboxContext, product: Entry, input: Entry, creating: boolean, scope: RecordScope): void {
  applyScalars(product, input, scope);
  if ('languages' in input || creating) applyLanguages(ctx, product, input.languages, creating, scope);
  if ('images' in input) applyImages(ctx, product, input.images, scope);
  if ('categories' in input) applyCategories(ctx, product, input.categories, scope);
  if ('groups' in input) applyGroups(ctx, product, input.groups, scope);
  else if ('products_tax_class_id' in input) applyGroups(ctx, product, [], scope);
  if ('customers_prices' in input) applyCustomerPrices(ctx, product, input.customers_prices, input.customers_prices_replace === true, scope);
  if ('specials' in input) applySpecials(product, input.specials, scope);
  if ('upsells' in input) applyUpsells(ctx, product, input.upsells);
  if ('suppliers' in input) applySuppliers(ctx, product, input.suppliers, scope);
  // Before storages: a storage row of the same request may name a SKU this import creates.
  if ('options' in input) applyOptions(ctx, product, input.options, scope);
  if ('storages' in input) applyStorages(ctx, product, input.storages, scope);
  for (const field of PLAIN_LISTS) if (field in input) applyPlainList(product, field, input[field]);
  if ('contenteditor' in input) applyContentEditor(product, input.contenteditor);
}

function createOne(ctx: SandboxContext, input: Entry, scope: RecordScope): Entry {
  if (input.products_id !== undefined && input.products_id !== null) {
    const id = phpInt(input.products_id);
    if (id <= 0) throw new RecordError('INVALID_PAYLOAD', 'products_id must be a positive integer', 'products_id');
    if (ctx.store.has('products', id)) throw new RecordError('Already exists', `Product ${id} already exists; use PUT to change it`, 'products_id', { products_id: id });
  }
  const owner = modelOwner(ctx, input.products_model);
  if (owner !== undefined) throw new RecordError('Already exists', `A product with products_model ${String(input.products_model)} already exists (products_id ${owner}); use PUT to change it`, 'products_model', { products_id: owner });
  const id = input.products_id !== undefined && input.products_id !== null ? phpInt(input.products_id) : ctx.store.nextId('products');
  const now = ctx.timestamp();
  const product: Entry = {
    products_id: id,
    ...productDefaults(ctx.settings().WARRANTY_PERIOD_DEFAULT ?? '24'),
    languages: {},
    images: [],
    categories: [],
    groups: [],
    customers_prices: [],
    specials: [],
    upsells: [],
    suppliers: [],
    storages: [],
    extra_fields: [],
    badges: [],
    xsells: [],
    tabs: [],
    videos: [],
    downloads: [],
    options: {},
    option_groups: [],
    contenteditor: {},
    products_date_added: now,
    products_last_modified: now,
  };
  applyAll(ctx, product, input, true, scope);
  ctx.store.put('products', id, product);
  return { products_id: id, products_model: product.products_model };
}

function updateOne(ctx: SandboxContext, input: Entry, scope: RecordScope): Entry {
  const hasId = input.products_id !== undefined && input.products_id !== null && input.products_id !== '';
  if (!hasId && (typeof input.products_model !== 'string' || input.products_model === '')) {
    throw new RecordError('MISSING_ID', 'A product update needs products_id or products_model', 'products_id');
  }
  const stored = findProduct(ctx, input);
  if (!stored) {
    const what = hasId ? `products_id ${String(input.products_id)}` : `products_model ${String(input.products_model)}`;
    throw new RecordError('Not found', `No product with ${what}`, hasId ? 'products_id' : 'products_model');
  }
  const id = stored.products_id as number;
  if (hasId && 'products_model' in input) {
    const owner = modelOwner(ctx, input.products_model);
    if (owner !== undefined && owner !== id) throw new RecordError('Already exists', `products_model ${String(input.products_model)} belongs to product ${owner}`, 'products_model', { products_id: owner });
  }
  const product: Entry = { ...stored };
  const { products_id: _ignored, ...rest } = input;
  const languagesBefore = structuredClone(stored.languages);
  applyAll(ctx, product, rest, false, scope);
  recordSeoNameChanges(ctx, 'p', id, languagesBefore, product.languages);
  product.products_id = id;
  product.products_last_modified = ctx.timestamp();
  ctx.store.put('products', id, product);
  return { products_id: id, products_model: product.products_model };
}

/** POST /import/json/products. */
export function createProducts(ctx: SandboxContext, req: SandboxRequest): SandboxReply {
  return writeEach(ctx, req, 'create', (record, scope) => createOne(ctx, record, scope));
}

/** PUT /import/json/products. */
export function updateProducts(ctx: SandboxContext, req: SandboxRequest): SandboxReply {
  return writeEach(ctx, req, 'update', (record, scope) => updateOne(ctx, record, scope));
}
