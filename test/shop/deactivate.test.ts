import { describe, expect, it } from 'vitest';
import { allResources } from '../../src/shop/registry/index.js';

// `onMissing: deactivate` writes the registry's `deactivate` field: it must be a field the
// resource's strict write schema takes, with that value, or every deactivation would be refused.
describe('registry deactivate entries', () => {
  const entries = allResources.filter((r) => r.deactivate);

  it('exist for products and categories', () => {
    expect(entries.map((r) => [r.name, r.deactivate])).toEqual(
      expect.arrayContaining([
        ['products', { field: 'products_status', value: 0, specified: false }],
        ['categories', { field: 'categories_status', value: 0, specified: true }],
      ]),
    );
  });

  it.each(entries.map((r) => [r.name, r] as const))('%s: the deactivation payload passes the write schema', (_name, r) => {
    const d = r.deactivate!;
    expect(r.schemas.write.safeParse({ [d.field]: d.value }).success).toBe(true);
    expect(r.schemas.write.safeParse({ [d.field]: 'off' }).success).toBe(false);
  });
});
