import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MappingError } from '../../src/errors.js';
import { checkMappings, loadMapping, loadMappings } from '../../src/mapping/index.js';

let dir: string;
const yaml = (name: string) => `name: ${name}\ndirection: erp-to-shop\ntarget: { resource: products, operation: update }\nkey: A\nfields:\n  products_model: A\n`;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'shopsync-mapping-load-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loading mapping files', () => {
  it('compiles once: applying needs neither the file nor a second parse', async () => {
    const file = path.join(dir, 'once.yaml');
    await writeFile(file, yaml('once'));
    const m = await loadMapping(file);
    await rm(file);
    expect(m.applySync!({ A: 'X' }, { lookupReference: () => undefined })).toEqual({ ok: true, payload: { products_model: 'X' }, warnings: [] });
  });

  it('loads a folder by mapping name and refuses two files with the same name', async () => {
    const sub = path.join(dir, 'two');
    await rm(sub, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(sub));
    await writeFile(path.join(sub, 'a.yaml'), yaml('a'));
    await writeFile(path.join(sub, 'b.yml'), yaml('b'));
    await writeFile(path.join(sub, 'notes.txt'), 'not a mapping');
    expect([...(await loadMappings(sub)).keys()]).toEqual(['a', 'b']);
    await writeFile(path.join(sub, 'c.yaml'), yaml('a'));
    await expect(loadMappings(sub)).rejects.toMatchObject({ code: 'MAPPING_DUPLICATE' });
  });

  it('reports an unreadable file as a problem of that file', async () => {
    const report = await checkMappings([path.join(dir, 'missing.yaml')]);
    expect(report.ok).toBe(false);
    expect(report.files[0].problems[0]).toBeInstanceOf(MappingError);
    expect(report.files[0].problems[0].code).toBe('MAPPING_READ');
  });
});

describe('the shipped mappings folder', () => {
  it('loads as one set with unique names', async () => {
    const all = await loadMappings(path.resolve('mappings'));
    expect([...all.keys()].sort()).toEqual([
      'categories', 'contracts', 'customers', 'manufacturers', 'newsletter-to-erp', 'order-status', 'orders-from-erp', 'orders-to-erp', 'products', 'stock', 'stock-per-warehouse', 'tickets-to-erp', 'variants', 'variants-to-erp',
    ]);
    expect([...all.values()].filter((m) => m.usesExpressions).map((m) => m.name)).toEqual(['tickets-to-erp']);
  });
});

