/**
 * FAQ entries and categories in the sandbox, over HTTP through the project's client.
 *
 * | rule | spec (shop-api.md) |
 * |---|---|
 * | export parameters faqdesk_id, faqdesk_categories_id, limit, offset | l.634 |
 * | entry fields: faqdesk_categories_id, status, sort order, languages{question, short, long answer} | l.315 |
 * | entries POST/PUT/DELETE; categories export, POST, DELETE | l.625-632 |
 */
import { describe, expect, it } from 'vitest';
import { collect, useContentSandbox } from './content-fixture.js';

const fx = useContentSandbox();

describe('FAQ entries', () => {
  it('exports one entry by faqdesk_id, a category by faqdesk_categories_id, and pages with limit/offset', async () => {
    expect((await collect(fx().client.exportAll('faqdesk', { filters: { faqdesk_id: 2 } }))).map((e) => e.faqdesk_id)).toEqual([2]);
    expect((await collect(fx().client.exportAll('faqdesk', { filters: { faqdesk_categories_id: 1 } }))).map((e) => e.faqdesk_id)).toEqual([1, 2]);
    expect(await fx().client.exportOne('faqdesk', 3)).toMatchObject({ faqdesk_id: 3, faqdesk_categories_id: 2 });
    const page = await fx().http.get('/export/json/faqdesk', { params: { limit: 2, offset: 1 } });
    expect(page.data.pagination).toEqual({ total: 3, limit: 2, offset: 1 });
    expect(page.data.data.map((e: { faqdesk_id: number }) => e.faqdesk_id)).toEqual([2, 3]);
  });

  it('creates, updates (merging languages) and deletes an entry', async () => {
    const { outcomes } = await fx().client.create('faqdesk', [
      { faqdesk_categories_id: 2, faqdesk_sort_order: 4, languages: { de: { faqdesk_question: 'Gibt es Ratenzahlung?', faqdesk_answer_short: 'Nein.' } } },
    ]);
    const id = outcomes[0].data?.faqdesk_id as number;
    await fx().client.update('faqdesk', [{ faqdesk_id: id, faqdesk_status: 0, languages: { en: { faqdesk_question: 'Instalments?' } } }]);
    expect(await fx().client.exportOne('faqdesk', id)).toMatchObject({
      faqdesk_status: 0,
      faqdesk_sort_order: 4,
      languages: { de: { faqdesk_question: 'Gibt es Ratenzahlung?', faqdesk_answer_short: 'Nein.' }, en: { faqdesk_question: 'Instalments?' } },
    });
    expect(await fx().client.delete('faqdesk', id)).toMatchObject({ success: true, deleted: [id] });
    expect(await fx().client.exportOne('faqdesk', id)).toBeUndefined();
  });

  it('rejects an unknown category, a missing question and a PUT without or with an unknown id', async () => {
    const created = await fx().client.create('faqdesk', [{ faqdesk_categories_id: 9, languages: { de: { faqdesk_question: 'x' } } }, { languages: { de: { faqdesk_answer_short: 'no question' } } }]);
    expect(created.outcomes.map((o) => o.error?.details?.field)).toEqual(['faqdesk_categories_id', 'languages']);
    const updated = await fx().client.update('faqdesk', [{ faqdesk_status: 1 }, { faqdesk_id: 99, faqdesk_status: 1 }]);
    expect(updated.outcomes[0].error?.details?.field).toBe('faqdesk_id');
    expect(updated.outcomes[1].error?.apiCode).toBe('Not found');
  });
});

describe('FAQ categories', () => {
  it('creates a category and deletes one, leaving its entries without category', async () => {
    const { outcomes } = await fx().client.create('faqdesk_categories', [{ languages: { de: { categories_name: 'Retouren' }, en: { categories_name: 'Returns' } } }]);
    const id = outcomes[0].data?.faqdesk_categories_id as number;
    expect((await collect(fx().client.exportAll('faqdesk_categories'))).map((c) => c.faqdesk_categories_id)).toEqual([1, 2, id]);
    expect(await fx().client.delete('faqdesk_categories', 1)).toMatchObject({ deleted: [1] });
    expect((await collect(fx().client.exportAll('faqdesk', { filters: { faqdesk_categories_id: 0 } }))).map((e) => e.faqdesk_id)).toEqual([1, 2]);
    await expect(fx().client.delete('faqdesk_categories', 1)).rejects.toMatchObject({ status: 404 });
  });
});
