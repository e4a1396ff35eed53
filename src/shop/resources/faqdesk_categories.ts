/** FAQ categories (spec: Endpoints › FAQ; fields not shown, sandbox decision in docs/spec-gaps.md). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { flag01, flagOut, id, languagesOut, languagesWrite, positiveId } from '../schema/common.js';

const languageBlock = { categories_name: z.string().min(1), categories_description: z.string() };

const faqCategoryWrite = z
  .strictObject({
    faqdesk_categories_id: positiveId,
    parent_id: id,
    categories_status: flag01,
    sort_order: z.number().int(),
    languages: languagesWrite(languageBlock),
  })
  .partial();

const faqCategoryRecord = z.looseObject({
  faqdesk_categories_id: z.number(),
  parent_id: z.number().optional(),
  categories_status: flagOut.optional(),
  languages: languagesOut(languageBlock).optional(),
});

export const faqdesk_categories = {
  name: 'faqdesk_categories',
  label: 'FAQ categories',
  key: { id: 'faqdesk_categories_id', alternatives: [], specified: false },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/faqdesk_categories',
      scope: 'faq:read',
      paging: { kind: 'limit-offset', defaultLimit: 100, maxLimit: 250 },
      filters: {},
    },
    create: { method: 'POST', path: '/import/json/faqdesk_categories', scope: 'faq:write' },
    delete: { method: 'DELETE', path: '/delete/json/faqdesk_categories', scope: 'faq:delete', idIn: 'query', param: 'faqdesk_categories_id' },
  },
  lists: {
    languages: { semantics: { kind: 'merge-language' }, specified: false },
  },
  strictBooleans: [],
  lengthLimits: [],
  decimalFields: [],
  schemas: { record: faqCategoryRecord, write: faqCategoryWrite },
  naturalKeys: [{ fields: ['languages.*.categories_name'], scope: ['parent_id'], scopeDefaults: { parent_id: 0 }, enforced: false }],
} as const satisfies ResourceDef;
