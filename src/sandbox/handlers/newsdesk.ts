/**
 * News articles (spec: News write rules): only sent fields are written on PUT, categories_ids is a
 * full mirror, seo_name is generated when missing and a change leaves a 301 in the SEO history,
 * POST fills active languages from the master language and marks them for translation.
 */
import type { OperationHandler, ResourceHandler, SandboxContext } from '../handler.js';
import { deleteReply, fail, oneReply, optionalInt, optionalString, RecordError, writeEach } from '../kit.js';
import { exportFromStore } from '../exports.js';
import type { StoredRecord } from '../store.js';
import { seedNews } from '../seed/newsdesk.js';
import { languagesInput, masterLanguageCode, mergeLanguages, pick } from './content/languages.js';
import { datetimeOrNull, deleteId, flagValue, idList, pathId, recordFromPath, recordToUpdate, slugify } from './content/values.js';
import { NEWS_CATEGORIES } from './newsdesk_categories.js';
import { NEWS_AUTHORS } from './newsdesk_authors.js';
import { recordSeoNameChanges } from './seohistory.js';

export const NEWS = 'newsdesk';

/** Writable fields of a language block (newsdesk_article_viewed is export-only). */
export const NEWS_LANGUAGE_FIELDS = [
  'newsdesk_article_name', 'newsdesk_article_shorttext', 'newsdesk_article_description', 'newsdesk_image_text',
  'newsdesk_article_url', 'newsdesk_article_url_name', 'seo_name', 'title_tag', 'desc_tag', 'keywords_tag',
] as const;

/** A stored article. */
export interface Article {
  newsdesk_id: number;
  newsdesk_status: 0 | 1;
  newsdesk_date_available: string | null;
  newsdesk_date_added: string;
  newsdesk_last_modified: string | null;
  newsdesk_sticky: 0 | 1;
  sort_order: number;
  newsdesk_image: string;
  newsdesk_author: string;
  author_id: number;
  categories_ids: number[];
  languages: Record<string, Record<string, unknown>>;
  /** Languages marked for (re-)translation by the external machine translation. */
  translations_pending: string[];
}

function categoryIds(ctx: SandboxContext, record: Record<string, unknown>): number[] {
  const ids = idList(record, 'categories_ids');
  const unknown = ids.filter((id) => !ctx.store.has(NEWS_CATEGORIES, id));
  if (unknown.length > 0) throw new RecordError('INVALID_PAYLOAD', `categories_ids: no news category ${unknown.join(', ')}`, 'categories_ids');
  return ids;
}

function authorId(ctx: SandboxContext, record: Record<string, unknown>): number | undefined {
  const id = optionalInt(record, 'author_id');
  if (id !== undefined && id !== 0 && !ctx.store.has(NEWS_AUTHORS, id)) throw new RecordError('INVALID_PAYLOAD', `author_id ${id} is no news author (0 = none)`, 'author_id');
  return id;
}

/** A seo_name not used by another article in that language. */
function uniqueSeoName(ctx: SandboxContext, wanted: string, language: string, articleId: number): string {
  const taken = (name: string) => ctx.store.all(NEWS).some((a) => a.newsdesk_id !== articleId && (a as unknown as Article).languages[language]?.seo_name === name);
  return taken(wanted) ? `${wanted}-${articleId}` : wanted;
}

function fillSeoNames(ctx: SandboxContext, article: Article): void {
  for (const [code, block] of Object.entries(article.languages)) {
    const current = typeof block.seo_name === 'string' ? block.seo_name.trim() : '';
    if (current !== '') continue;
    const name = typeof block.newsdesk_article_name === 'string' ? block.newsdesk_article_name : '';
    const slug = slugify(name) || `news-${article.newsdesk_id}`;
    block.seo_name = uniqueSeoName(ctx, slug, code, article.newsdesk_id);
  }
}

function scalars(ctx: SandboxContext, record: Record<string, unknown>, article: Partial<Article>): void {
  if (record.newsdesk_status !== undefined) article.newsdesk_status = flagValue(record, 'newsdesk_status');
  if ('newsdesk_date_available' in record) article.newsdesk_date_available = datetimeOrNull(record, 'newsdesk_date_available');
  if (record.newsdesk_sticky !== undefined) article.newsdesk_sticky = flagValue(record, 'newsdesk_sticky');
  if (record.sort_order !== undefined) article.sort_order = optionalInt(record, 'sort_order');
  if (record.newsdesk_image !== undefined) article.newsdesk_image = optionalString(record, 'newsdesk_image') ?? '';
  if (record.newsdesk_author !== undefined) article.newsdesk_author = optionalString(record, 'newsdesk_author') ?? '';
  const author = authorId(ctx, record);
  if (author !== undefined) article.author_id = author;
  if (record.categories_ids !== undefined) article.categories_ids = categoryIds(ctx, record);
}

const create: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'create', (record) => {
    const given = optionalInt(record, 'newsdesk_id');
    if (given !== undefined && ctx.store.has(NEWS, given)) throw new RecordError('Already exists', `News article ${given} already exists (use PUT)`, 'newsdesk_id', { newsdesk_id: given });
    const sent = languagesInput(record, ctx);
    const named = Object.entries(sent ?? {}).filter(([, b]) => typeof b.newsdesk_article_name === 'string' && b.newsdesk_article_name.trim() !== '');
    if (!sent || named.length === 0) throw new RecordError('INVALID_PAYLOAD', 'languages needs at least one block with newsdesk_article_name', 'languages');
    const now = ctx.timestamp();
    const id = given ?? ctx.store.nextId(NEWS);
    const languages = mergeLanguages(undefined, sent, NEWS_LANGUAGE_FIELDS);
    // Master-language fill (2.121.0): the de block (master), otherwise the first sent block.
    const masterCode = masterLanguageCode(ctx) in languages ? masterLanguageCode(ctx) : Object.keys(languages)[0];
    const filled: string[] = [];
    for (const language of ctx.reference().languages) {
      if (language.code in languages) continue;
      languages[language.code] = { ...languages[masterCode], seo_name: '' };
      filled.push(language.code);
    }
    for (const block of Object.values(languages)) block.newsdesk_article_viewed = 0;
    const article: Article = {
      newsdesk_id: id,
      newsdesk_status: 1,
      newsdesk_date_available: null,
      newsdesk_date_added: (record.newsdesk_date_added !== undefined ? datetimeOrNull(record, 'newsdesk_date_added') : null) ?? now,
      newsdesk_last_modified: null,
      newsdesk_sticky: 0,
      sort_order: 0,
      newsdesk_image: '',
      newsdesk_author: '',
      author_id: 0,
      categories_ids: [],
      languages,
      translations_pending: filled,
    };
    scalars(ctx, record, article);
    fillSeoNames(ctx, article);
    ctx.store.put(NEWS, id, article as unknown as StoredRecord);
    return { newsdesk_id: id, seo_names: Object.fromEntries(Object.entries(article.languages).map(([c, b]) => [c, b.seo_name])), filled_languages: filled };
  });

const update: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'update', (record) => {
    const { id, stored: article } = recordToUpdate<Article>(ctx, record, NEWS, 'newsdesk_id', 'News article');
    scalars(ctx, record, article);
    const sent = languagesInput(record, ctx) ?? {};
    const before = JSON.parse(JSON.stringify(article.languages)) as Article['languages'];
    article.languages = mergeLanguages(article.languages, sent, NEWS_LANGUAGE_FIELDS);
    fillSeoNames(ctx, article);
    const redirects = recordSeoNameChanges(ctx, 'n', id, before, article.languages);
    // Changed content marks the other (derived) languages for re-translation.
    const changed = Object.keys(sent).filter((code) => JSON.stringify(pick(before[code] ?? {}, NEWS_LANGUAGE_FIELDS)) !== JSON.stringify(pick(article.languages[code], NEWS_LANGUAGE_FIELDS)));
    const pending = new Set(article.translations_pending.filter((c) => !(c in sent)));
    if (changed.length > 0) for (const code of Object.keys(article.languages)) if (!(code in sent)) pending.add(code);
    article.translations_pending = [...pending].sort();
    article.newsdesk_last_modified = ctx.timestamp();
    ctx.store.put(NEWS, id, article as unknown as StoredRecord);
    return { newsdesk_id: id, seo_redirects: redirects, translations_pending: article.translations_pending };
  });

function view(r: StoredRecord): unknown {
  return r;
}

const exportList: OperationHandler = (ctx, req) => exportFromStore(ctx, req, { view });

/** `/export/json/newsdesks/{id}`: all articles from this id on. */
const exportFrom: OperationHandler = (ctx, req) => exportFromStore(ctx, req, { idFrom: pathId(req), view });

const exportOne: OperationHandler = (ctx, req) => {
  const record = recordFromPath(ctx, req, NEWS, 'News article');
  return oneReply(req.resource, view(record));
};

const deleteOne: OperationHandler = (ctx, req) => {
  const id = deleteId(req, 'newsdesk_id');
  if (!ctx.store.delete(NEWS, id)) fail(404, 'Not found', `News article ${id} does not exist`);
  return deleteReply(req.resource, [id]);
};

/** The sandbox handler of newsdesk (registered in handlers/index.ts). */
export const newsdeskHandler: ResourceHandler = {
  seed(ctx, kind) {
    if (kind === 'demo') seedNews(ctx);
  },
  export: exportList,
  exportOne,
  range: exportFrom,
  create,
  update,
  delete: deleteOne,
  extra: { all: exportList },
};
