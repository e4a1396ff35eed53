/** Sliders (slides) (spec: Resources › Sliders; Endpoints › Sliders). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { date, flag01, flagOut, id, languagesOut, languagesWrite, positiveId } from '../schema/common.js';

const languageBlock = {
  title: z.string(),
  description: z.string(),
  direction: z.string(),
  width: z.number().int(),
  image: z.string(),
  image_mobile: z.string(),
  video: z.string(),
  video_mobile: z.string(),
};

/** categories_id/content_id are left out: shops from 4.8 on ignore them (entity_type/entity_id instead). */
const sliderWrite = z
  .strictObject({
    slider_id: positiveId,
    slider_status: flag01,
    sort_order: z.number().int(),
    entity_type: z.enum(['category', 'content', 'news'], { message: 'entity_type is category, content or news' }),
    entity_id: id,
    target: z.string(),
    type: z.number().int().nonnegative(),
    date_from: date.nullable(),
    date_till: date.nullable(),
    shop_ids: z.string(),
    languages: languagesWrite(languageBlock),
  })
  .partial();

const sliderRecord = z.looseObject({
  slider_id: z.number(),
  slider_status: flagOut.optional(),
  entity_type: z.string().nullable().optional(),
  entity_id: z.number().nullable().optional(),
  type: z.number().optional(),
  languages: languagesOut(languageBlock).optional(),
});

export const sliders = {
  name: 'sliders',
  label: 'Sliders',
  since: '2.22.0',
  writeType: 'slider',
  key: { id: 'slider_id', alternatives: [], specified: true },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/sliders',
      scope: 'slider:read',
      paging: { kind: 'limit-offset', defaultLimit: 100, maxLimit: 250 },
      filters: {
        status: { type: 'flag', values: [0, 1], field: 'slider_status' },
        type: { type: 'int', field: 'type' },
        categories_id: { type: 'int', field: 'entity_id', note: 'entity_type=category' },
        content_id: { type: 'int', field: 'entity_id', note: 'entity_type=content' },
        language: { type: 'string', note: 'de|en, ISO code or language_id: only that language block' },
      },
    },
    exportOne: { method: 'GET', path: '/export/json/slider/{id}', scope: 'slider:read' },
    range: { method: 'GET', path: '/export/json/sliders/{start}:{end}', scope: 'slider:read' },
    create: { method: 'POST', path: '/import/json/slider', scope: 'slider:write' },
    update: { method: 'PUT', path: '/import/json/slider', scope: 'slider:write' },
    delete: { method: 'DELETE', path: '/delete/json/slider/{id}', scope: 'slider:delete', idIn: 'path', param: 'slider_id' },
  },
  lists: {
    languages: { semantics: { kind: 'merge-language' }, specified: false },
  },
  strictBooleans: [],
  lengthLimits: [],
  decimalFields: [],
  schemas: { record: sliderRecord, write: sliderWrite },
} as const satisfies ResourceDef;
