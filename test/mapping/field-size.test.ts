/** GUARD_FIELD_TOO_LARGE: a text bound for the shop is measured in UTF-8 bytes, at any depth, against `maxFieldBytes`. */
import { describe, expect, it } from 'vitest';
import { GuardRailError } from '../../src/errors.js';
import { compileMapping, type LoadOptions, type MappingContext, type MappingResult } from '../../src/mapping/index.js';

const ctx: MappingContext = { lookupReference: () => 42 };
const YAML = `name: t
direction: erp-to-shop
target: { resource: products, operation: update }
key: K
fields:
  products_model: K
  languages.de.products_name: Name
  languages.de.products_description: Text
`;
const apply = (record: Record<string, unknown>, options: LoadOptions = {}): MappingResult => compileMapping(YAML, 'size.yaml', options).applySync!({ K: 'A-1', ...record }, ctx);
const codes = (r: MappingResult) => (r.ok ? [] : r.errors.map((e) => e.code));

describe('a field larger than maxFieldBytes', () => {
  it('passes up to the limit and fails one byte above it, naming the field, its rule and the setting', () => {
    expect(apply({ Name: 'x'.repeat(2048) }, { maxFieldBytes: 2048 }).ok).toBe(true);
    const r = apply({ Name: 'x'.repeat(2049) }, { maxFieldBytes: 2048 });
    expect(codes(r)).toEqual(['GUARD_FIELD_TOO_LARGE']);
    const err = (r as { errors: GuardRailError[] }).errors[0];
    expect(err).toBeInstanceOf(GuardRailError);
    expect(err).toMatchObject({ field: 'languages.de.products_name', record: { erpKey: 'A-1' } });
    expect(err?.message).toMatch(/^field `languages\.de\.products_name`: 2\.0 KiB \(2049 bytes\), more than the 2 KiB .*shop\.maxFieldBytes.*\(rule `from: Name` at size\.yaml:7\)$/);
  });

  it('counts bytes, not characters: 1,500 umlauts are 3,000 bytes', () => {
    expect(codes(apply({ Text: 'ä'.repeat(1500) }, { maxFieldBytes: 2048 }))).toEqual(['GUARD_FIELD_TOO_LARGE']);
    expect(apply({ Text: 'ä'.repeat(1000) }, { maxFieldBytes: 2048 }).ok).toBe(true);
  });

  it('is 1 MiB by default', () => {
    expect(apply({ Name: 'x'.repeat(1024 * 1024) }).ok).toBe(true);
    expect(codes(apply({ Name: 'x'.repeat(1024 * 1024 + 1) }))).toEqual(['GUARD_FIELD_TOO_LARGE']);
  });
});
