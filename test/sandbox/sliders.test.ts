/**
 * Sliders in the sandbox, over HTTP through the project's client.
 *
 * | rule | spec (shop-api.md) |
 * |---|---|
 * | routes: list, one, {from}:{to} range | l.601-608 |
 * | filters status, type, categories_id (entity_type=category), content_id (entity_type=content), language | l.610 |
 * | PUT without slider_id: 400 MISSING_ID | l.610, l.696 |
 * | POST with a used slider_id: 409 Already exists (when the request fails as a whole; mixed: 200 per record, docs/spec-gaps.md) | l.610, l.697 |
 * | entity_type/entity_id are the target; categories_id/content_id in a write are ignored (shop 4.8+) | l.306-307 |
 * | DELETE removes the slide with all its language rows | l.610 |
 */
import { describe, expect, it } from 'vitest';
import { ConflictError, ValidationError } from '../../src/shop/errors.js';
import { collect, useContentSandbox } from './content-fixture.js';

const fx = useContentSandbox();

const ids = async (filters: Record<string, string | number> = {}) => (await collect(fx().client.exportAll('sliders', { filters }))).map((s) => s.slider_id);

describe('slider export', () => {
  it('serves the list, one slide and an id range', async () => {
    expect(await ids()).toEqual([1, 2, 3]);
    expect(await fx().client.exportOne('sliders', 2)).toMatchObject({ slider_id: 2, entity_type: 'news', type: 1 });
    expect((await fx().client.exportRange('sliders', 2, 3)).map((s) => s.slider_id)).toEqual([2, 3]);
    expect((await fx().client.exportRange('sliders', 1, 1)).map((s) => s.slider_id)).toEqual([1]);
    expect((await fx().http.get('/export/json/sliders/3:1')).status).toBe(400);
    expect((await fx().http.get('/export/json/slider/9')).status).toBe(404);
  });

  it('filters by status, type, category, content and language', async () => {
    expect(await ids({ status: 0 })).toEqual([3]);
    expect(await ids({ type: 1 })).toEqual([2]);
    expect(await ids({ categories_id: 1 })).toEqual([1]);
    expect(await ids({ content_id: 4 })).toEqual([3]);
    expect(await ids({ content_id: 1 })).toEqual([]);
    const english = await collect(fx().client.exportAll('sliders', { filters: { language: 'en' } }));
    expect(english.map((s) => Object.keys(s.languages as object))).toEqual([['en'], ['en'], []]);
    const byId = await collect(fx().client.exportAll('sliders', { filters: { language: '2' } }));
    expect(byId.every((s) => Object.keys(s.languages as object).every((code) => code === 'de'))).toBe(true);
  });
});

describe('slider writes', () => {
  it('creates a slide targeting entity_type/entity_id and ignores categories_id/content_id', async () => {
    const res = await fx().http.post('/import/json/slider', {
      type: 'slider',
      data: [{ slider_status: 1, entity_type: 'category', entity_id: 2, categories_id: 9, content_id: 8, type: 0, languages: { de: { title: 'Neu', width: 800 } } }],
    });
    expect(res.data.success).toBe(true);
    const slide = await fx().client.exportOne('sliders', res.data.data[0].slider_id);
    expect(slide).toMatchObject({ entity_type: 'category', entity_id: 2 });
    expect(slide).not.toHaveProperty('categories_id');
    expect(slide).not.toHaveProperty('content_id');
    expect(await ids({ categories_id: 9 })).toEqual([]);
  });

  it('writes through the client with the envelope type slider and merges languages on update', async () => {
    const created = await fx().client.create('sliders', [{ slider_id: 10, entity_type: 'news', entity_id: 2, languages: { en: { title: 'Grinder' } } }]);
    expect(created.outcomes[0]).toMatchObject({ ok: true, data: { slider_id: 10 } });
    await fx().client.update('sliders', [{ slider_id: 10, slider_status: 0, languages: { de: { title: 'Mühle' } } }]);
    expect(await fx().client.exportOne('sliders', 10)).toMatchObject({ slider_status: 0, languages: { en: { title: 'Grinder' }, de: { title: 'Mühle' } } });
  });

  it('answers 409 Already exists when every record of a POST uses a taken slider_id, and the client raises a ConflictError', async () => {
    const res = await fx().http.post('/import/json/slider', { type: 'slider', data: [{ slider_id: 1, languages: { de: { title: 'b' } } }] });
    expect(res.status).toBe(409);
    expect(res.data).toMatchObject({ success: false, error: { code: 'Already exists', details: { index: 0, slider_id: 1 } }, errors: [{ index: 0, code: 'Already exists' }] });
    const { outcomes } = await fx().client.create('sliders', [{ slider_id: 2 }]);
    expect(outcomes[0].error).toBeInstanceOf(ConflictError);
    expect(outcomes[0].error).toMatchObject({ status: 409, apiCode: 'Already exists', code: 'ALREADY_EXISTS' });
  });

  it('answers 200 to a mixed POST: the new slide is written, the taken id gets its own Already exists', async () => {
    const res = await fx().http.post('/import/json/slider', { type: 'slider', data: [{ slider_id: 11, languages: { de: { title: 'a' } } }, { slider_id: 1, languages: { de: { title: 'b' } } }] });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ type: 'slider', success: false, data: [{ index: 0, slider_id: 11 }], errors: [{ index: 1, code: 'Already exists' }] });
    expect(await fx().client.exportOne('sliders', 11)).toBeDefined();
  });

  it('answers 400 MISSING_ID for a PUT without slider_id and Not found for an unknown one', async () => {
    const res = await fx().http.put('/import/json/slider', { type: 'slider', data: [{ slider_status: 0 }] });
    expect([res.status, res.data.error.code]).toEqual([400, 'MISSING_ID']);
    const { outcomes } = await fx().client.update('sliders', [{ slider_status: 0 }]);
    expect(outcomes[0].error).toBeInstanceOf(ValidationError);
    expect(outcomes[0].error).toMatchObject({ status: 400, apiCode: 'MISSING_ID', code: 'MISSING_ID' });
    const unknown = await fx().client.update('sliders', [{ slider_id: 77, slider_status: 0 }]);
    expect(unknown.outcomes[0].error?.apiCode).toBe('Not found');
  });

  it('rejects an unknown entity_type', async () => {
    const { outcomes } = await fx().client.create('sliders', [{ entity_type: 'product', entity_id: 1 }]);
    expect(outcomes[0].error?.details?.field).toBe('entity_type');
  });

  it('deletes a slide with its language rows', async () => {
    expect(await fx().client.delete('sliders', 2)).toMatchObject({ success: true, deleted: [2] });
    expect(await fx().client.exportOne('sliders', 2)).toBeUndefined();
    await expect(fx().client.delete('sliders', 2)).rejects.toMatchObject({ status: 404 });
  });
});
