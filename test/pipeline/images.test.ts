import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/index.js';
import { mappingFile, pushFixture, sqliteSource, type PushFixture } from './support.js';

// Product images from a folder per article (bilder/<ARTNR>/), uploaded with the assumed POST /media
// shape before the gallery is replaced; a folder that cannot be read never empties a gallery.
const MAPPING = `
name: images
direction: erp-to-shop
target: { resource: products, operation: update }
key: ARTNR
shop_key: products_model
fields:
  products_model: ARTNR
  images:
    folder: "bilder/{ARTNR}"
    fields:
      image: name
      sort_order: $index
      alt.de: { template: "{$root.Bezeichnung} ({$index})" }
`;
const SOURCE = { query: 'SELECT * FROM artikel', cursor: 'Geaendert', key: 'ARTNR' };
const def = { name: 'images', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'images.yaml', resource: 'products', options: { mediaUpload: 'assumed-media-endpoint' as const } };
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0xff, 0xd9]);

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
  f.erp.exec('CREATE TABLE artikel (ARTNR TEXT PRIMARY KEY, Bezeichnung TEXT, Geaendert TEXT NOT NULL)');
  const old = [{ image: 'old-1.jpg', sort_order: 1, alt: { de: 'Alt' } }];
  const created = await f.shop.create('products', ['ART-1', 'ART-2', 'ART-3', 'ART-4'].map((m) => ({ products_model: m, products_price: '10.00', languages: { de: { products_name: m } }, images: old })));
  expect(created.outcomes.every((o) => o.ok)).toBe(true);
});
afterEach(async () => {
  await f.close();
});

function article(artnr: string): void {
  f.erp.prepare('INSERT INTO artikel VALUES (?, ?, ?)').run(artnr, `Artikel ${artnr}`, '2026-01-01 00:00:00');
}

async function gallery(model: string): Promise<unknown> {
  for await (const p of f.shop.exportAll('products')) if (p.products_model === model) return p.images;
  throw new Error(`no product ${model}`);
}

describe('product images from an ERP folder', () => {
  it("uploads the folder's pictures and replaces the gallery by file name, with alt texts and sort order", async () => {
    mkdirSync(join(f.dir, 'bilder', 'ART-1'), { recursive: true });
    for (const name of ['front-10.jpg', 'front-2.jpg', 'notes.txt']) writeFileSync(join(f.dir, 'bilder', 'ART-1', name), JPEG);
    article('ART-1');
    const mapping = await mappingFile(f.dir, 'images', MAPPING);
    const summary = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, SOURCE) });
    // No IMAGE_FILE_MISSING warning: the shop had both files before the gallery named them.
    expect(summary.counts).toMatchObject({ updated: 1, deadLettered: 0, warnings: 0 });
    expect(await gallery('ART-1')).toEqual([
      { image: 'front-2.jpg', sort_order: 1, alt: { de: 'Artikel ART-1 (1)' } },
      { image: 'front-10.jpg', sort_order: 2, alt: { de: 'Artikel ART-1 (2)' } },
    ]);
  });

  it('never empties a gallery because a folder is unreadable, missing or empty: that article gets its own error, the others go on', async () => {
    mkdirSync(join(f.dir, 'bilder', 'ART-1'), { recursive: true });
    writeFileSync(join(f.dir, 'bilder', 'ART-1', 'a.jpg'), JPEG);
    // A file where the folder should be cannot be listed (as an unmounted share or a permission problem cannot).
    writeFileSync(join(f.dir, 'bilder', 'ART-2'), 'not a folder');
    mkdirSync(join(f.dir, 'bilder', 'ART-4'), { recursive: true });
    for (const a of ['ART-1', 'ART-2', 'ART-3', 'ART-4']) article(a);
    const mapping = await mappingFile(f.dir, 'images', MAPPING);
    const summary = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, SOURCE) });
    expect(summary.counts).toMatchObject({ updated: 1, deadLettered: 3 });
    const letters = Object.fromEntries((await f.state.deadLetters.list({ pipeline: 'images' })).map((l) => [l.erpKey, l]));
    expect(letters['ART-2']).toMatchObject({ code: 'GUARD_FOLDER_UNREADABLE' });
    expect(letters['ART-2']!.reason).toContain('ENOTDIR');
    expect(letters['ART-3']).toMatchObject({ code: 'GUARD_EMPTY_REPLACE_LIST' });
    expect(letters['ART-3']!.reason).toContain('does not exist');
    expect(letters['ART-4']).toMatchObject({ code: 'GUARD_EMPTY_REPLACE_LIST' });
    const old = [{ image: 'old-1.jpg', sort_order: 1, alt: { de: 'Alt' } }];
    for (const model of ['ART-2', 'ART-3', 'ART-4']) expect(await gallery(model)).toEqual(old);
    expect(await gallery('ART-1')).toEqual([{ image: 'a.jpg', sort_order: 1, alt: { de: 'Artikel ART-1 (1)' } }]);
  });

  it('sends nothing when the shop refuses a picture: the record is dead-lettered and its gallery stays', async () => {
    mkdirSync(join(f.dir, 'bilder', 'ART-1'), { recursive: true });
    writeFileSync(join(f.dir, 'bilder', 'ART-1', 'big.jpg'), Buffer.alloc(2048, 1));
    await fetch(`${f.sandbox.url}/sandbox/settings`, { method: 'PUT', headers: { authorization: `Bearer ${f.sandbox.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ API_MEDIA_MAX_FILESIZE: '1K' }) });
    article('ART-1');
    const mapping = await mappingFile(f.dir, 'images', MAPPING);
    const summary = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, SOURCE) });
    expect(summary.counts).toMatchObject({ updated: 0, deadLettered: 1 });
    expect((await f.state.deadLetters.list({ pipeline: 'images' }))[0]).toMatchObject({ erpKey: 'ART-1', code: 'MEDIA_TOO_LARGE' });
    expect(await gallery('ART-1')).toEqual([{ image: 'old-1.jpg', sort_order: 1, alt: { de: 'Alt' } }]);
  });
});
