import { describe, expect, it } from 'vitest';
import { CoerceError, toDecimal, toInteger } from '../../src/mapping/coerce.js';
import { compileDateFormat, convertDate } from '../../src/mapping/dates.js';

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof CoerceError) return err.code;
    throw err;
  }
  return 'no error';
}

describe('decimal coercion', () => {
  it.each([
    ['de', '1.234,50', '1234.50'],
    ['de', '50,5', '50.5'],
    ['de', '-0,25', '-0.25'],
    ['de', '1.234.567', '1234567'],
    ['de', '12', '12'],
    ['en', '1,234.50', '1234.50'],
    ['en', '50.5', '50.5'],
    ['point', '+7.125', '7.125'],
    ['comma', '7,125', '7.125'],
    [undefined, '50.5', '50.5'],
    [undefined, '0.125', '0.125'],
    [undefined, '1234.5', '1234.5'],
  ] as const)('reads %s %s as %s', (locale, input, expected) => {
    expect(toDecimal(input, locale)).toBe(expected);
  });

  it('keeps numbers and refuses what a locale does not allow', () => {
    expect(toDecimal(50.5, undefined)).toBe('50.5');
    expect(code(() => toDecimal('12.50', 'de'))).toBe('MAPPING_DECIMAL');
    expect(code(() => toDecimal('1.234,5', 'en'))).toBe('MAPPING_DECIMAL');
    expect(code(() => toDecimal('abc', undefined))).toBe('MAPPING_DECIMAL');
    expect(code(() => toDecimal(Number.NaN, 'de'))).toBe('MAPPING_DECIMAL');
  });

  it('calls a source number ambiguous when no locale says how to read it', () => {
    for (const v of ['50,5', '1,234', '1.234', '1.234.567', '1.234,50']) expect(code(() => toDecimal(v, undefined))).toBe('GUARD_AMBIGUOUS_DECIMAL');
  });

  it('reads integers, also whole decimals in the locale', () => {
    expect(toInteger(' 42 ', undefined)).toBe(42);
    expect(toInteger('5,000', 'de')).toBe(5);
    expect(code(() => toInteger('5,5', 'de'))).toBe('MAPPING_INTEGER');
  });
});

describe('date conversion', () => {
  const rule = (format: string, kind: 'date' | 'datetime', inputZone = 'Europe/Berlin', outputZone = 'Europe/Berlin') => ({
    kind,
    parser: compileDateFormat(format),
    inputZone,
    outputZone,
    outputFormat: kind === 'date' ? 'YYYY-MM-DD' : 'YYYY-MM-DD HH:mm:ss',
  });

  it('reformats ERP dates without moving the calendar day', () => {
    expect(convertDate(rule('DD.MM.YYYY', 'date', 'UTC', 'Pacific/Auckland'), '31.12.2026')).toBe('2026-12-31');
    expect(convertDate(rule('YYYYMMDD', 'date'), '20260301')).toBe('2026-03-01');
  });

  it('moves datetimes between zones across daylight saving time', () => {
    expect(convertDate(rule('DD.MM.YYYY HH:mm', 'datetime', 'UTC'), '29.03.2026 00:30')).toBe('2026-03-29 01:30:00');
    expect(convertDate(rule('DD.MM.YYYY HH:mm', 'datetime', 'UTC'), '29.03.2026 01:30')).toBe('2026-03-29 03:30:00');
    expect(convertDate(rule('iso', 'datetime', 'UTC'), '2026-10-25T00:30:00+00:00')).toBe('2026-10-25 02:30:00');
    expect(convertDate(rule('iso', 'datetime', 'UTC'), '2026-10-25T01:30:00Z')).toBe('2026-10-25 02:30:00');
  });

  it('refuses a date that does not exist or does not match the format', () => {
    expect(code(() => convertDate(rule('DD.MM.YYYY', 'date'), '30.02.2026'))).toBe('MAPPING_DATE');
    expect(code(() => convertDate(rule('DD.MM.YYYY', 'date'), '2026-02-01'))).toBe('MAPPING_DATE');
  });
});
