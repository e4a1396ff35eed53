/**
 * Hand-written matchers for the few regular expressions every write payload meets (decimals in
 * point notation, dates, datetimes, language codes). Each gives the same answer as its pattern
 * (test/shop/schema/patterns.test.ts compares them on generated strings); the compiled write check
 * and the guard rails use them in place of a regular expression run per value.
 */

const isDigit = (c: number) => c >= 48 && c <= 57;

function digitsAt(s: string, from: number, count: number): boolean {
  for (let i = from; i < from + count; i++) if (!isDigit(s.charCodeAt(i))) return false;
  return true;
}

/** `/^-?\d+(\.\d+)?$/`: a decimal in point notation ('50.5', '-3', never '50,5' or '.5'). */
export function isPointDecimal(s: string): boolean {
  const n = s.length;
  let i = s.charCodeAt(0) === 45 ? 1 : 0;
  const start = i;
  while (i < n && isDigit(s.charCodeAt(i))) i++;
  if (i === start) return false;
  if (i === n) return true;
  if (s.charCodeAt(i) !== 46) return false;
  const fraction = ++i;
  while (i < n && isDigit(s.charCodeAt(i))) i++;
  return i === n && i > fraction;
}

/** YYYY-MM-DD at the start of `s` (its length is checked by the caller). */
function dateAtStart(s: string): boolean {
  return digitsAt(s, 0, 4) && s.charCodeAt(4) === 45 && digitsAt(s, 5, 2) && s.charCodeAt(7) === 45 && digitsAt(s, 8, 2);
}

/** `/^\d{4}-\d{2}-\d{2}$/`. */
export function isDate(s: string): boolean {
  return s.length === 10 && dateAtStart(s);
}

/** `/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/`. */
export function isDateTime(s: string): boolean {
  return (
    s.length === 19 &&
    dateAtStart(s) &&
    s.charCodeAt(10) === 32 &&
    digitsAt(s, 11, 2) &&
    s.charCodeAt(13) === 58 &&
    digitsAt(s, 14, 2) &&
    s.charCodeAt(16) === 58 &&
    digitsAt(s, 17, 2)
  );
}

/** `/^[a-z]{2}$/`. */
export function isLanguageCode(s: string): boolean {
  if (s.length !== 2) return false;
  const a = s.charCodeAt(0);
  const b = s.charCodeAt(1);
  return a >= 97 && a <= 122 && b >= 97 && b <= 122;
}

/** Matchers by the source of the pattern they stand for (patterns without flags only). */
export const MATCHERS: ReadonlyMap<string, (s: string) => boolean> = new Map([
  [String.raw`^-?\d+(\.\d+)?$`, isPointDecimal],
  [String.raw`^\d{4}-\d{2}-\d{2}$`, isDate],
  [String.raw`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$`, isDateTime],
  [String.raw`^[a-z]{2}$`, isLanguageCode],
]);

/** A matcher with the verdict of `pattern.test(s)`, hand-written where one is known. */
export function matcherFor(pattern: RegExp): (s: string) => boolean {
  const known = pattern.flags === '' ? MATCHERS.get(pattern.source) : undefined;
  if (known) return known;
  return (s) => {
    pattern.lastIndex = 0;
    return pattern.test(s);
  };
}
