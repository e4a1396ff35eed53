import { describe, expect, it } from 'vitest';
import { compileMapping, type CompiledMapping, type MappingContext, type MappingResult } from '../../src/mapping/index.js';
import { MappingFileError } from '../../src/mapping/problems.js';

const ctx: MappingContext = { lookupReference: () => undefined };

function products(fields: string): CompiledMapping {
  return compileMapping(`name: t\ndirection: erp-to-shop\ntarget: { resource: products, operation: upsert }\nkey: ARTNR\nfields:\n${fields}`, 't.yaml');
}

function applied(m: CompiledMapping, record: Record<string, unknown>): Extract<MappingResult, { ok: true }> {
  const r = m.applySync!(record, ctx);
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('\n'));
  return r;
}

describe('decimals fitted to the scale the shop stores', () => {
  it('rounds float noise away at the registry scale without a warning (quantities 8 places, prices 4)', () => {
    const m = products('  products_quantity: { from: Q, type: decimal }\n  products_price: { from: P, type: decimal }\n');
    const r = applied(m, { Q: 0.1 + 0.2, P: 1.1 + 2.2 });
    expect(r.payload).toEqual({ products_quantity: '0.3', products_price: '3.3' });
    expect(r.warnings).toEqual([]);
  });

  it('keeps trailing zeros that fit (12.3450 is a 4-place price as written)', () => {
    expect(applied(products('  products_price: { from: P, type: decimal, locale: point }\n'), { P: '12.3450' }).payload).toEqual({ products_price: '12.3450' });
  });

  it('rounds a value with more places than the field keeps half-up, and warns naming the field', () => {
    const r = applied(products('  products_price: { from: P, type: decimal, locale: point }\n'), { P: '12.34565' });
    expect(r.payload).toEqual({ products_price: '12.3457' });
    expect(r.warnings).toEqual([{ code: 'DECIMAL_ROUNDED', field: 'products_price', message: expect.stringContaining('12.34565 rounded half-up to 12.3457') }]);
  });

  it('takes a rule\'s `scale:` over the registry', () => {
    const r = applied(products('  products_price: { from: P, type: decimal, locale: point, scale: 2 }\n'), { P: '12.3456' });
    expect(r.payload).toEqual({ products_price: '12.35' });
    expect(r.warnings[0]).toMatchObject({ code: 'DECIMAL_ROUNDED', message: expect.stringContaining("the rule's `scale:` 2 decimal places") });
    expect(applied(products('  products_price: { from: P, type: decimal, scale: 6 }\n'), { P: 1.234567 }).payload).toEqual({ products_price: '1.234567' });
  });

  it('fits numbers of `type: number` and of untyped rules, keeping them numbers, inside list entries too', () => {
    const m = products('  products_weight: { from: W, type: number }\n  products_quantity: Q\n  storages:\n    each: L\n    fields:\n      storages_id: id\n      products_quantity: q\n      products_safe_quantity: { value: 0 }\n');
    const r = applied(m, { W: 0.1 + 0.7, Q: 0.1 + 0.2, L: [{ id: 1, q: 1.1 + 2.2 }] });
    expect(r.payload).toEqual({ products_weight: 0.8, products_quantity: 0.3, storages: [{ storages_id: 1, products_quantity: 3.3, products_safe_quantity: 0 }] });
    expect(r.warnings).toEqual([]);
  });

  it('refuses `scale:` on a rule that does not produce a decimal', () => {
    expect(() => products('  products_model: { from: ARTNR, type: string, scale: 2 }\n')).toThrow(MappingFileError);
    expect(() => products('  products_model: { from: ARTNR, type: string, scale: 2 }\n')).toThrow(/`scale` rounds decimals/);
  });
});
