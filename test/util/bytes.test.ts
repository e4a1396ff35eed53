/** Sizes in messages, and the bound on what the state keeps of long texts. */
import { describe, expect, it } from 'vitest';
import { boundedJson, clipStrings, clipText, exceedsBytes, formatBytes, STORED_JSON_MAX, STORED_TEXT_MAX } from '../../src/util/bytes.js';

describe('formatBytes', () => {
  it('names whole units plainly and others with one decimal', () => {
    expect([formatBytes(300), formatBytes(2048), formatBytes(1536), formatBytes(64 * 1024 * 1024), formatBytes(2_200_000)]).toEqual(['300 bytes', '2 KiB', '1.5 KiB', '64 MiB', '2.1 MiB']);
  });
});

describe('exceedsBytes', () => {
  it('measures UTF-8 bytes', () => {
    expect(exceedsBytes('ä'.repeat(10), 19)).toBe(true);
    expect(exceedsBytes('ä'.repeat(10), 20)).toBe(false);
    expect(exceedsBytes('😀'.repeat(5), 20)).toBe(false);
    expect(exceedsBytes('😀'.repeat(5), 19)).toBe(true);
  });
});

describe('clipping for the state', () => {
  it('keeps a short text as it is and cuts a long one with its size, never half a surrogate pair', () => {
    expect(clipText('kurz', 10)).toBe('kurz');
    expect(clipText('x'.repeat(20), 10)).toBe(`${'x'.repeat(10)}…(truncated, 20 bytes)`);
    expect(clipText(`${'x'.repeat(9)}😀😀`, 10)).toBe(`${'x'.repeat(9)}…(truncated, 17 bytes)`);
  });

  it('returns the same object when nothing is long, and copies only what it cuts', () => {
    const small = { a: ['x', { b: 'y' }] };
    expect(clipStrings(small, 10)).toBe(small);
    const big = { a: ['x', { b: 'y'.repeat(11) }], c: { d: 1 } };
    const out = clipStrings(big, 10);
    expect(out).toEqual({ a: ['x', { b: `${'y'.repeat(10)}…(truncated, 11 bytes)` }], c: { d: 1 } });
    expect(out.c).toBe(big.c);
    expect(big.a[1]).toEqual({ b: 'y'.repeat(11) });
  });

  it('bounds a stored column: long strings clipped, a payload still too large replaced by its size', () => {
    expect(boundedJson({ a: 1 })).toBe('{"a":1}');
    const clipped = JSON.parse(boundedJson({ name: 'n'.repeat(50_000) })) as { name: string };
    expect(clipped.name).toBe(`${'n'.repeat(STORED_TEXT_MAX)}…(truncated, 50000 bytes)`);
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, 'm'.repeat(STORED_TEXT_MAX)]));
    expect(boundedJson(many).length).toBeGreaterThan(STORED_JSON_MAX);
    expect(JSON.parse(boundedJson(many, true))).toEqual({ truncated: true, bytes: JSON.stringify(many).length });
  });
});
