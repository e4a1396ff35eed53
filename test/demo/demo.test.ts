import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoArticles, demoOrderLines, demoOrders, demoPriceTiers, demoStock, demoTables, writeDemoCsv } from '../../src/demo/index.js';
import { parseCsv } from '../../src/mapping/input.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'shopsync-demo-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('demo ERP data', () => {
  it('is the same on every call', () => {
    expect(JSON.stringify(demoTables())).toBe(JSON.stringify(demoTables()));
  });

  it('looks like a German ERP export: article numbers, EAN-13, decimal commas, Lager 1 and 2', () => {
    const articles = demoArticles();
    expect(articles.length).toBeGreaterThanOrEqual(50);
    expect(articles.length).toBeLessThanOrEqual(200);
    expect(articles[0]).toMatchObject({ ARTNR: 'DEMO-1001', VK_Netto: '89,90', Bezeichnung: 'Studiokopfhörer' });
    for (const a of articles) {
      expect(a.EAN).toMatch(/^\d{13}$/);
      const digits = a.EAN.split('').map(Number);
      expect(digits.reduce((s, d, i) => s + d * (i % 2 === 0 ? 1 : 3), 0) % 10).toBe(0);
      expect(a.VK_Netto).toMatch(/^\d+,\d{2}$/);
    }
    expect(new Set(demoStock().map((s) => s.Lager))).toEqual(new Set(['1', '2']));
    expect(new Set(demoPriceTiers().map((p) => p.Preisgruppe))).toEqual(new Set(['HAE', 'EXP']));
    const orders = new Set(demoOrders().map((o) => o.BelegNr));
    expect(demoOrderLines().every((l) => orders.has(l.BelegNr))).toBe(true);
  });

  it('writes Windows-1252 CSV files with ; and decimal commas', async () => {
    const files = await writeDemoCsv(dir);
    expect(files.map((f) => path.basename(f))).toContain('artikel.csv');
    const bytes = await readFile(path.join(dir, 'artikel.csv'));
    // 'ö' is one byte (0xF6) in Windows-1252, two in UTF-8.
    expect(bytes.includes(Buffer.from([0xf6]))).toBe(true);
    expect(bytes.includes(Buffer.from('ö', 'utf8'))).toBe(false);
    const text = iconv.decode(bytes, 'windows-1252');
    expect(text.split('\r\n')[0].startsWith('ARTNR;EAN;Bezeichnung;')).toBe(true);
    const rows = parseCsv(text);
    expect(rows).toEqual(demoArticles());
  });

  it('describes SQLite tables that load with their rows', () => {
    const db = new Database(':memory:');
    try {
      for (const t of demoTables()) {
        db.exec(t.create);
        const insert = db.prepare(`INSERT INTO "${t.name}" (${t.columns.map((c) => `"${c}"`).join(', ')}) VALUES (${t.columns.map(() => '?').join(', ')})`);
        db.transaction(() => t.rows.forEach((r) => insert.run(...t.columns.map((c) => r[c]))))();
        expect((db.prepare(`SELECT COUNT(*) AS n FROM "${t.name}"`).get() as { n: number }).n).toBe(t.rows.length);
      }
      expect(db.prepare('SELECT VK_Netto FROM artikel WHERE ARTNR = ?').get('DEMO-1002')).toEqual({ VK_Netto: '49,50' });
    } finally {
      db.close();
    }
  });
});
