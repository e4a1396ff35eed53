import { describe, expect, it } from 'vitest';
import { formatPath, valueAt } from '../../src/util/paths.js';

describe('issue paths', () => {
  it('reads the value at a path and gives undefined where the path leaves the objects', () => {
    const root = { groups: [{ price: '9,90' }], name: 'x' };
    expect(valueAt(root, ['groups', 0, 'price'])).toBe('9,90');
    expect(valueAt(root, ['name', 'length', 'deeper'])).toBeUndefined();
    expect(valueAt(root, [])).toBe(root);
  });

  it('writes a path with indexes in brackets and names the root as asked', () => {
    expect(formatPath(['groups', 0, 'price'])).toBe('groups[0].price');
    expect(formatPath([3, 'products_id'])).toBe('[3].products_id');
    expect(formatPath([])).toBe('');
    expect(formatPath([], '(root)')).toBe('(root)');
  });
});
