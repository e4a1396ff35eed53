import { describe, expect, it } from 'vitest';
import { didYouMean, nearMatches } from '../../src/util/suggest.js';

describe('did you mean', () => {
  it('offers the nearest candidate for a plausible typo, ignoring case', () => {
    expect(didYouMean('products_eam', ['products_ean', 'products_model'])).toBe('products_ean');
    expect(didYouMean('BatchSize', ['batchSize', 'timeoutMs'])).toBe('batchSize');
  });

  it('offers nothing for a name too far from every candidate, or without candidates', () => {
    expect(didYouMean('colour', ['products_ean', 'products_model'])).toBeUndefined();
    expect(didYouMean('anything', [])).toBeUndefined();
  });
});

describe('near matches', () => {
  it('lists every candidate within the did-you-mean distance, nearest first, ties in the given order, at most the limit', () => {
    expect(nearMatches('auftrage', ['erp.kunden', 'erp.auftraege', 'archiv.auftraege', 'erp.auftrag'], { spelling: (t) => t.split('.')[1] ?? t })).toEqual(['erp.auftraege', 'archiv.auftraege', 'erp.auftrag']);
    expect(nearMatches('AUFTRAGE', ['auftraege', 'auftrag', 'auftraeg'], { limit: 2 })).toEqual(['auftraege', 'auftrag']);
    expect(nearMatches('kunden', ['auftraege'])).toEqual([]);
  });
});
