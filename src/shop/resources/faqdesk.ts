/** FAQ entries (spec: Resources › FAQ; Endpoints › FAQ). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { flag01, flagOut, id, languagesOut, languagesWrite, positiveId } from '../schema/common.js';

const languageBlock = { faqdesk_question: z.string(), faqdesk_answer_short: z.string(), faqdesk_answer_long: z.string() };

const faqWrite = z
  .strictObject({
    faqdesk_id: positiveId,
    faqdesk_categories_id: id,
    faqdesk_status: flag01,
    faqdesk_sort_order: z.number().int(),
    languages: languagesWrite(languageBlock),
  })
  .partial();

const faqRecord = z.looseObject({
  faqdesk_id: z.number(),
  faqdesk_categories_id: z.number().optional(),
  faqdesk_status: flagOut.optional(),
  languages: languagesOut(languageBlock).optional(),
});

export const faqdesk = {
  name: 'faqdesk',
  label: 'FAQ entries',
  key: { id: 'faqdesk_id', alternatives: [], specified: false },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/faqdesk',
      scope: 'faq:read',
      paging: { kind: 'limit-offset', defaultLimit: 100, maxLimit: 250 },
      filters: {
        faqdesk_id: { type: 'int', field: 'faqdesk_id', note: 'one entry' },
        faqdesk_categories_id: { type: 'int', field: 'faqdesk_categories_id' },
      },
    },
    create: { method: 'POST', path: '/import/json/faqdesk', scope: 'faq:write' },
    update: { method: 'PUT', path: '/import/json/faqdesk', scope: 'faq:write' },
    delete: { method: 'DELETE', path: '/delete/json/faqdesk', scope: 'faq:delete', idIn: 'query', param: 'faqdesk_id' },
  },
  lists: {
    languages: { semantics: { kind: 'merge-language' }, specified: false },
  },
  strictBooleans: [],
  lengthLimits: [],
  decimalFields: [],
  schemas: { record: faqRecord, write: faqWrite },
} as const satisfies ResourceDef;
