/** Demo SEO history: redirects of renamed products, a category and a news article, one already expired. */
import type { SandboxContext } from '../handler.js';
import { formatDateTime } from '../dates.js';
import { defaultDeletestamp } from '../handlers/seohistory.js';

/** Load the demo SEO history entries. */
export function seedSeoHistory(ctx: SandboxContext): void {
  const now = ctx.timestamp();
  const longAgo = formatDateTime(new Date(ctx.now().getTime() - 400 * 86_400_000));
  const entries = [
    { sh_base_id: 1, sh_base_type: 'p', languages: { de: { sh_seo_string: 'kaffeemuehle-alt' }, en: { sh_seo_string: 'coffee-grinder-old' } }, added: now },
    { sh_base_id: 2, sh_base_type: 'c', languages: { de: { sh_seo_string: 'kaffee-zubehoer' } }, added: now },
    { sh_base_id: 1, sh_base_type: 'n', languages: { de: { sh_seo_string: 'news/sommerfest-2025' } }, added: now },
    { sh_base_id: 3, sh_base_type: 'm', languages: { en: { sh_seo_string: 'brands/old-brand-name' } }, added: longAgo },
  ];
  for (const e of entries) {
    ctx.store.insert('seohistory', 'sh_id', {
      sh_base_id: e.sh_base_id,
      sh_base_type: e.sh_base_type,
      sh_item_id: e.sh_base_id,
      sh_item_type: e.sh_base_type,
      sh_deletestamp: defaultDeletestamp(e.added),
      sh_date_added: e.added,
      languages: e.languages,
    });
  }
}
