/** Owned fields as payload paths (issue 46): read one, leave some out of an update, build a one-field update. */
import { describe, expect, it } from 'vitest';
import { hasPath, setPath, valueAtPath, withoutPaths } from '../../src/conflicts/index.js';

const payload = { products_model: 'A-1', products_price: '9.90', languages: { de: { products_name: 'Kessel', products_description: 'Text' }, en: { products_description: 'Text en' } } };

describe('payload paths', () => {
  it('reads a value at a dot path, and nothing through a missing step or a scalar', () => {
    expect(valueAtPath(payload, 'languages.de.products_description')).toBe('Text');
    expect(valueAtPath(payload, 'products_price')).toBe('9.90');
    expect(valueAtPath(payload, 'languages.fr.products_name')).toBeUndefined();
    expect(valueAtPath(payload, 'products_price.x')).toBeUndefined();
    expect(hasPath(payload, 'languages.en.products_description')).toBe(true);
  });

  it('leaves paths out of a copy, dropping an object left empty, and never touches the payload itself', () => {
    const out = withoutPaths(payload, ['languages.en.products_description', 'languages.de.products_description', 'products_price']);
    expect(out).toEqual({ products_model: 'A-1', languages: { de: { products_name: 'Kessel' } } });
    expect(payload.languages.en.products_description).toBe('Text en');
    expect(payload.products_price).toBe('9.90');
  });

  it('answers the payload itself when it carries none of the paths (no copy for the common update)', () => {
    expect(withoutPaths(payload, ['products_ean', 'languages.fr.products_name'])).toBe(payload);
    expect(withoutPaths(payload, undefined)).toBe(payload);
  });

  it('sets a value at a path, making the objects on the way', () => {
    const out: Record<string, unknown> = { products_id: 7 };
    setPath(out, 'languages.de.products_description', 'ERP');
    setPath(out, 'languages.de.products_name', 'Name');
    expect(out).toEqual({ products_id: 7, languages: { de: { products_description: 'ERP', products_name: 'Name' } } });
  });
});
