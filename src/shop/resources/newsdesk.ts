/** News articles (spec: Resources › News; Endpoints › News, write rules). */
import { z } from 'zod';
import type { ResourceDef } from '../registry/types.js';
import { datetime, flag01, flagOut, id, languagesOut, languagesWrite, positiveId } from '../schema/common.js';

const languageBlock = {
  newsdesk_article_name: z.string(),
  newsdesk_article_shorttext: z.string(),
  newsdesk_article_description: z.string(),
  newsdesk_image_text: z.string(),
  newsdesk_article_url: z.string(),
  newsdesk_article_url_name: z.string(),
  seo_name: z.string(),
  title_tag: z.string(),
  desc_tag: z.string(),
  keywords_tag: z.string(),
};

/** Export-only fields (newsdesk_last_modified, newsdesk_article_viewed) are left out: the shop ignores them on write. */
const articleWrite = z
  .strictObject({
    newsdesk_id: positiveId,
    newsdesk_status: flag01,
    newsdesk_date_available: datetime,
    newsdesk_date_added: datetime,
    newsdesk_sticky: flag01,
    sort_order: z.number().int(),
    newsdesk_image: z.string(),
    newsdesk_author: z.string(),
    author_id: id,
    categories_ids: z.array(positiveId),
    languages: languagesWrite(languageBlock),
  })
  .partial();

const articleRecord = z.looseObject({
  newsdesk_id: z.number(),
  newsdesk_status: flagOut.optional(),
  newsdesk_date_available: z.string().nullable().optional(),
  newsdesk_date_added: z.string().optional(),
  newsdesk_last_modified: z.string().nullable().optional(),
  categories_ids: z.array(z.number()).optional(),
  languages: languagesOut({ ...languageBlock, newsdesk_article_viewed: z.number() }).optional(),
});

export const newsdesk = {
  name: 'newsdesk',
  label: 'News articles',
  key: { id: 'newsdesk_id', alternatives: [], specified: true },
  ops: {
    export: {
      method: 'GET',
      path: '/export/json/newsdesk',
      scope: 'news:read',
      paging: { kind: 'limit-offset', defaultLimit: 100, maxLimit: 250 },
      filters: {},
    },
    exportOne: { method: 'GET', path: '/export/json/newsdesk/{id}', scope: 'news:read' },
    range: { method: 'GET', path: '/export/json/newsdesks/{id}', scope: 'news:read' },
    create: { method: 'POST', path: '/import/json/newsdesk', scope: 'news:write' },
    update: { method: 'PUT', path: '/import/json/newsdesk', scope: 'news:write' },
    delete: { method: 'DELETE', path: '/delete/json/newsdesk', scope: 'news:delete', idIn: 'query', param: 'newsdesk_id' },
    extra: {
      all: { method: 'GET', path: '/export/json/newsdesks', scope: 'news:read' },
    },
  },
  lists: {
    categories_ids: { semantics: { kind: 'replace' }, specified: true, note: 'full mirror: sent replaces all assignments, absent keeps them' },
    languages: { semantics: { kind: 'merge-language' }, specified: true, note: 'on PUT only sent fields are written; POST fills active languages from the master language' },
  },
  strictBooleans: [],
  lengthLimits: [],
  decimalFields: [],
  schemas: { record: articleRecord, write: articleWrite },
} as const satisfies ResourceDef;
