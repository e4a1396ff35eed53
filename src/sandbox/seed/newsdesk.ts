/** Demo news: two categories, two authors and three articles (one sticky, one inactive). */
import type { SandboxContext } from '../handler.js';
import { formatDateTime } from '../dates.js';

function daysAgo(ctx: SandboxContext, days: number): string {
  return formatDateTime(new Date(ctx.now().getTime() - days * 86_400_000));
}

/** News categories. */
export function seedNewsCategories(ctx: SandboxContext): void {
  const now = ctx.timestamp();
  ctx.store.put('newsdesk_categories', 1, { newsdesk_categories_id: 1, parent_id: 0, categories_status: 1, sort_order: 1, date_added: now, languages: { de: { categories_name: 'Shop-News', categories_description: '' }, en: { categories_name: 'Shop news', categories_description: '' } } });
  ctx.store.put('newsdesk_categories', 2, { newsdesk_categories_id: 2, parent_id: 0, categories_status: 1, sort_order: 2, date_added: now, languages: { de: { categories_name: 'Rezepte', categories_description: 'Rund um Kaffee' }, en: { categories_name: 'Recipes', categories_description: 'All about coffee' } } });
}

/** News authors. */
export function seedNewsAuthors(ctx: SandboxContext): void {
  ctx.store.put('newsdesk_authors', 1, { author_id: 1, author_name: 'Redaktion Demo Shop', author_email: 'redaktion@demo-shop.example', author_status: 1, languages: { de: { author_description: 'Das Team des Demo Shops' }, en: { author_description: 'The demo shop team' } } });
  ctx.store.put('newsdesk_authors', 2, { author_id: 2, author_name: 'Mia Barista', author_email: 'mia@demo-shop.example', author_status: 1, languages: { de: { author_description: 'Schreibt über Kaffee' }, en: { author_description: 'Writes about coffee' } } });
}

/** News articles. */
export function seedNews(ctx: SandboxContext): void {
  const article = (id: number, days: number, de: string, en: string, extra: Record<string, unknown>) => {
    const block = (name: string, seo: string) => ({
      newsdesk_article_name: name,
      newsdesk_article_shorttext: `<p>${name}</p>`,
      newsdesk_article_description: `<p>${name}: more in the shop.</p>`,
      newsdesk_image_text: '',
      newsdesk_article_url: '',
      newsdesk_article_url_name: '',
      seo_name: seo,
      title_tag: name,
      desc_tag: '',
      keywords_tag: '',
      newsdesk_article_viewed: 10 * id,
    });
    ctx.store.put('newsdesk', id, {
      newsdesk_id: id,
      newsdesk_status: 1,
      newsdesk_date_available: daysAgo(ctx, days),
      newsdesk_date_added: daysAgo(ctx, days),
      newsdesk_last_modified: null,
      newsdesk_sticky: 0,
      sort_order: id,
      newsdesk_image: '',
      newsdesk_author: '',
      author_id: 1,
      categories_ids: [1],
      languages: { de: block(de, `news-${id}-${de.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`), en: block(en, `news-${id}-${en.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`) },
      translations_pending: [],
      ...extra,
    });
  };
  article(1, 30, 'Sommerfest 2026', 'Summer party 2026', { newsdesk_sticky: 1 });
  article(2, 10, 'Neue Espressomühle', 'New espresso grinder', { categories_ids: [1, 2], author_id: 2 });
  article(3, 2, 'Cold Brew Rezept', 'Cold brew recipe', { categories_ids: [2], author_id: 2, newsdesk_status: 0 });
}
