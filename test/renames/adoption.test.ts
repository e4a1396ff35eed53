/**
 * A mapping that gains a stable ERP id keeps its products (issue 46): the first run adopts the
 * references kept by the article number, without a request when the record is as last sent and
 * with one read of the shop product when it changed, and never takes the reference of another
 * record whose id looks like a number. An SEO history entry the shop refused is reported on the
 * record and written by a later sync, once.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { clientFor } from '../pipeline/support.js';
import { forEachBackend, type Backend } from '../state/backends.js';
import { BY_CODE, BY_ID, renameFixture, type RenameFixture } from './support.js';

forEachBackend('adopting references and retrying redirects', (backend: Backend) => {
  let f: RenameFixture;
  beforeEach(async () => {
    f = await renameFixture(backend, { tokens: [{ value: 'sandbox-token' }, { value: 'no-history', scopes: ['products:read', 'products:write'] }] });
    await f.setting('SANDBOX_SEO_AUTO_REDIRECTS', 'false');
  });
  afterEach(async () => {
    await f.close();
  });

  const ids = async () => Object.fromEntries((await f.products()).map((p) => [p.products_model, p.products_id]));

  it('adopts the references kept by the article number on the first run with a surrogate key, creating nothing', async () => {
    f.article(1, 'ART-1020', 'Wasserkocher', '19.90', '1');
    f.article(2, 'ART-2000', 'Teekanne', '9.90', '1');
    expect((await f.run(await f.mapping(BY_CODE), 'code')).counts).toMatchObject({ created: 2 });
    const shopIds = await ids();

    const mapping = await f.mapping(BY_ID);
    // Article 2 changed meanwhile: its reference is adopted once the shop product is read and holds its number.
    f.article(2, 'ART-2000', 'Teekanne', '11.90', '2');
    const first = await f.run(mapping, 'id', { complete: true });
    expect(first.counts).toMatchObject({ read: 2, created: 0, unchanged: 1, updated: 1, failed: 0 });
    expect(await ids()).toEqual(shopIds);
    expect(await f.state.refs.get('products', '1')).toMatchObject({ shopId: shopIds['ART-1020'], number: 'ART-1020' });
    expect(await f.state.refs.get('products', '2')).toMatchObject({ shopId: shopIds['ART-2000'], number: 'ART-2000' });
    expect(await f.state.refs.get('products', 'ART-1020')).toBeUndefined();
    expect(await f.state.refs.count('products')).toBe(2);

    // The hash moved with the reference: read again, nothing is sent; a rename now keeps the product.
    const again = await f.run(mapping, 'id', { complete: true });
    expect(again.counts).toMatchObject({ unchanged: 2, requests: 0 });
    f.article(1, 'ART-1020N', 'Wasserkocher', '19.90', '3');
    expect((await f.run(mapping, 'id')).counts).toMatchObject({ updated: 1, created: 0 });
    expect(await ids()).toEqual({ 'ART-1020N': shopIds['ART-1020'], 'ART-2000': shopIds['ART-2000'] });
    expect(await f.seoHistory('p', shopIds['ART-1020'] as number)).toHaveLength(1);
  });

  it('never adopts the reference of another record whose id equals an article number', async () => {
    // Before: kept by the id alone (`key: id`), so reference "5" is article 5's.
    const byIdOnly = BY_CODE.replace('key: code', 'key: id');
    f.article(5, 'ART-5', 'Fünf', '5.00', '1');
    await f.run(await f.mapping(byIdOnly), 'id');
    const five = (await ids())['ART-5'];
    // Now with the surrogate form, and a new article whose number is "5".
    f.article(9, '5', 'Neun', '9.00', '2');
    const run = await f.run(await f.mapping(BY_ID), 'id');
    expect(run.counts).toMatchObject({ created: 1, failed: 0 });
    const now = await ids();
    expect(now['ART-5']).toBe(five);
    expect(now['5']).not.toBe(five);
    expect(await f.state.refs.get('products', '5')).toMatchObject({ shopId: five });
    expect(await f.state.refs.get('products', '9')).toMatchObject({ shopId: now['5'], number: '5' });
  });

  it('reports a redirect the shop refused on the record and writes it once with a later sync', async () => {
    const mapping = await f.mapping(BY_ID);
    f.article(1, 'ART-1020', 'Wasserkocher', '19.90', '1');
    await f.run(mapping, 'id');
    const id = (await ids())['ART-1020'] as number;

    f.article(1, 'ART-1020N', 'Wasserkocher', '19.90', '2');
    const limited = clientFor({ url: f.sandbox.url, token: 'no-history' });
    const refused = await f.run(mapping, 'id', {}, limited);
    await limited.close();
    expect(refused.status).toBe('partial');
    expect(refused.counts).toMatchObject({ deadLettered: 1 });
    // The rename itself landed: same product, new number; its old URL is not redirected yet, and the letter says so.
    expect(await ids()).toEqual({ 'ART-1020N': id });
    expect(await f.seoHistory('p', id)).toEqual([]);
    const [letter] = await f.state.deadLetters.list({ pipeline: 'articles' });
    expect(letter).toMatchObject({ erpKey: '1', code: 'RENAME_SEO_FAILED' });
    expect(letter?.reason).toContain(`shop products ${id} (ERP key 1) was renamed from products_model ART-1020 to ART-1020N, but its old URL could not be written to the SEO history: [INSUFFICIENT_SCOPE]`);

    // The next sync retries the letter on its own (nothing changed in the ERP) and writes the entry.
    const retried = await f.run(mapping, 'id');
    expect(retried.status).toBe('succeeded');
    expect(retried.counts).toMatchObject({ updated: 1, deadLettered: 0 });
    expect((await f.seoHistory('p', id)).map((e) => e.languages)).toEqual([{ de: { sh_seo_string: 'wasserkocher-art-1020' } }]);
    expect(await f.state.deadLetters.list({ pipeline: 'articles' })).toEqual([]);
    expect(await f.state.intents.list('articles')).toEqual([]);
    await f.run(mapping, 'id', { complete: true });
    expect(await f.seoHistory('p', id)).toHaveLength(1);
  });
});
