import { describe, expect, it } from 'vitest';
import { formatAbsolute, formatCount, formatDuration, formatRelative, parseDateParam, timeCell } from '../../src/dashboard/format.js';

describe('formatting', () => {
  it('groups thousands and shows a dash for missing counts', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCount(undefined)).toBe('–');
  });

  it('shows durations in the largest sensible unit', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(12_345)).toBe('12.3 s');
    expect(formatDuration(245_000)).toBe('4 min 05 s');
    expect(formatDuration(3_720_000)).toBe('1 h 02 min');
  });

  it('says how long ago or how soon, relative to now', () => {
    const now = new Date('2026-11-22T12:00:00Z');
    expect(formatRelative(new Date('2026-11-22T11:57:00Z'), now)).toBe('3 min ago');
    expect(formatRelative(new Date('2026-11-22T14:30:00Z'), now)).toBe('in 2 h');
    expect(formatRelative(new Date('2026-11-22T11:59:55Z'), now)).toBe('just now');
    expect(formatRelative(new Date('2026-11-19T12:00:00Z'), now)).toBe('3 d ago');
  });

  it('shows a time both absolute (UTC) and relative', () => {
    const now = new Date('2026-11-22T12:00:00Z');
    const cell = timeCell(new Date('2026-11-22T11:00:00Z'), now).value;
    expect(cell).toContain('datetime="2026-11-22T11:00:00.000Z"');
    expect(cell).toContain('2026-11-22 11:00:00 UTC');
    expect(cell).toContain('1 h ago');
    expect(formatAbsolute(now)).toBe('2026-11-22 12:00:00 UTC');
  });

  it('reads filter dates as UTC and ignores nonsense', () => {
    expect(parseDateParam('2026-11-22')?.toISOString()).toBe('2026-11-22T00:00:00.000Z');
    expect(parseDateParam('2026-11-22T08:30')?.toISOString()).toBe('2026-11-22T08:30:00.000Z');
    expect(parseDateParam('yesterday-ish')).toBeUndefined();
    expect(parseDateParam('')).toBeUndefined();
  });
});
