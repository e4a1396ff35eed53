/**
 * Export parameters of manufacturers (handler by the sandbox-1 engineer), over the client.
 *
 * | rule | spec (shop-api.md) |
 * |---|---|
 * | export parameters manufacturers_id, limit, offset | l.621 |
 */
import { describe, expect, it } from 'vitest';
import { collect, useContentSandbox } from './content-fixture.js';

const fx = useContentSandbox();

describe('manufacturers export parameters', () => {
  it('honours manufacturers_id, limit and offset', async () => {
    const all = await collect(fx().client.exportAll('manufacturers'));
    expect(all.length).toBeGreaterThanOrEqual(2);
    const second = all[1].manufacturers_id as number;
    const one = await collect(fx().client.exportAll('manufacturers', { filters: { manufacturers_id: second } }));
    expect(one.map((m) => m.manufacturers_id)).toEqual([second]);
    const page = await fx().http.get('/export/json/manufacturers', { params: { limit: 1, offset: 1 } });
    expect(page.data.pagination).toMatchObject({ total: all.length, limit: 1, offset: 1 });
    expect(page.data.data.map((m: { manufacturers_id: number }) => m.manufacturers_id)).toEqual([second]);
  });
});
