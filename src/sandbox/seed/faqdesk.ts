/** Demo FAQ: two categories with three entries. */
import type { SandboxContext } from '../handler.js';

/** FAQ categories. */
export function seedFaqCategories(ctx: SandboxContext): void {
  ctx.store.put('faqdesk_categories', 1, { faqdesk_categories_id: 1, parent_id: 0, categories_status: 1, sort_order: 1, languages: { de: { categories_name: 'Versand', categories_description: '' }, en: { categories_name: 'Shipping', categories_description: '' } } });
  ctx.store.put('faqdesk_categories', 2, { faqdesk_categories_id: 2, parent_id: 0, categories_status: 1, sort_order: 2, languages: { de: { categories_name: 'Zahlung', categories_description: '' }, en: { categories_name: 'Payment', categories_description: '' } } });
}

/** FAQ entries. */
export function seedFaq(ctx: SandboxContext): void {
  const now = ctx.timestamp();
  const entry = (id: number, category: number, de: [string, string], en: [string, string]) =>
    ctx.store.put('faqdesk', id, {
      faqdesk_id: id,
      faqdesk_categories_id: category,
      faqdesk_status: 1,
      faqdesk_sort_order: id,
      date_added: now,
      last_modified: null,
      languages: {
        de: { faqdesk_question: de[0], faqdesk_answer_short: de[1], faqdesk_answer_long: `<p>${de[1]}</p>` },
        en: { faqdesk_question: en[0], faqdesk_answer_short: en[1], faqdesk_answer_long: `<p>${en[1]}</p>` },
      },
    });
  entry(1, 1, ['Wie lange dauert der Versand?', '1-3 Werktage innerhalb Deutschlands.'], ['How long does shipping take?', '1-3 working days within Germany.']);
  entry(2, 1, ['Versendet ihr ins Ausland?', 'Ja, in die EU, die Schweiz und nach Großbritannien.'], ['Do you ship abroad?', 'Yes, to the EU, Switzerland and the UK.']);
  entry(3, 2, ['Welche Zahlungsarten gibt es?', 'Rechnung, PayPal und Kreditkarte.'], ['Which payment methods are there?', 'Invoice, PayPal and credit card.']);
}
