import { describe, expect, it } from 'vitest';
import { contentHash, stableStringify } from '../../src/pipeline/hash.js';

describe('content hash', () => {
  it('gives equal hashes for equal content in any key order', () => {
    expect(contentHash({ a: 1, b: { c: [1, 2], d: 'x' } })).toBe(contentHash({ b: { d: 'x', c: [1, 2] }, a: 1 }));
  });

  it('changes when a value, an array order or a nested field changes', () => {
    const base = contentHash({ a: 1, list: [1, 2] });
    expect(contentHash({ a: 2, list: [1, 2] })).not.toBe(base);
    expect(contentHash({ a: 1, list: [2, 1] })).not.toBe(base);
    expect(contentHash({ a: 1, list: [1, 2], extra: null })).not.toBe(base);
  });

  it('treats an undefined field as absent but keeps null and strings distinct from numbers', () => {
    expect(stableStringify({ a: 1, b: undefined })).toBe('{"a":1}');
    expect(contentHash({ price: '1.50' })).not.toBe(contentHash({ price: 1.5 }));
  });

  it('writes the text stored hashes were taken of: keys in the default sort order at every depth, for any keys', () => {
    // The text as it was written before the keys were sorted by hand (hashes stored since depend on it byte for byte).
    const reference = (v: unknown): string => {
      if (v === undefined) return 'null';
      if (v === null || typeof v !== 'object') return typeof v === 'number' && !Number.isFinite(v) ? 'null' : JSON.stringify(v);
      if (Array.isArray(v)) return `[${v.map(reference).join(',')}]`;
      const o = v as Record<string, unknown>;
      return `{${Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => `${JSON.stringify(k)}:${reference(o[k])}`).join(',')}}`;
    };
    const numbers = [0, -0, 1.5, -12.25, 0.1 + 0.2, 1e21, 1e-7, 123456789012345680000, Number.NaN, Infinity, -Infinity, 2 ** 53];
    const keys = ['b', 'a', '10', '9', 'Z', 'z', 'ä', 'é', '_', 'products_name', 'products_model', '0', '-1', '\u{1F600}', 'aa', 'A'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const build = (depth: number): Record<string, unknown> => {
      const out: Record<string, unknown> = {};
      const n = next() % (depth === 0 ? 40 : 8);
      for (let i = 0; i < n; i++) {
        const key = next() % 3 === 0 ? `${keys[next() % keys.length]}${next() % 50}` : keys[next() % keys.length]!;
        out[key] =
          depth < 2 && next() % 4 === 0
            ? build(depth + 1)
            : next() % 5 === 0
              ? [next() % 10, { x: 'y' }, numbers[next() % numbers.length]]
              : next() % 6 === 0
                ? numbers[next() % numbers.length]
                : next() % 7 === 0
                  ? undefined
                  : `v${next() % 100}`;
      }
      return out;
    };
    for (let i = 0; i < 300; i++) {
      const value = build(0);
      expect(stableStringify(value)).toBe(reference(value));
    }
  });
});
