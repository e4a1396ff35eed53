/**
 * A rename never merges two records (issue 46): a new number that belongs to another shop product,
 * or a new ERP id whose number is another ERP id's shop product, is refused with a typed letter
 * that names both and says how to fix, and the shop is left as it was. A source keyed by the number
 * while the mapping keeps records by the id fails the run before anything is sent.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { forEachBackend, type Backend } from '../state/backends.js';
import { BY_ID, renameFixture, type RenameFixture } from './support.js';

forEachBackend('rename refusals', (backend: Backend) => {
  let f: RenameFixture;
  beforeEach(async () => {
    f = await renameFixture(backend);
  });
  afterEach(async () => {
    await f.close();
  });

  const models = async () => (await f.products()).map((p) => [p.products_id, p.products_model]).sort();
  const letters = async () => (await f.state.deadLetters.list({ pipeline: 'articles' })).map((l) => ({ erpKey: l.erpKey, code: l.code, reason: l.reason }));

  it('refuses a new number that already belongs to another shop product and changes neither', async () => {
    const mapping = await f.mapping(BY_ID);
    f.article(1, 'ART-1020', 'Wasserkocher', '19.90', '1');
    f.article(2, 'ART-2000', 'Teekanne', '9.90', '1');
    await f.run(mapping, 'id');
    const shopBefore = await models();
    f.article(1, 'ART-2000', 'Wasserkocher', '19.90', '2');
    const run = await f.run(mapping, 'id');
    expect(run.status).toBe('partial');
    expect(run.counts).toMatchObject({ read: 1, deadLettered: 1, updated: 0 });
    expect(await models()).toEqual(shopBefore);
    const [letter, ...more] = await letters();
    expect(more).toEqual([]);
    expect(letter).toMatchObject({ erpKey: '1', code: 'RENAME_NUMBER_TAKEN' });
    expect(letter?.reason).toContain('is renamed from products_model ART-1020 to ART-2000, but ART-2000 belongs to ERP key 2');
    expect(letter?.reason).toContain('Give one of them another number in the ERP');
  });

  it('refuses a new number the shop says another product has, even when no reference of shopsync holds it', async () => {
    const mapping = await f.mapping(BY_ID);
    f.article(1, 'ART-1020', 'Wasserkocher', '19.90', '1');
    await f.run(mapping, 'id');
    // A product made in the shop's administration, unknown to shopsync.
    const made = await f.shop.create('products', [{ products_model: 'SHOP-1', products_price: '5.00', languages: { de: { products_name: 'Handmade' } } }]);
    expect(made.outcomes[0]?.ok).toBe(true);
    const shopBefore = await models();
    f.article(1, 'SHOP-1', 'Wasserkocher', '19.90', '2');
    const run = await f.run(mapping, 'id');
    expect(run.counts).toMatchObject({ deadLettered: 1, updated: 0 });
    expect(await models()).toEqual(shopBefore);
    const [letter] = await letters();
    expect(letter?.code).toBe('RENAME_NUMBER_TAKEN');
    expect(letter?.reason).toContain(`but SHOP-1 belongs to shop products ${String(made.outcomes[0]?.data?.products_id)}`);
  });

  it('refuses a new ERP id whose number is the shop product of another ERP id, instead of merging the two', async () => {
    const mapping = await f.mapping(BY_ID);
    f.article(1, 'ART-1020', 'Wasserkocher', '19.90', '1');
    await f.run(mapping, 'id');
    const shopBefore = await models();
    // Another row claims the same article number under its own id (read alone: the first row is behind the cursor).
    f.article(7, 'ART-1020', 'Wasserkocher XL', '29.90', '2');
    const run = await f.run(mapping, 'id');
    expect(run.counts).toMatchObject({ read: 1, deadLettered: 1, created: 0, updated: 0 });
    expect(await models()).toEqual(shopBefore);
    expect(Number((await f.products())[0]?.products_price)).toBe(19.9);
    const [letter] = await letters();
    expect(letter).toMatchObject({ erpKey: '7', code: 'RENAME_SHOP_RECORD_CLAIMED' });
    expect(letter?.reason).toContain('already the record of ERP key 1; two ERP records never share one shop record');
    expect(await f.state.refs.byShopId('products', shopBefore[0]![0] as number)).toMatchObject([{ erpKey: '1' }]);
  });

  it('refuses two rows of one read that claim one number together, as any two records of one shop key', async () => {
    const mapping = await f.mapping(BY_ID);
    f.article(1, 'ART-1020', 'Wasserkocher', '19.90', '1');
    f.article(2, 'ART-1020', 'Wasserkocher XL', '29.90', '1');
    const run = await f.run(mapping, 'id');
    expect(run.counts).toMatchObject({ deadLettered: 2, created: 0 });
    expect((await letters()).map((l) => l.code)).toEqual(['SOURCE_DUPLICATE_KEY', 'SOURCE_DUPLICATE_KEY']);
    expect(await f.products()).toEqual([]);
  });

  it('fails the run before sending anything when the source keys its rows by the number while the mapping keeps them by the id', async () => {
    const mapping = await f.mapping(BY_ID);
    f.article(1, 'ART-1020', 'Wasserkocher', '19.90', '1');
    const run = await f.run(mapping, 'code');
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'RENAME_KEY_NOT_SURROGATE' });
    expect(String(run.error?.message)).toContain("set the pipeline source's `key: id`");
    expect(await f.products()).toEqual([]);
  });
});
