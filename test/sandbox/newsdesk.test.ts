/**
 * News articles, categories and authors in the sandbox, over HTTP through the project's client.
 *
 * | rule | spec (shop-api.md) |
 * |---|---|
 * | routes: /newsdesks all, /newsdesk/{id} one, /newsdesks/{id} from this id on; limit and offset | l.576 |
 * | categories_ids is a full mirror: sent replaces, absent keeps | l.578 |
 * | a newsdesk_categories_id key is ignored: the article has no category | l.578 |
 * | missing seo_name generated from newsdesk_article_name | l.578 |
 * | a changed seo_name creates a 301 entry in the SEO history | l.578, l.675 |
 * | POST fills every active language without a block from the master language (de, else first block) | l.578 |
 * | on PUT only sent fields are written; export-only fields ignored; changed articles marked for translation | l.578 |
 * | categories: export, create, delete; authors: list and one | l.568-573 |
 */
import { describe, expect, it } from 'vitest';
import { collect, useContentSandbox } from './content-fixture.js';

const fx = useContentSandbox();

type Langs = Record<string, Record<string, unknown>>;

async function article(id: number): Promise<Record<string, unknown> & { languages: Langs; categories_ids: number[] }> {
  const record = await fx().client.exportOne('newsdesk', id);
  if (!record) throw new Error(`article ${id} missing`);
  return record as Record<string, unknown> & { languages: Langs; categories_ids: number[] };
}

describe('article routes', () => {
  it('serves all articles, one article, and all articles from an id on, with limit and offset', async () => {
    const all = await collect(fx().client.exportExtra('newsdesk', 'all'));
    expect(all.map((a) => a.newsdesk_id)).toEqual([1, 2, 3]);
    expect((await article(2)).newsdesk_id).toBe(2);
    const from = await fx().http.get('/export/json/newsdesks/2');
    expect(from.data.data.map((a: { newsdesk_id: number }) => a.newsdesk_id)).toEqual([2, 3]);
    expect((await fx().client.exportRange('newsdesk', 2, 2)).map((a) => a.newsdesk_id)).toEqual([2]);
    const page = await fx().http.get('/export/json/newsdesk', { params: { limit: 1, offset: 1 } });
    expect(page.data).toMatchObject({ pagination: { total: 3, limit: 1, offset: 1 } });
    expect(page.data.data[0].newsdesk_id).toBe(2);
    expect((await fx().http.get('/export/json/newsdesk/99')).status).toBe(404);
  });
});

describe('article writes', () => {
  it('generates seo_name and fills the missing languages from the master language on POST', async () => {
    const { outcomes } = await fx().client.create('newsdesk', [{ categories_ids: [2], languages: { de: { newsdesk_article_name: 'Große Röstung im Mai' } } }]);
    const a = await article(outcomes[0].data?.newsdesk_id as number);
    expect(a.languages.de).toMatchObject({ newsdesk_article_name: 'Große Röstung im Mai', seo_name: 'grosse-roestung-im-mai' });
    expect(a.languages.en).toMatchObject({ newsdesk_article_name: 'Große Röstung im Mai', seo_name: 'grosse-roestung-im-mai' });
    expect(a.translations_pending).toEqual(['en']);
    expect(outcomes[0].data?.filled_languages).toEqual(['en']);
  });

  it('fills from the first sent block when there is no de block', async () => {
    const { outcomes } = await fx().client.create('newsdesk', [{ languages: { en: { newsdesk_article_name: 'Only English', newsdesk_article_shorttext: '<p>EN</p>' } } }]);
    const a = await article(outcomes[0].data?.newsdesk_id as number);
    expect(a.languages.de).toMatchObject({ newsdesk_article_name: 'Only English', newsdesk_article_shorttext: '<p>EN</p>' });
    expect(a.translations_pending).toEqual(['de']);
  });

  it('ignores a newsdesk_categories_id key: the article is created without category', async () => {
    const res = await fx().http.post('/import/json/newsdesk', { type: 'newsdesk', data: [{ newsdesk_categories_id: 2, languages: { de: { newsdesk_article_name: 'Ohne Kategorie' } } }] });
    expect(res.data.success).toBe(true);
    expect((await article(res.data.data[0].newsdesk_id)).categories_ids).toEqual([]);
  });

  it('mirrors categories_ids when sent and keeps them when absent', async () => {
    await fx().client.update('newsdesk', [{ newsdesk_id: 2, newsdesk_sticky: 1 }]);
    expect((await article(2)).categories_ids).toEqual([1, 2]);
    await fx().client.update('newsdesk', [{ newsdesk_id: 2, categories_ids: [2] }]);
    expect((await article(2)).categories_ids).toEqual([2]);
    await fx().client.update('newsdesk', [{ newsdesk_id: 2, categories_ids: [] }]);
    expect((await article(2)).categories_ids).toEqual([]);
    const { outcomes } = await fx().client.update('newsdesk', [{ newsdesk_id: 2, categories_ids: [9] }]);
    expect(outcomes[0].error?.details?.field).toBe('categories_ids');
  });

  it('writes only sent fields on PUT and ignores export-only fields', async () => {
    const before = await article(1);
    const res = await fx().http.put('/import/json/newsdesk', {
      type: 'newsdesk',
      data: [{ newsdesk_id: 1, newsdesk_last_modified: '2000-01-01 00:00:00', languages: { de: { newsdesk_article_shorttext: '<p>Neu</p>', newsdesk_article_viewed: 99999 } } }],
    });
    expect(res.data.success).toBe(true);
    const after = await article(1);
    expect(after.languages.de).toMatchObject({ newsdesk_article_name: before.languages.de.newsdesk_article_name, newsdesk_article_shorttext: '<p>Neu</p>', newsdesk_article_viewed: 10 });
    expect(after.languages.en).toEqual(before.languages.en);
    expect(after.newsdesk_last_modified).not.toBe('2000-01-01 00:00:00');
    expect(after.newsdesk_sticky).toBe(before.newsdesk_sticky);
    expect(after.translations_pending).toEqual(['en']);
  });

  it('creates a 301 entry in the SEO history when seo_name changes', async () => {
    const oldName = (await article(2)).languages.de.seo_name;
    const { outcomes } = await fx().client.update('newsdesk', [{ newsdesk_id: 2, languages: { de: { seo_name: 'neue-espressomuehle-2026' } } }]);
    expect(outcomes[0].data?.seo_redirects).toHaveLength(1);
    const history = await collect(fx().client.exportAll('seohistory', { filters: { type: 'n', base_id: 2 } }));
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ sh_base_type: 'n', sh_item_id: 2, languages: { de: { sh_seo_string: oldName } } });
    await fx().client.update('newsdesk', [{ newsdesk_id: 2, languages: { de: { newsdesk_article_name: 'Renamed, same slug' } } }]);
    expect(await collect(fx().client.exportAll('seohistory', { filters: { type: 'n', base_id: 2 } }))).toHaveLength(1);
  });

  it('does not let a renamed-back seo_name redirect to itself', async () => {
    const original = (await article(1)).languages.en.seo_name as string;
    await fx().client.update('newsdesk', [{ newsdesk_id: 1, languages: { en: { seo_name: 'summer-party' } } }]);
    await fx().client.update('newsdesk', [{ newsdesk_id: 1, languages: { en: { seo_name: original } } }]);
    const paths = (await collect(fx().client.exportAll('seohistory', { filters: { type: 'n', base_id: 1, language: 'en' } }))).map(
      (e) => (e.languages as Record<string, { sh_seo_string: string }>).en.sh_seo_string,
    );
    expect(paths).toEqual(['summer-party']);
  });

  it('answers Already exists for a used id, Not found for an unknown one, and deletes by newsdesk_id', async () => {
    const created = await fx().client.create('newsdesk', [{ newsdesk_id: 1, languages: { de: { newsdesk_article_name: 'x' } } }]);
    expect(created.outcomes[0].error?.apiCode).toBe('Already exists');
    const updated = await fx().client.update('newsdesk', [{ newsdesk_id: 42, newsdesk_status: 0 }]);
    expect(updated.outcomes[0].error?.apiCode).toBe('Not found');
    expect(await fx().client.delete('newsdesk', 3)).toMatchObject({ success: true, deleted: [3] });
    expect(await fx().client.exportOne('newsdesk', 3)).toBeUndefined();
  });
});

describe('news categories and authors', () => {
  it('creates and deletes categories, removing the deleted category from articles', async () => {
    const { outcomes } = await fx().client.create('newsdesk_categories', [{ languages: { de: { categories_name: 'Events' }, en: { categories_name: 'Events' } } }]);
    const id = outcomes[0].data?.newsdesk_categories_id as number;
    expect((await collect(fx().client.exportAll('newsdesk_categories'))).map((c) => c.newsdesk_categories_id)).toEqual([1, 2, id]);
    expect(await fx().client.delete('newsdesk_categories', 2)).toMatchObject({ deleted: [2] });
    expect((await article(2)).categories_ids).toEqual([1]);
  });

  it('lists the authors and exports one', async () => {
    expect((await collect(fx().client.exportAll('newsdesk_authors'))).map((a) => a.author_name)).toEqual(['Redaktion Demo Shop', 'Mia Barista']);
    expect(await fx().client.exportOne('newsdesk_authors', 2)).toMatchObject({ author_id: 2, author_name: 'Mia Barista' });
  });
});
