/** SEO history: old SEO paths redirected (301) to their entity (spec: Resources › SEO history; Endpoints › SEO history). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { datetime, id, languagesOut, languagesWrite, maxString, positiveId } from '../schema/common.js';

/** Entity types: c category, s CMS, m manufacturer, p product, n news, o other. */
export const seoEntityType = z.enum(['c', 's', 'm', 'p', 'n', 'o'], { message: 'expected c, s, m, p, n or o' });

const seoString = maxString(255, 'sh_seo_string').regex(/^[^/]/, { message: 'sh_seo_string has no leading slash' });

const seoWrite = z
  .strictObject({
    sh_id: positiveId,
    sh_base_id: id,
    sh_base_type: seoEntityType,
    sh_item_id: id,
    sh_item_type: seoEntityType,
    sh_deletestamp: datetime,
    languages: languagesWrite({ sh_seo_string: seoString }),
  })
  .partial();

const seoRecord = z.looseObject({
  sh_id: z.number(),
  sh_base_id: z.number(),
  sh_base_type: z.string(),
  sh_item_id: z.number(),
  sh_item_type: z.string(),
  sh_deletestamp: z.string().nullable(),
  languages: languagesOut({ sh_seo_string: z.string() }),
});

export const seohistory = {
  name: 'seohistory',
  label: 'SEO history',
  since: '2.6.0',
  key: { id: 'sh_id', alternatives: [], specified: false },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/seohistory',
      scope: 'seohistory:read',
      paging: { kind: 'limit-offset', defaultLimit: 100, maxLimit: 250 },
      filters: {
        type: { type: 'enum', values: ['p', 'c', 'm', 's', 'n'], field: 'sh_base_type' },
        base_id: { type: 'int', field: 'sh_base_id' },
        language: { type: 'string', note: 'ISO code or language id: only that language block' },
      },
    },
    exportOne: { method: 'GET', path: '/export/json/seohistory/{id}', scope: 'seohistory:read' },
    create: { method: 'POST', path: '/import/json/seohistory', scope: 'seohistory:write' },
    update: { method: 'PUT', path: '/import/json/seohistory', scope: 'seohistory:write' },
    delete: { method: 'DELETE', path: '/delete/json/seohistory/{id}', scope: 'seohistory:delete', idIn: 'path', param: 'sh_id' },
    bulkDelete: { method: 'DELETE', path: '/delete/json/seohistory', scope: 'seohistory:delete', style: 'ids', param: 'sh_id' },
  },
  lists: {
    languages: { semantics: { kind: 'merge-language' }, specified: false },
  },
  strictBooleans: [],
  lengthLimits: [{ path: 'languages.*.sh_seo_string', max: 255, shop: 'unspecified' }],
  decimalFields: [],
  schemas: { record: seoRecord, write: seoWrite },
} as const satisfies ResourceDef;
