/** Categories and the category-to-product list (spec: Resources › Categories; Endpoints › Categories). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { flag01, flagOut, id, languagesOut, languagesWrite } from '../schema/common.js';

/** A language block: the field names of the table plus the import sample's categories_name/categories_heading. */
const languageBlock = {
  name: z.string(),
  heading: z.string(),
  short_description: z.string(),
  description: z.string(),
  title_tag: z.string(),
  desc_tag: z.string(),
  categories_name: z.string(),
  categories_heading: z.string(),
  /** URL slug; a change creates a 301 SEO-history entry (spec: Events, side effects). Not in the spec's field table: docs/spec-gaps.md. */
  seo_name: z.string(),
};

const categoryWrite = z
  .strictObject({
    categories_id: z.number().int().positive(),
    parent_id: id,
    categories_status: flag01,
    /** The import sample's name for categories_status. */
    status: flag01,
    sort_order: z.number().int(),
    languages: languagesWrite(languageBlock),
  })
  .partial();

const categoryRecord = z.looseObject({
  categories_id: z.number(),
  parent_id: z.number(),
  categories_status: flagOut.optional(),
  sort_order: z.number().optional(),
  languages: languagesOut(languageBlock).optional(),
});

/** One entry of the productlist. */
export const categoryProductListRecord = z.looseObject({
  categories_id: z.number(),
  categories_name: z.string(),
  products_count: z.number(),
  products: z.array(z.looseObject({ id: z.number(), model: z.string().nullable() })),
});

export const categories = {
  name: 'categories',
  label: 'Categories',
  key: { id: 'categories_id', alternatives: [], specified: false },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/categories',
      scope: 'categories:read',
      paging: { kind: 'limit-offset', defaultLimit: 100, maxLimit: 250 },
      filters: {
        categories_id: { type: 'int', field: 'categories_id', note: 'one category' },
        parent_id: { type: 'int', field: 'parent_id', note: 'only subcategories of this id' },
      },
    },
    create: { method: 'POST', path: '/import/json/categories', scope: 'categories:write' },
    update: { method: 'PUT', path: '/import/json/categories', scope: 'categories:write' },
    delete: { method: 'DELETE', path: '/delete/json/categories', scope: 'categories:delete', idIn: 'query', param: 'categories_id' },
    extra: {
      productlist: { method: 'GET', path: '/categories/productlist', scope: 'categories:read' },
    },
  },
  lists: {
    languages: { semantics: { kind: 'merge-language' }, specified: false, note: 'only sent languages and fields are written' },
  },
  strictBooleans: [],
  lengthLimits: [],
  decimalFields: [],
  schemas: { record: categoryRecord, write: categoryWrite },
  naturalKeys: [{ fields: ['languages.*.name', 'languages.*.categories_name'], scope: ['parent_id'], scopeDefaults: { parent_id: 0 }, enforced: false }],
  deactivate: { field: 'categories_status', value: 0, specified: true },
} as const satisfies ResourceDef;
