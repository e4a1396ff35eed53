/** News categories (spec: Endpoints › News; fields not shown, sandbox decision in docs/spec-gaps.md). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { flag01, flagOut, id, languagesOut, languagesWrite, positiveId } from '../schema/common.js';

const languageBlock = { categories_name: z.string().min(1), categories_description: z.string() };

const newsCategoryWrite = z
  .strictObject({
    newsdesk_categories_id: positiveId,
    parent_id: id,
    categories_status: flag01,
    sort_order: z.number().int(),
    languages: languagesWrite(languageBlock),
  })
  .partial();

const newsCategoryRecord = z.looseObject({
  newsdesk_categories_id: z.number(),
  parent_id: z.number().optional(),
  categories_status: flagOut.optional(),
  languages: languagesOut(languageBlock).optional(),
});

export const newsdesk_categories = {
  name: 'newsdesk_categories',
  label: 'News categories',
  key: { id: 'newsdesk_categories_id', alternatives: [], specified: false },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/newsdesk_categories',
      scope: 'news:read',
      paging: { kind: 'limit-offset', defaultLimit: 100, maxLimit: 250 },
      filters: {},
    },
    create: { method: 'POST', path: '/import/json/newsdesk_categories', scope: 'news:write' },
    delete: { method: 'DELETE', path: '/delete/json/newsdesk_categories', scope: 'news:delete', idIn: 'query', param: 'newsdesk_categories_id' },
  },
  lists: {
    languages: { semantics: { kind: 'merge-language' }, specified: false },
  },
  strictBooleans: [],
  lengthLimits: [],
  decimalFields: [],
  schemas: { record: newsCategoryRecord, write: newsCategoryWrite },
  naturalKeys: [{ fields: ['languages.*.categories_name'], scope: ['parent_id'], scopeDefaults: { parent_id: 0 }, enforced: false }],
} as const satisfies ResourceDef;
