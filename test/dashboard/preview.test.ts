import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stateSnapshot } from '../support/untouched.js';
import { startShopsync, XSS_NAME, type Shopsync } from './fixture.js';

let shopsync: Shopsync;
beforeEach(async () => {
  shopsync = await startShopsync({ extraPipelines: true });
});
afterEach(async () => {
  await shopsync.close();
});

const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(shopsync.url + path, { headers, redirect: 'manual' });
  return { status: res.status, body: await res.text(), csp: res.headers.get('content-security-policy') ?? '' };
};
/** The preview panels of a page, in order: ERP key and verdict. */
const panels = (body: string) => [...body.matchAll(/<section class="panel preview-record [a-z]+" data-erp-key="([^"]*)" data-action="([^"]*)">/g)].map((m) => [m[1], m[2]]);
async function shopProducts(): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const p of shopsync.shop.exportAll('products')) out.push([p.products_model, p.products_price, p.products_quantity]);
  return out;
}
/** Everything a preview must leave as it was: the state, the shop's products and the ERP. */
const world = async () => ({
  state: await stateSnapshot(shopsync.state, ['manufacturers-push', 'products-push', 'broken-push'], ['manufacturers', 'products']),
  shop: await shopProducts(),
  erp: shopsync.erp.prepare('SELECT * FROM articles ORDER BY sku').all(),
});

describe('mapping preview page', () => {
  it('is linked from the overview card of every push pipeline, and of no pull pipeline', async () => {
    const { body } = await get('/');
    const links = [...body.matchAll(/href="(\/pipelines\/[^"]+\/preview)" data-preview-link/g)].map((m) => m[1]);
    expect(links).toEqual(['/pipelines/manufacturers-push/preview', '/pipelines/products-push/preview', '/pipelines/broken-push/preview']);
  });

  it('shows each next record with its payload, its diff against the shop and every guard-rail finding, and writes nothing anywhere', async () => {
    await shopsync.run('manufacturers-push');
    await shopsync.run('products-push');
    const add = shopsync.erp.prepare('INSERT INTO articles VALUES (?, ?, ?, ?, ?, ?)');
    shopsync.erp.prepare('UPDATE articles SET price = ?, updated_at = ? WHERE sku = ?').run('21.50', '2026-01-05T00:00:00Z', 'HAMMER-1');
    add.run('SAW-1', 'Japanese pull saw with a replaceable blade, 240 mm', '34.00', 7, 'ACME', '2026-01-05T00:00:01Z');
    add.run('BAD-1', 'Tape measure', '1,5', 'some', 'ACME', '2026-01-05T00:00:02Z');
    const before = await world();

    const { status, body, csp } = await get('/pipelines/products-push/preview');

    expect(status).toBe(200);
    expect(csp).toContain("script-src 'self'");
    expect(body).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(panels(body)).toEqual([['HAMMER-1', 'would-update'], ['SAW-1', 'would-create'], ['BAD-1', 'refused']]);
    expect(body).toContain('<td><code>products_price</code></td><td class="before mono">19.9</td><td class="after mono">&quot;21.50&quot;</td>');
    expect(body).toMatch(/<code class="code">GUARD_AMBIGUOUS_DECIMAL<\/code> field &#96;products_price&#96;: &#96;1,5&#96; is ambiguous/);
    expect(body).toMatch(/<code class="code">MAPPING_DECIMAL<\/code> field &#96;products_quantity&#96;: &#96;some&#96; is not a decimal number/);
    expect(body).toMatch(/<code class="code">TRUNCATED<\/code> cut from 50 to 40 characters/);
    expect(body).toContain('data-more="none"');
    expect(await world()).toEqual(before);
  });

  it('reads 10 records unless told otherwise, and never more than 50', async () => {
    const add = shopsync.erp.prepare('INSERT INTO articles VALUES (?, ?, ?, ?, ?, ?)');
    for (let i = 1; i <= 60; i++) add.run(`BULK-${String(i).padStart(2, '0')}`, `Bulk ${i}`, '1.00', 1, 'ACME', `2026-02-01T00:00:${String(i).padStart(2, '0')}Z`);
    const counts = async (query: string) => {
      const { body } = await get(`/pipelines/products-push/preview${query}`);
      return [panels(body).length, /name="limit" min="1" max="50" value="(\d+)"/.exec(body)?.[1], body.includes('data-more>')];
    };
    expect(await counts('')).toEqual([10, '10', true]);
    expect(await counts('?limit=3')).toEqual([3, '3', true]);
    expect(await counts('?limit=100000')).toEqual([50, '50', true]);
    expect(await counts('?limit=ten')).toEqual([10, '10', true]);
  });

  it('says on the page when the source cannot be read, with its code, and no stack trace', async () => {
    const before = await world();
    const { status, body } = await get('/pipelines/broken-push/preview');
    expect(status).toBe(502);
    expect(body).toContain('data-preview-error');
    expect(body).toMatch(/<code class="code">[A-Z_]+<\/code>[^<]*artikel_alt/);
    expect(body).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
    expect(await world()).toEqual(before);
  });

  it('explains that a pull pipeline has no ERP records to preview', async () => {
    const { status, body } = await get('/pipelines/orders-pull/preview');
    expect(status).toBe(200);
    expect(body).toContain('data-preview-note');
    expect(body).toContain('<code>shopsync sync orders-pull --dry-run</code>');
    expect(panels(body)).toEqual([]);
  });

  it('answers 404 for an unknown pipeline and shows its name as text', async () => {
    const { status, body } = await get(`/pipelines/${encodeURIComponent(XSS_NAME)}/preview`);
    expect(status).toBe(404);
    expect(body).not.toContain(XSS_NAME);
    expect(body).toContain('&lt;img src=x');
  });

  it('is not started by another site, even another port on this host', async () => {
    for (const site of ['cross-site', 'same-site']) expect((await get('/pipelines/products-push/preview', { 'sec-fetch-site': site })).status).toBe(403);
    expect((await get('/pipelines/products-push/preview', { 'sec-fetch-site': 'none' })).status).toBe(200);
    expect((await get('/pipelines/products-push/preview', { 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  });
});
