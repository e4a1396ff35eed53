import { describe, expect, it } from 'vitest';
import { didYouMean } from '../../src/util/suggest.js';

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
