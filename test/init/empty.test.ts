/**
 * init writes an empty policy on every proposed rule (issue 40, item 2): `clear` where a value may
 * legitimately be removed (EAN, descriptions), `keep` for prices, stock and the status, none on the
 * required key, each with a comment saying why; the file it writes loads and clears a removed EAN.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { analyseColumn, dominantLocale } from '../../src/init/columns.js';
import { propose } from '../../src/init/propose.js';
import { renderMapping } from '../../src/init/render.js';
import type { Introspection } from '../../src/init/types.js';
import { compileMapping } from '../../src/mapping/index.js';
import { resources } from '../../src/shop/registry/index.js';

function intro(rows: Record<string, unknown>[]): Introspection {
  const names = Object.keys(rows[0] ?? {});
  const columns = names.map((n) => analyseColumn(n, rows.map((r) => r[n])));
  const locale = dominantLocale(columns);
  return { rows: rows.length, columns, ...(locale ? { locale } : {}) };
}

const rows = [
  { artnr: 'A-1', Bezeichnung: 'Tisch', EAN: '4006381333931', Beschreibung: 'Eiche, massiv', Preis: '12,50', Bestand: '3', Aktiv: 'ja' },
  { artnr: 'A-2', Bezeichnung: 'Stuhl', EAN: null, Beschreibung: '', Preis: '1.299,00', Bestand: '0', Aktiv: 'nein' },
];

function rendered(): string {
  const introspection = intro(rows);
  const proposal = propose(introspection, { resource: resources.products, language: 'de', needsCursor: false });
  return renderMapping({ dir: '/tmp', name: 'products', resource: 'products', sourceLabel: 'artikel.csv', proposal, introspection });
}

describe('init\'s empty policies', () => {
  it('proposes clear for the EAN and the description, keep for price, stock, status and name, and nothing on the required key', () => {
    const fields = (parse(rendered()) as { fields: Record<string, Record<string, unknown>> }).fields;
    expect(fields.products_ean).toMatchObject({ from: 'EAN', when_empty: 'clear' });
    expect(fields['languages.de.products_description']).toMatchObject({ from: 'Beschreibung', when_empty: 'clear' });
    expect(fields.products_price).toMatchObject({ from: 'Preis', type: 'decimal', when_empty: 'keep' });
    expect(fields.products_quantity).toMatchObject({ from: 'Bestand', type: 'decimal', when_empty: 'keep' });
    expect(fields.products_status).toMatchObject({ from: 'Aktiv', when_empty: 'keep' });
    expect(fields['languages.de.products_name']).toMatchObject({ from: 'Bezeichnung', when_empty: 'keep' });
    expect(fields.products_model).toEqual({ from: 'artnr', trim: true, required: true });
  });

  it('says why in each rule\'s comment', () => {
    const lines = rendered().split('\n');
    const line = (target: string) => lines.find((l) => l.startsWith(`  ${target}:`)) ?? '';
    expect(line('products_ean')).toMatch(/when_empty: clear.*# .*empty in the ERP empties it in the shop$/);
    expect(line('products_price')).toMatch(/when_empty: keep.*# .*empty keeps the shop's value: an empty cell is unknown, never 0$/);
    expect(line('products_quantity')).toMatch(/an empty cell is unknown, never 0$/);
    expect(line('products_status')).toMatch(/this field cannot be emptied safely$/);
    expect(line('products_model')).not.toContain('when_empty');
  });

  it('writes a file that loads, and clears a removed EAN and description while keeping an empty price', () => {
    const m = compileMapping(rendered(), 'products.yaml');
    const r = m.applySync!({ artnr: 'A-2', Bezeichnung: 'Stuhl', EAN: null, Beschreibung: '', Preis: '', Bestand: '', Aktiv: 'ja' }, { lookupReference: () => undefined });
    expect(r.ok && r.payload).toEqual({ products_model: 'A-2', products_ean: '', products_status: 1, languages: { de: { products_name: 'Stuhl', products_description: '' } } });
  });
});
