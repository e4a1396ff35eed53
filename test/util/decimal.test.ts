import { describe, expect, it } from 'vitest';
import { canonicalDecimal, fitScale, numberText, roundHalfUp, roundNumber, roundSignificant } from '../../src/util/decimal.js';

describe('decimal arithmetic on point-notation text', () => {
  it('rounds half away from zero, digit by digit, carrying into the integer part', () => {
    expect(roundHalfUp('12.345', 2)).toBe('12.35');
    expect(roundHalfUp('12.344999', 2)).toBe('12.34');
    expect(roundHalfUp('-12.345', 2)).toBe('-12.35');
    expect(roundHalfUp('9.995', 2)).toBe('10');
    expect(roundHalfUp('99.5', 0)).toBe('100');
    expect(roundHalfUp('-0.004', 2)).toBe('0');
    expect(roundHalfUp('not a number', 2)).toBeUndefined();
  });

  it('rounds the shortest text of a double, not its binary value (1.005 is 1.00499999… in binary)', () => {
    expect(Math.round(1.005 * 100) / 100).toBe(1);
    expect(roundNumber(1.005, 2)).toBe(1.01);
    expect(roundNumber(0.1 + 0.2, 8)).toBe(0.3);
    expect(numberText(1e21)).toBeUndefined();
  });

  it('writes a decimal canonically and to significant digits', () => {
    expect(canonicalDecimal('012.3450')).toBe('12.345');
    expect(canonicalDecimal('-0.000')).toBe('0');
    expect(roundSignificant('0.30000000000000004', 15)).toBe('0.3');
    expect(roundSignificant('1234.5678', 6)).toBe('1234.57');
  });

  it('keeps a value that fits the scale as written, and tells float noise from a real loss', () => {
    expect(fitScale('12.3450', 4)).toEqual({ text: '12.3450', rounded: false, lossy: false });
    expect(fitScale(String(0.1 + 0.2), 8)).toEqual({ text: '0.3', rounded: true, lossy: false });
    expect(fitScale('12.3456', 2)).toEqual({ text: '12.35', rounded: true, lossy: true });
    expect(fitScale('12,5', 2)).toBeUndefined();
  });
});
