/** Suppliers (spec: Resources › Suppliers; Endpoints › Suppliers). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { languagesOut, languagesWrite } from '../schema/common.js';

const languageBlock = { suppliers_info: z.string() };

const supplierWrite = z
  .strictObject({
    suppliers_id: z.number().int().positive(),
    suppliers_name: z.string().min(1),
    suppliers_street: z.string(),
    suppliers_postcode: z.string(),
    suppliers_city: z.string(),
    suppliers_country: z.string().regex(/^([A-Z]{2})?$/, { message: 'suppliers_country is an ISO country code like DE' }),
    suppliers_email: z.union([z.email({ message: 'expected an e-mail address' }), z.literal('')]),
    suppliers_phone: z.string(),
    suppliers_fax: z.string(),
    suppliers_url: z.string(),
    languages: languagesWrite(languageBlock),
  })
  .partial();

const supplierRecord = z.looseObject({
  suppliers_id: z.number(),
  suppliers_name: z.string(),
  suppliers_country: z.string().nullable().optional(),
  languages: languagesOut(languageBlock).optional(),
});

export const suppliers = {
  name: 'suppliers',
  label: 'Suppliers',
  key: { id: 'suppliers_id', alternatives: [], specified: false },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/suppliers',
      scope: 'suppliers:read',
      paging: { kind: 'limit-offset', defaultLimit: 100, maxLimit: 250 },
      filters: { suppliers_id: { type: 'int', field: 'suppliers_id' } },
    },
    create: { method: 'POST', path: '/import/json/suppliers', scope: 'suppliers:write' },
    update: { method: 'PUT', path: '/import/json/suppliers', scope: 'suppliers:write' },
    delete: { method: 'DELETE', path: '/delete/json/suppliers', scope: 'suppliers:delete', idIn: 'query', param: 'suppliers_id' },
  },
  lists: {
    languages: { semantics: { kind: 'merge-language' }, specified: false, note: 'only sent languages and fields are written' },
  },
  strictBooleans: [],
  lengthLimits: [],
  decimalFields: [],
  schemas: { record: supplierRecord, write: supplierWrite },
  naturalKeys: [{ fields: ['suppliers_name'], enforced: false }],
} as const satisfies ResourceDef;
