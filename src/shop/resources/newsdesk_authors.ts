/** News authors, read only (spec: Endpoints › News; fields not shown, sandbox decision in docs/spec-gaps.md). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { email, flag01, flagOut, languagesOut, languagesWrite, positiveId } from '../schema/common.js';

const languageBlock = { author_description: z.string() };

/** The API offers no author write; the schema documents the record for mappings that read it. */
const authorWrite = z
  .strictObject({
    author_id: positiveId,
    author_name: z.string().min(1),
    author_email: email,
    author_status: flag01,
    languages: languagesWrite(languageBlock),
  })
  .partial();

const authorRecord = z.looseObject({
  author_id: z.number(),
  author_name: z.string(),
  author_email: z.string().nullable().optional(),
  author_status: flagOut.optional(),
  languages: languagesOut(languageBlock).optional(),
});

export const newsdesk_authors = {
  name: 'newsdesk_authors',
  label: 'News authors',
  key: { id: 'author_id', alternatives: [], specified: false },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/newsdesk_authors',
      scope: 'news:read',
      paging: { kind: 'limit-offset', defaultLimit: 100, maxLimit: 250 },
      filters: {},
    },
    exportOne: { method: 'GET', path: '/export/json/newsdesk_author/{id}', scope: 'news:read' },
  },
  lists: {},
  strictBooleans: [],
  lengthLimits: [],
  decimalFields: [],
  schemas: { record: authorRecord, write: authorWrite },
} as const satisfies ResourceDef;
