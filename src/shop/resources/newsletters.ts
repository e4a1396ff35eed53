/** Newsletter campaigns, keyed by newsletters_id + language (spec: Resources › Newsletter campaigns; Endpoints › Newsletter campaigns). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { flag01, flagOut, languagesOut, languagesWrite, positiveId } from '../schema/common.js';

const languageBlockWrite = {
  title: z.string().min(1),
  content: z.string(),
  module: z.string(),
  status: flag01,
  locked: flag01,
};

const campaignWrite = z
  .strictObject({
    newsletters_id: positiveId,
    languages: languagesWrite(languageBlockWrite),
  })
  .partial();

const campaignRecord = z.looseObject({
  newsletters_id: z.number(),
  languages: languagesOut({
    language_id: z.number(),
    title: z.string(),
    content: z.string(),
    module: z.string().nullable(),
    status: flagOut,
    locked: flagOut,
    date_added: z.string().nullable(),
    date_sent: z.string().nullable(),
  }),
});

export const newsletters = {
  name: 'newsletters',
  label: 'Newsletter campaigns',
  since: '2.8.0',
  key: { id: 'newsletters_id', alternatives: [], specified: false },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/newsletters',
      scope: 'newsletters:read',
      paging: { kind: 'limit-offset', defaultLimit: 100, maxLimit: 250 },
      filters: {
        status: { type: 'enum', values: [0, 1], note: '0 draft, 1 active; compared per language version (languages.*.status)' },
        language_id: { type: 'int', note: 'only that language version (languages.*.language_id)' },
      },
    },
    exportOne: { method: 'GET', path: '/export/json/newsletter/{id}', scope: 'newsletters:read' },
    create: { method: 'POST', path: '/import/json/newsletters', scope: 'newsletters:write' },
    update: { method: 'PUT', path: '/import/json/newsletters', scope: 'newsletters:write' },
    delete: { method: 'DELETE', path: '/delete/json/newsletter/{id}', scope: 'newsletters:delete', idIn: 'path', param: 'newsletters_id' },
  },
  lists: {
    languages: { semantics: { kind: 'merge-language' }, specified: false, note: 'composite key newsletters_id + language: each sent language version is written, others stay' },
  },
  strictBooleans: [],
  lengthLimits: [],
  decimalFields: [],
  schemas: { record: campaignRecord, write: campaignWrite },
} as const satisfies ResourceDef;
