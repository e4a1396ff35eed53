/** Manufacturers with the product-safety (GPSR) contact fields (spec: Resources › Manufacturers). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { languagesOut, languagesWrite } from '../schema/common.js';

const languageBlock = {
  manufacturers_description: z.string(),
  manufacturers_url: z.string(),
  manufacturers_meta_title: z.string(),
  manufacturers_meta_description: z.string(),
  manufacturers_meta_keywords: z.string(),
  seo_name: z.string(),
};

const CONTACT_FIELDS = ['company', 'street', 'postcode', 'city', 'country', 'email', 'phone', 'url'] as const;

/** The product-safety contact fields, with the EU and the non-EU prefix. */
export const GPSR_FIELDS: readonly string[] = ['manufacturers_gpsr_contact_', 'manufacturers_gpsr_non_eu_contact_'].flatMap((prefix) => CONTACT_FIELDS.map((f) => `${prefix}${f}`));

const countryCode = z.string().regex(/^([A-Z]{2})?$/, { message: 'expected an ISO country code like DE (or empty)' });

function contactShape(): Record<string, z.ZodType> {
  return Object.fromEntries(GPSR_FIELDS.map((f) => [f, f.endsWith('_country') ? countryCode : z.string()]));
}

const manufacturerWrite = z
  .strictObject({
    manufacturers_id: z.number().int().positive(),
    manufacturers_name: z.string().min(1),
    manufacturers_image: z.string(),
    languages: languagesWrite(languageBlock),
    ...contactShape(),
  })
  .partial();

const manufacturerRecord = z.looseObject({
  manufacturers_id: z.number(),
  manufacturers_name: z.string(),
  manufacturers_image: z.string().nullable().optional(),
  languages: languagesOut(languageBlock).optional(),
});

export const manufacturers = {
  name: 'manufacturers',
  label: 'Manufacturers',
  since: '2.3.0',
  key: { id: 'manufacturers_id', alternatives: [], specified: false },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/manufacturers',
      scope: 'manufacturers:read',
      paging: { kind: 'limit-offset', defaultLimit: 100, maxLimit: 250 },
      filters: { manufacturers_id: { type: 'int', field: 'manufacturers_id' } },
    },
    create: { method: 'POST', path: '/import/json/manufacturers', scope: 'manufacturers:write' },
    update: { method: 'PUT', path: '/import/json/manufacturers', scope: 'manufacturers:write' },
    delete: { method: 'DELETE', path: '/delete/json/manufacturers', scope: 'manufacturers:delete', idIn: 'query', param: 'manufacturers_id' },
  },
  lists: {
    languages: { semantics: { kind: 'merge-language' }, specified: false, note: 'only sent languages and fields are written' },
  },
  strictBooleans: [],
  lengthLimits: [],
  decimalFields: [],
  schemas: { record: manufacturerRecord, write: manufacturerWrite },
  naturalKeys: [{ fields: ['manufacturers_name'], enforced: false }],
  // A renamed manufacturer (same ERP id, new name) keeps its shop id; its old URL is redirected (docs/catalog.md "Renamed articles").
  renames: { number: 'manufacturers_name', seo: { type: 'm', field: 'seo_name' } },
} as const satisfies ResourceDef;
