/**
 * Renames keep the product (issue 46): an article whose number changes in the ERP under the same
 * stable id updates the same shop product (new products_model, same shop id, no second product),
 * and its old URL is redirected by an SEO history entry (type p, base and item = the product),
 * written once. Without a stable id a changed number is one article gone and one new (today's
 * behaviour). Against the sandbox over HTTP, an ERP SQLite table, on both state backends.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { forEachBackend, type Backend } from '../state/backends.js';
import { BY_CODE, BY_ID, renameFixture, seoName, type RenameFixture } from './support.js';

forEachBackend('renamed articles', (backend: Backend) => {
  let f: RenameFixture;
  beforeEach(async () => {
    f = await renameFixture(backend);
  });
  afterEach(async () => {
    await f.close();
  });

  const byModel = async (model: string) => (await f.products()).find((p) => p.products_model === model);
  const all = async (resource: 'manufacturers') => {
    const out: Record<string, unknown>[] = [];
    for await (const r of f.shop.exportAll(resource)) out.push(r);
    return out;
  };

  it('keeps the shop product of an article whose number changes under the same ERP id, and redirects its old URL once', async () => {
    // A shop before 2.13.0 writes no redirect of its own for products: the entry is shopsync's.
    await f.setting('SANDBOX_SEO_AUTO_REDIRECTS', 'false');
    const mapping = await f.mapping(BY_ID);
    f.article(1, 'ART-1020', 'Wasserkocher', '19.90', '1');
    f.article(2, 'ART-2000', 'Teekanne', '9.90', '1');
    expect((await f.run(mapping, 'id')).counts).toMatchObject({ created: 2, failed: 0 });
    const before = await byModel('ART-1020');
    expect(seoName(before)).toBe('wasserkocher-art-1020');
    const id = before!.products_id as number;

    f.article(1, 'ART-1020N', 'Wasserkocher', '19.90', '2');
    const renamed = await f.run(mapping, 'id');
    expect(renamed.status).toBe('succeeded');
    expect(renamed.counts).toMatchObject({ read: 1, updated: 1, created: 0, failed: 0 });

    const products = await f.products();
    expect(products).toHaveLength(2);
    const after = products.find((p) => p.products_id === id);
    expect({ model: after?.products_model, seo: seoName(after) }).toEqual({ model: 'ART-1020N', seo: 'wasserkocher-art-1020n' });
    expect(products.some((p) => p.products_model === 'ART-1020')).toBe(false);
    const history = await f.seoHistory('p', id);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ sh_base_type: 'p', sh_base_id: id, sh_item_type: 'p', sh_item_id: id, languages: { de: { sh_seo_string: 'wasserkocher-art-1020' } } });
    const event = (await f.state.events.list({ runId: renamed.runId })).find((e) => e.erpKey === '1');
    expect(event?.warnings.map((w) => w.code)).toEqual(['RECORD_RENAMED']);
    expect(event?.warnings[0]?.message).toContain('products_model ART-1020 → ART-1020N');
    expect(await f.state.refs.get('products', '1')).toMatchObject({ shopId: id, number: 'ART-1020N' });
    expect(await f.state.intents.list('articles')).toEqual([]);

    // Read again, the article is as last sent: no second entry, nothing sent.
    const again = await f.run(mapping, 'id', { complete: true });
    expect(again.counts).toMatchObject({ read: 2, unchanged: 2, updated: 0, created: 0 });
    expect(await f.seoHistory('p', id)).toHaveLength(1);
    expect(await f.products()).toHaveLength(2);
  });

  it('hands a number to a successor in one run: the retired article keeps its shop product under its new number, the successor gets one of its own', async () => {
    const mapping = await f.mapping(BY_ID);
    f.article(6, 'L-7', 'Alte Lampe', '30.00', '1');
    expect((await f.run(mapping, 'id')).counts).toMatchObject({ created: 1, failed: 0 });
    const lamp = (await byModel('L-7'))!.products_id;

    // In the ERP: the old lamp gets a code of its own and its successor takes L-7, in one change (the Tryton story).
    f.article(6, 'L-7-OLD', 'Alte Lampe', '30.00', '2');
    f.article(25, 'L-7', 'Neue Lampe', '35.00', '2');
    const run = await f.run(mapping, 'id');
    expect(run.status).toBe('succeeded');
    expect(run.counts).toMatchObject({ read: 2, updated: 1, created: 1, failed: 0, deadLettered: 0 });
    expect((await byModel('L-7-OLD'))?.products_id).toBe(lamp);
    const successor = await byModel('L-7');
    expect(successor?.products_id).not.toBe(lamp);
    expect(successor?.languages).toMatchObject({ de: { products_name: 'Neue Lampe' } });
    expect(await f.products()).toHaveLength(2);
    expect(await f.state.deadLetters.list({ pipeline: 'articles' })).toEqual([]);
  });

  it('leaves the redirect to a shop that writes its own when a PUT changes seo_name, without a second entry', async () => {
    const mapping = await f.mapping(BY_ID);
    f.article(1, 'ART-1020', 'Wasserkocher', '19.90', '1');
    await f.run(mapping, 'id');
    const id = (await byModel('ART-1020'))!.products_id as number;
    f.article(1, 'ART-1020N', 'Wasserkocher', '19.90', '2');
    const renamed = await f.run(mapping, 'id');
    expect(renamed.counts).toMatchObject({ updated: 1, failed: 0 });
    const history = await f.seoHistory('p', id);
    expect(history.map((e) => e.languages)).toEqual([{ de: { sh_seo_string: 'wasserkocher-art-1020' } }]);
    const event = (await f.state.events.list({ runId: renamed.runId })).find((e) => e.erpKey === '1');
    expect(event?.warnings[0]?.message).toContain('the SEO history already redirects its old URL (de: wasserkocher-art-1020)');
  });

  it('keeps a renamed manufacturer under the same ERP id and redirects its old URL, as the registry says for manufacturers', async () => {
    await f.setting('SANDBOX_SEO_AUTO_REDIRECTS', 'false');
    const mapping = await f.mapping(`
name: articles
direction: erp-to-shop
target: { resource: manufacturers, operation: upsert }
key: { surrogate: id, natural: name }
fields:
  manufacturers_name: name
  languages.de.seo_name: { template: "marke-{name}", case: lower }
`);
    f.article(3, 'M-3', 'Kochwerk', '0', '1');
    expect((await f.run(mapping, 'id', {}, f.shop, 'manufacturers')).counts).toMatchObject({ created: 1 });
    const [before] = await all('manufacturers');
    f.article(3, 'M-3', 'Kochwerk Deutschland', '0', '2');
    const renamed = await f.run(mapping, 'id', {}, f.shop, 'manufacturers');
    expect(renamed.counts).toMatchObject({ updated: 1, created: 0, failed: 0 });
    const after = await all('manufacturers');
    expect(after.map((m) => [m.manufacturers_id, m.manufacturers_name])).toEqual([[before?.manufacturers_id, 'Kochwerk Deutschland']]);
    const history = await f.seoHistory('m', before?.manufacturers_id as number);
    expect(history.map((e) => [e.sh_base_type, e.sh_item_id, e.languages])).toEqual([['m', before?.manufacturers_id, { de: { sh_seo_string: 'marke-kochwerk' } }]]);
  });

  it('makes a second product when the ERP has no stable id: the old number is one article gone, the new one a new article', async () => {
    const mapping = await f.mapping(BY_CODE);
    f.article(1, 'ART-1020', 'Wasserkocher', '19.90', '1');
    await f.run(mapping, 'code');
    const old = await byModel('ART-1020');
    f.article(1, 'ART-1020N', 'Wasserkocher', '19.90', '2');
    const renamed = await f.run(mapping, 'code');
    expect(renamed.counts).toMatchObject({ created: 1, updated: 0 });
    const products = await f.products();
    expect(products.map((p) => p.products_model).sort()).toEqual(['ART-1020', 'ART-1020N']);
    expect((await byModel('ART-1020N'))?.products_id).not.toBe(old?.products_id);
    expect(await f.seoHistory('p', old!.products_id as number)).toEqual([]);
  });
});
