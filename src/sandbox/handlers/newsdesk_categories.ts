/** News categories (fields not shown in the spec: sandbox decision, see docs/spec-gaps.md). */
import { seedNewsCategories } from '../seed/newsdesk.js';
import { contentCategoryHandler } from './content/categories.js';

export const NEWS_CATEGORIES = 'newsdesk_categories';

/** The sandbox handler of newsdesk_categories (registered in handlers/index.ts): a deleted category is removed from the articles. */
export const newsdeskCategoriesHandler = contentCategoryHandler({
  resource: NEWS_CATEGORIES,
  idField: 'newsdesk_categories_id',
  label: 'News category',
  noun: 'news category',
  dateAdded: true,
  detach(ctx, id) {
    for (const article of ctx.store.all('newsdesk')) {
      const ids = article.categories_ids as number[] | undefined;
      if (ids?.includes(id)) ctx.store.put('newsdesk', article.newsdesk_id as number, { ...article, categories_ids: ids.filter((c) => c !== id) });
    }
  },
  seed: seedNewsCategories,
});
