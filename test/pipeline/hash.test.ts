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
});
