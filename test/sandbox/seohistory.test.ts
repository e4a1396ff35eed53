/**
 * SEO history in the sandbox, over HTTP through the project's client.
 *
 * | rule | spec (shop-api.md) |
 * |---|---|
 * | export filters type, base_id, language (ISO code or id) | l.485 |
 * | sh_deletestamp defaults to one year after creation | l.199, l.734 |
 * | sh_seo_string at most 255 characters, without domain and leading slash | l.200, l.735 |
 * | delete one by id; bulk by sh_id list, expired=1, or type + base_id | l.481-482, l.485 |
 * | a changed seo_name leaves a 301 entry (news here; helper for products/categories) | l.578, l.675 |
 * | a product's, category's or manufacturer's changed seo_name (per language) leaves a 301 entry; an unchanged one none | l.675, l.742 (2.13.0) |
 */
import { describe, expect, it } from 'vitest';
import { collect, useContentSandbox } from './content-fixture.js';

const fx = useContentSandbox();

const ids = async (filters: Record<string, string | number> = {}) => (await collect(fx().client.exportAll('seohistory', { filters }))).map((e) => e.sh_id);

describe('SEO history', () => {
  it('creates an entry whose deletestamp defaults to one year after creation', async () => {
    const { outcomes } = await fx().client.create('seohistory', [{ sh_base_id: 7, sh_base_type: 'p', languages: { de: { sh_seo_string: 'alte-kaffeemuehle' } } }]);
    const entry = await fx().client.exportOne('seohistory', outcomes[0].data?.sh_id as number);
    expect(entry).toMatchObject({ sh_base_id: 7, sh_base_type: 'p', sh_item_id: 7, sh_item_type: 'p' });
    const added = String(entry?.sh_date_added);
    const expected = `${Number(added.slice(0, 4)) + 1}${added.slice(4)}`;
    expect(entry?.sh_deletestamp).toBe(expected);
  });

  it('keeps an explicit deletestamp and target', async () => {
    const { outcomes } = await fx().client.create('seohistory', [
      { sh_base_id: 3, sh_base_type: 'c', sh_item_id: 9, sh_item_type: 'c', sh_deletestamp: '2031-05-01 00:00:00', languages: { en: { sh_seo_string: 'old/category' } } },
    ]);
    expect(await fx().client.exportOne('seohistory', outcomes[0].data?.sh_id as number)).toMatchObject({ sh_item_id: 9, sh_deletestamp: '2031-05-01 00:00:00' });
  });

  it('refuses SEO strings over 255 characters, strips a leading slash with a warning', async () => {
    const { outcomes } = await fx().client.create('seohistory', [
      { sh_base_id: 1, sh_base_type: 'p', languages: { de: { sh_seo_string: 'a'.repeat(256) } } },
      { sh_base_id: 1, sh_base_type: 'p', languages: { de: { sh_seo_string: 'a'.repeat(255) } } },
      { sh_base_id: 1, sh_base_type: 'p', languages: { de: { sh_seo_string: '/with-slash' } } },
      { sh_base_id: 1, sh_base_type: 'x', languages: { de: { sh_seo_string: 'bad-type' } } },
    ]);
    expect(outcomes.map((o) => o.ok)).toEqual([false, true, true, false]);
    expect(outcomes[0].error?.details).toMatchObject({ field: 'languages.de.sh_seo_string', max: 255 });
    expect(outcomes[2].warnings.map((w) => w.code)).toEqual(['SEO_STRING_NORMALIZED']);
    const entry = await fx().client.exportOne('seohistory', outcomes[2].data?.sh_id as number);
    expect((entry?.languages as Record<string, { sh_seo_string: string }>).de.sh_seo_string).toBe('with-slash');
    expect(outcomes[3].error?.details?.field).toBe('sh_base_type');
  });

  it('filters by type, base_id and language (code or id)', async () => {
    expect(await ids({ type: 'p' })).toEqual([1]);
    expect(await ids({ base_id: 1 })).toEqual([1, 3]);
    expect(await ids({ language: 'en' })).toEqual([1, 4]);
    expect(await ids({ language: 1 })).toEqual([1, 4]);
    const english = await collect(fx().client.exportAll('seohistory', { filters: { language: 'en' } }));
    expect(english[0].languages).toEqual({ en: { sh_seo_string: 'coffee-grinder-old' } });
  });

  it('updates only the sent fields and languages', async () => {
    await fx().client.update('seohistory', [{ sh_id: 1, languages: { en: { sh_seo_string: 'coffee-grinder-older' } } }]);
    expect((await fx().client.exportOne('seohistory', 1))?.languages).toEqual({ de: { sh_seo_string: 'kaffeemuehle-alt' }, en: { sh_seo_string: 'coffee-grinder-older' } });
    const { outcomes } = await fx().client.update('seohistory', [{ sh_id: 99, sh_base_id: 1 }]);
    expect(outcomes[0].error?.apiCode).toBe('Not found');
  });

  it('deletes one entry by id and answers 404 for an unknown one', async () => {
    expect(await fx().client.delete('seohistory', 2)).toMatchObject({ success: true, deleted: [2] });
    await expect(fx().client.delete('seohistory', 2)).rejects.toMatchObject({ status: 404 });
  });

  it('bulk deletes by a list of ids', async () => {
    const answer = await fx().client.bulkDelete('seohistory', { sh_id: [1, 2, 77] });
    expect(answer).toMatchObject({ deleted: [1, 2], not_found: [77] });
    expect(await ids()).toEqual([3, 4]);
  });

  it('bulk deletes expired entries with expired=1', async () => {
    const answer = await fx().client.bulkDelete('seohistory', { expired: 1 });
    expect(answer.deleted).toEqual([4]);
    expect(await ids()).toEqual([1, 2, 3]);
  });

  it('bulk deletes by type and base_id', async () => {
    const answer = await fx().client.bulkDelete('seohistory', { type: 'n', base_id: 1 });
    expect(answer.deleted).toEqual([3]);
    expect(await ids()).toEqual([1, 2, 4]);
  });

  it('refuses a bulk delete without any selector', async () => {
    const res = await fx().http.delete('/delete/json/seohistory');
    expect(res.status).toBe(400);
  });
});

describe('automatic 301 entries for catalog SEO names', () => {
  type Rec = Record<string, any>;
  const entries = async (type: string, baseId: number) => (await collect(fx().client.exportAll('seohistory', { filters: { type, base_id: baseId } }))) as Rec[];

  it('records the old product seo_name of the changed language only', async () => {
    const before = (await fx().client.exportOne('products', 1)) as Rec;
    const oldDe = before.languages.de.seo_name as string;
    const known = (await entries('p', 1)).map((e) => e.sh_id);
    const { outcomes } = await fx().client.update('products', [{ products_id: 1, languages: { de: { seo_name: 'neue-kaffeemuehle' }, en: { seo_name: before.languages.en.seo_name } } }]);
    expect(outcomes[0].ok).toBe(true);
    const added = (await entries('p', 1)).filter((e) => !known.includes(e.sh_id));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ sh_base_id: 1, sh_base_type: 'p', sh_item_id: 1, sh_item_type: 'p', languages: { de: { sh_seo_string: oldDe } } });
    expect(added[0].languages).not.toHaveProperty('en');
    await fx().client.update('products', [{ products_id: 1, products_price: 12, languages: { de: { seo_name: 'neue-kaffeemuehle' } } }]);
    expect((await entries('p', 1)).length).toBe(known.length + 1);
  });

  it('records the old category seo_name once a category had one', async () => {
    await fx().client.update('categories', [{ categories_id: 3, languages: { de: { seo_name: 'kaffee' } } }]);
    expect(await entries('c', 3)).toEqual([]);
    expect(((await fx().client.exportOne('categories', 3)) as Rec).languages.de.seo_name).toBe('kaffee');
    await fx().client.update('categories', [{ categories_id: 3, languages: { de: { seo_name: 'kaffee-und-tee' } } }]);
    const added = await entries('c', 3);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ sh_base_type: 'c', sh_base_id: 3, languages: { de: { sh_seo_string: 'kaffee' } } });
  });

  it('records the old manufacturer seo_name', async () => {
    const before = (await fx().client.exportOne('manufacturers', 1)) as Rec;
    const oldEn = before.languages.en.seo_name as string;
    expect(oldEn).not.toBe('');
    await fx().client.update('manufacturers', [{ manufacturers_id: 1, languages: { en: { seo_name: 'brands/new-name' } } }]);
    const added = await entries('m', 1);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ sh_base_type: 'm', sh_base_id: 1, languages: { en: { sh_seo_string: oldEn } } });
  });
});
