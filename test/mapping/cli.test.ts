import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mappingFiles, mappingsCheckCommand, mappingsPreviewCommand } from '../../src/mapping/index.js';
import { demoStock, writeDemoCsv } from '../../src/demo/index.js';

const shipped = path.resolve('mappings');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'shopsync-mapping-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('shopsync mappings check', () => {
  it('passes on every shipped mapping file', async () => {
    const lines: string[] = [];
    const { exitCode, report } = await mappingsCheckCommand([], (l) => lines.push(l), { dir: shipped });
    expect(report.files.length).toBeGreaterThanOrEqual(11);
    expect(report.files.filter((f) => !f.ok).map((f) => f.problems.map((p) => p.message))).toEqual([]);
    expect(exitCode).toBe(0);
    expect(lines.at(-1)).toBe(`${report.files.length} mapping file(s) valid`);
  });

  it('warns STOCK_CHOICE_MISSING on a mapping that writes stock without saying whether the figure is reserved or available, and passes it', async () => {
    const original = await readFile(path.join(shipped, 'stock.yaml'), 'utf8');
    const unchosen = original.replace(/^stock: available\n/m, '');
    expect(unchosen).not.toBe(original);
    const file = path.join(dir, 'stock-unchosen.yaml');
    await writeFile(file, unchosen);
    const lines: string[] = [];
    const { exitCode, report } = await mappingsCheckCommand([file, path.join(shipped, 'stock.yaml')], (l) => lines.push(l));
    expect(exitCode).toBe(0);
    expect(report.files.map((f) => f.warnings?.map((w) => w.code) ?? [])).toEqual([['STOCK_CHOICE_MISSING'], []]);
    expect(lines.find((l) => l.startsWith('warning [STOCK_CHOICE_MISSING]'))).toContain('stock: reserved');
  });

  it('fails with file:line and a suggestion on a file with a typo in a field name', async () => {
    const original = await readFile(path.join(shipped, 'products.yaml'), 'utf8');
    const broken = original.replace('  products_ean: { from: EAN', '  products_eam: { from: EAN');
    expect(broken).not.toBe(original);
    const file = path.join(dir, 'products-typo.yaml');
    await writeFile(file, broken);
    const line = broken.split('\n').findIndex((l) => l.startsWith('  products_eam:')) + 1;
    const lines: string[] = [];
    const { exitCode } = await mappingsCheckCommand([path.join(shipped, 'stock.yaml'), file], (l) => lines.push(l));
    expect(exitCode).toBe(1);
    expect(lines).toContain(`error ${file}:${line}:3: target \`products_eam\`: unknown field \`products_eam\` of products; did you mean \`products_ean\`? (the shop would silently ignore it)`);
    expect(lines.at(-1)).toBe('1 of 2 mapping file(s) invalid');
  });
});

describe('shopsync mappings preview', () => {
  it('shows each CSV record beside its payload and the guard-rail findings', async () => {
    const csvDir = path.join(dir, 'csv');
    await writeDemoCsv(csvDir);
    const lines: string[] = [];
    const refs: Record<string, number> = { 'manufacturers:H-002': 2, 'manufacturers:H-001': 1, 'manufacturers:H-003': 3, 'categories:WG-110': 2, 'categories:WG-120': 3, 'categories:WG-210': 5, 'categories:WG-900': 8 };
    const { exitCode, records } = await mappingsPreviewCommand(
      path.join(shipped, 'products.yaml'),
      { input: path.join(csvDir, 'artikel.csv'), limit: 14, lookupReference: (r, k) => refs[`${r}:${k}`] },
      (l) => lines.push(l),
    );
    expect(records).toHaveLength(14);
    // The Windows-1252 file decodes to the right umlauts and its decimal commas leave as points.
    expect(records[0].source).toMatchObject({ ARTNR: 'DEMO-1001', Bezeichnung: 'Studiokopfhörer', VK_Netto: '89,90' });
    expect(records[0].result).toMatchObject({ ok: true, payload: { products_model: 'DEMO-1001', products_price: '89.90', manufacturers_id: 2, categories: [2] } });
    // DEMO-1012 carries no supplier article number: refused, not sent with an erased number.
    const refused = records.filter((r) => !r.result.ok);
    expect(refused.map((r) => r.source.ARTNR)).toEqual(['DEMO-1012']);
    expect(lines.some((l) => l.includes('guard [GUARD_SUPPLIER_WITHOUT_NUMBER]'))).toBe(true);
    expect(lines.at(-1)).toBe('13 ok, 1 refused');
    expect(exitCode).toBe(1);
  });

  it('exits 2 when the input cannot be read', async () => {
    const lines: string[] = [];
    const { exitCode } = await mappingsPreviewCommand(path.join(shipped, 'stock.yaml'), { input: path.join(dir, 'nope.json') }, (l) => lines.push(l));
    expect(exitCode).toBe(2);
    expect(lines[0]).toContain('cannot read the input file');
  });

  it('reads NDJSON and JSON envelopes', async () => {
    const file = path.join(dir, 'orders.ndjson');
    await writeFile(file, `${JSON.stringify({ orders_id: 1, date_purchased: '2026-05-01 12:00:00', products: [] })}\n${JSON.stringify({ orders_id: 2, date_purchased: '2026-05-02 12:00:00' })}\n`);
    const lines: string[] = [];
    const { exitCode, records } = await mappingsPreviewCommand(path.join(shipped, 'orders-to-erp.yaml'), { input: file }, (l) => lines.push(l));
    expect(exitCode).toBe(0);
    expect(records.map((r) => r.result.ok && r.result.payload.Bestelldatum)).toEqual(['01.05.2026 12:00:00', '02.05.2026 12:00:00']);
    expect(await mappingFiles(shipped)).toContain(path.join(shipped, 'orders-to-erp.yaml'));
  });
});

describe('shopsync mappings check without files', () => {
  it('fails with a readable line when the mappings folder does not exist', async () => {
    const lines: string[] = [];
    const { exitCode } = await mappingsCheckCommand([], (l) => lines.push(l), { dir: path.join(dir, 'no-such-folder') });
    expect(exitCode).toBe(1);
    expect(lines[0]).toContain('cannot read the mappings folder');
  });
});

describe('flat CSV rows', () => {
  it('maps every row of the Windows-1252 stock export with the per-warehouse mapping', async () => {
    const csvDir = path.join(dir, 'csv-stock');
    await writeDemoCsv(csvDir);
    const lines: string[] = [];
    const { exitCode, records } = await mappingsPreviewCommand(path.join(shipped, 'stock-per-warehouse.yaml'), { input: path.join(csvDir, 'lagerbestand.csv'), limit: 1000 }, (l) => lines.push(l));
    expect(exitCode).toBe(0);
    // One row per article in Lager 1 and every other article in Lager 2: 68 + 34.
    expect(records.length).toBe(demoStock().length);
    expect(records.length).toBe(102);
    expect(records[1].result).toMatchObject({ ok: true, payload: { products_model: 'DEMO-1001', storages: [{ storages_id: 3, products_quantity: '5.000', products_safe_quantity: '1.000', products_storage_text: 'Süd A-1' }] } });
  });
});

