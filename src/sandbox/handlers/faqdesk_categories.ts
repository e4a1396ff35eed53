/** FAQ categories (fields not shown in the spec: sandbox decision, see docs/spec-gaps.md). */
import { seedFaqCategories } from '../seed/faqdesk.js';
import { contentCategoryHandler } from './content/categories.js';

export const FAQ_CATEGORIES = 'faqdesk_categories';

/** The sandbox handler of faqdesk_categories (registered in handlers/index.ts): a deleted category's entries stay without category (0). */
export const faqdeskCategoriesHandler = contentCategoryHandler({
  resource: FAQ_CATEGORIES,
  idField: 'faqdesk_categories_id',
  label: 'FAQ category',
  noun: 'FAQ category',
  dateAdded: false,
  detach(ctx, id) {
    for (const entry of ctx.store.all('faqdesk')) {
      if (entry.faqdesk_categories_id === id) ctx.store.put('faqdesk', entry.faqdesk_id as number, { ...entry, faqdesk_categories_id: 0 });
    }
  },
  seed: seedFaqCategories,
});
