/**
 * CSV cells that spreadsheets would run. Excel, LibreOffice and Google Sheets read a cell that
 * starts with `=`, `+`, `-`, `@`, a tab or a carriage return as a formula (`=HYPERLINK(…)` from a
 * shop's product name sends whoever opens the file elsewhere; DDE formulas run commands). A leading
 * `'` makes such a cell text, as OWASP's "CSV injection" advice says. Plain numbers (`-3`,
 * `-12.50`, `1e-3`) stay as they are: a spreadsheet reads them as numbers, never as a formula.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][+-]?\d+)?$/;

/** The cell as text when a spreadsheet would read it as a formula (a leading `'`); otherwise unchanged. */
export function escapeFormulaCell(value: string): string {
  return FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
}
