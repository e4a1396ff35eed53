import { describe, expect, it } from 'vitest';
import { payloadChanges } from '../../src/dashboard/pages/changes.js';
import { readChanges, recordLabel } from '../../src/dashboard/pages/record-events.js';

describe('what changed in an update', () => {
  it('lists changed and added leaves by dot path, and not a field the update leaves out (the shop keeps it)', () => {
    const before = { products_price: '19.90', products_quantity: 12, languages: { de: { products_name: 'Hammer' } }, images: ['a.jpg'] };
    const after = { products_price: '21.50', products_quantity: 12, languages: { de: { products_name: 'Hammer', seo_name: 'hammer' } }, images: ['a.jpg', 'b.jpg'] };
    expect(payloadChanges(before, after)).toEqual([
      { path: 'images', before: ['a.jpg'], after: ['a.jpg', 'b.jpg'] },
      { path: 'languages.de.seo_name', before: undefined, after: 'hammer' },
      { path: 'products_price', before: '19.90', after: '21.50' },
    ]);
    expect(payloadChanges(before, before)).toEqual([]);
    expect(payloadChanges(before, { products_price: '19.90' })).toEqual([]);
  });

  it('reads the diff shapes pipelines store', () => {
    expect(readChanges({ products_quantity: { shop: 3, next: 7 } })).toEqual([{ path: 'products_quantity', before: 3, after: 7 }]);
    expect(readChanges([{ path: ['a', 'b'], before: 1, after: 2 }])).toEqual([{ path: 'a.b', before: 1, after: 2 }]);
    expect(readChanges({ price: [1, 2] })).toEqual([{ path: 'price', before: 1, after: 2 }]);
    expect(readChanges('something else')).toBeUndefined();
  });

  it('finds a readable name in a payload or ERP record, skipping SEO names', () => {
    expect(recordLabel({ languages: { de: { seo_name: 'x', products_name: 'Hammer' } } })).toBe('Hammer');
    expect(recordLabel({ sku: 'A', name: 'Jacket' })).toBe('Jacket');
    expect(recordLabel({ sku: 'A' })).toBeUndefined();
  });
});
