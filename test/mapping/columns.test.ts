import { describe, expect, it } from 'vitest';
import { compileMapping } from '../../src/mapping/index.js';
import { missingColumns } from '../../src/mapping/columns.js';

const mapping = compileMapping(
  `name: t
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: ARTNR
fields:
  products_model: ARTNR
  products_price: { from: Preis.netto, type: decimal, locale: point }
  products_ean: { from: EAN, optional: true }
  languages.de.products_name: { template: "{Name} {Groesse}" }
  products_status: { value: 1, when: { from: Aktiv, equals: "J" } }
  groups:
    each: Preise
    when_missing: omit
    fields:
      customers_group_id: { from: Gruppe, type: integer }
      customers_group_price: { from: Betrag, type: decimal, locale: point }
  categories:
    each: Kategorien
    item: { from: $root.Hauptgruppe, lookup: { reference: categories } }
`,
  't.yaml',
);

describe('the columns a mapping reads', () => {
  it('are the record-level paths of from, templates and conditions; list entries, $index and constants are not columns', () => {
    expect(mapping.columns.map((c) => [c.column, c.optional])).toEqual([
      ['ARTNR', false],
      ['ARTNR', false],
      ['Preis', false],
      ['EAN', true],
      ['Name', false],
      ['Groesse', false],
      ['Aktiv', false],
      ['Preise', true],
      ['Kategorien', false],
      ['Hauptgruppe', false],
    ]);
    expect(mapping.columns.find((c) => c.column === 'Preis')).toMatchObject({ path: 'Preis.netto', at: 'fields.products_price', line: 7 });
  });

  it('are missing when none of the records had them, unless the rule says optional or the list says when_missing: omit', () => {
    const seen = new Set(['ARTNR', 'Preis', 'Name', 'Groesse', 'Aktiv', 'Kategorien']);
    expect(missingColumns(mapping.columns, seen).map((c) => c.column)).toEqual(['Hauptgruppe']);
    // A dotted column name the source has as it is counts too.
    expect(missingColumns(mapping.columns, new Set([...seen, 'Hauptgruppe'])).map((c) => c.column)).toEqual([]);
  });
});
