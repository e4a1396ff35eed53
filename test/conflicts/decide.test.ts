/** The rule of a guarded field (issue 46): the ERP's value, the one last sent and the shop's decide whether it goes out. */
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/conflicts/decide.js';
import { getResource } from '../../src/shop/registry/index.js';

const products = getResource('products');
const shop = (price: unknown, description: unknown = 'Shop text') => ({ products_id: 1, products_price: price, languages: { de: { products_description: description } } });
const D = 'languages.de.products_description';

describe('deciding a guarded field', () => {
  it('sends the ERP value while the shop holds what was last sent, and agrees when the shop holds the ERP value already', () => {
    expect(decide(products, shop(9.9), 'products_price', '10.90', { known: true, value: '9.90' })).toBe('send');
    expect(decide(products, shop(10.9), 'products_price', '10.90', { known: true, value: '9.90' })).toBe('agreed');
  });

  it('compares decimals by value and a cleared text as cleared, as the shop exports them', () => {
    expect(decide(products, shop(9.9), 'products_price', '11.00', { known: true, value: '9.9000' })).toBe('send');
    expect(decide(products, shop(9.9, null), D, 'new', { known: true, value: '' })).toBe('send');
  });

  it('is a conflict when the shop holds something else, or when what was last sent is unknown', () => {
    expect(decide(products, shop(9.9), D, 'ERP v2', { known: true, value: 'ERP v1' })).toBe('conflict');
    expect(decide(products, shop(9.9), D, 'ERP v2', { known: false })).toBe('conflict');
    // The ERP did not change it either: still the shop's people's edit, left as it is and reported.
    expect(decide(products, shop(9.9), D, 'ERP v1', { known: true, value: 'ERP v1' })).toBe('conflict');
  });

  it('leaves out a field whose shop value a person kept over this very ERP value, and sends the ERP value once it changes', () => {
    const kept = { known: true, value: 'Shop text', erp: { value: 'ERP v2' } } as const;
    expect(decide(products, shop(9.9), D, 'ERP v2', kept)).toBe('kept');
    expect(decide(products, shop(9.9), D, 'ERP v3', kept)).toBe('send');
    expect(decide(products, shop(9.9, 'Edited again'), D, 'ERP v2', kept)).toBe('conflict');
  });
});
