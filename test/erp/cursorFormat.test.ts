/**
 * A cursor value shopsync writes itself (a cap, a lookback start, a rewritten stored cursor) is
 * written in the form learnt from the column's own values, so `column > cursor` compares as the
 * column's values compare, as text too.
 */
import { describe, expect, it } from 'vitest';
import { compareCursorValues, formatText, isNumberCursor, looksLikeTime, parseTimestamp, sameTextOrder, writeLike } from '../../src/erp/cursorFormat.js';

const form = (v: string) => parseTimestamp(v)!.format;

describe('the form of a cursor value', () => {
  it('is learnt from one value: separator, seconds, fraction digits, zone suffix as written', () => {
    expect(formatText(form('2026-12-01 19:59:19.624'))).toBe('YYYY-MM-DD HH:MM:SS.fff (no zone)');
    expect(formatText(form('2026-12-01T19:59:02.063871'))).toBe('YYYY-MM-DDTHH:MM:SS.ffffff (no zone)');
    expect(formatText(form('2026-12-01 19:59:19.62+00'))).toBe('YYYY-MM-DD HH:MM:SS.ff+HH');
    expect(formatText(form('2026-12-01T19:59:19+01:00'))).toBe('YYYY-MM-DDTHH:MM:SS+HH:MM');
    expect(formatText(form('2026-12-01T19:59+0100'))).toBe('YYYY-MM-DDTHH:MM+HHMM');
    expect(formatText(form('2026-12-01'))).toBe('YYYY-MM-DD');
    // Not timestamps: other text, a day that does not exist, numbers.
    expect(parseTimestamp('01.12.2026 19:59')).toBeUndefined();
    expect(parseTimestamp('2026-02-30 10:00')).toBeUndefined();
    expect(parseTimestamp(4711)).toBeUndefined();
    expect([4711, '4711', '-3', '12.5', '2026-12-01', 'v1'].map(isNumberCursor)).toEqual([true, true, true, true, false, false]);
    // A time in a form shopsync cannot write, against text that is no time at all.
    expect(['01.12.2026 19:59', '12/01/2026', '19:59 01.12.', 'A-000123', 'v1.2'].map(looksLikeTime)).toEqual([true, true, true, false, false]);
  });

  it('writes another value in that form: the same instant in the offset, digits cut (earlier) or exact zeros', () => {
    const bound = parseTimestamp('2026-12-01T19:59:02.063871')!;
    expect(writeLike(bound, form('2026-12-01 19:59:19.624'))).toBe('2026-12-01 19:59:02.063');
    expect(writeLike(bound, form('2026-12-01 19:59'))).toBe('2026-12-01 19:59');
    expect(writeLike(parseTimestamp('2026-12-01T19:59:02Z')!, form('2026-12-01 19:59:19.624+01'))).toBe('2026-12-01 20:59:02.000+01');
    expect(writeLike(parseTimestamp('2026-12-01T00:30:00Z')!, form('2026-12-01T10:00:00-05:00'))).toBe('2026-11-30T19:30:00-05:00');
    expect(writeLike(bound, form('2026-12-05'))).toBe('2026-12-01');
  });

  it('tells which forms compare as their times when compared as text', () => {
    expect(sameTextOrder(form('2026-12-01 19:59:19.624'), form('2026-12-01 19:59:02.063871'))).toBe(true);
    expect(sameTextOrder(form('2026-12-01 19:59:19.624'), form('2026-12-01T19:59:02.063871'))).toBe(false);
    expect(sameTextOrder(form('2026-12-01T19:59:19Z'), form('2026-12-01T19:59:19+00:00'))).toBe(false);
    expect(sameTextOrder(form('2026-12-01T19:59:19Z'), form('2026-12-01T19:59:19'))).toBe(false);
    expect(sameTextOrder(form('2026-12-01'), form('2026-12-01T19:59:19Z'))).toBe(true);
  });

  it('orders cursor values as the database does: integers given as text by value, timestamps by time, other text as text', () => {
    expect(compareCursorValues('9', '10')).toBeLessThan(0);
    expect(compareCursorValues('92233720368547758070', '92233720368547758069')).toBeGreaterThan(0);
    expect(compareCursorValues('2026-12-01T12:00:42Z', '2026-12-01T12:00:42.5Z')).toBeLessThan(0);
    expect(compareCursorValues('2026-12-01 23:00', '2026-12-01T22:00')).toBeGreaterThan(0);
    expect(compareCursorValues('b', 'a')).toBeGreaterThan(0);
  });
});
