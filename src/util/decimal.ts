/**
 * Decimal arithmetic on point-notation strings, exact (no binary floating point in between): a
 * double is first written as the shortest decimal that reads back as the same double (`String(n)`),
 * then rounded digit by digit. Used by the mapping (a value rounded to the scale the shop stores)
 * and by the sandbox (which stores with that scale), so both round alike.
 */

/** Significant digits a double holds exactly through a decimal round trip (DBL_DIG): digits past them are binary noise. */
export const DOUBLE_DIGITS = 15;

const POINT = /^([+-]?)(\d+)(?:\.(\d+))?$/;

/** Parts of a point decimal, or undefined when the text is not one. */
function parse(text: string): { negative: boolean; int: string; frac: string } | undefined {
  const m = POINT.exec(text);
  if (!m) return undefined;
  return { negative: m[1] === '-', int: m[2]!.replace(/^0+(?=\d)/, ''), frac: m[3] ?? '' };
}

/** A decimal string of digits plus one in the last place (`'0999'` → `'1000'`). */
function increment(digits: string): string {
  const out = digits.split('');
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i] !== '9') {
      out[i] = String(Number(out[i]) + 1);
      return out.join('');
    }
    out[i] = '0';
  }
  return `1${out.join('')}`;
}

function build(negative: boolean, int: string, frac: string): string {
  const i = int.replace(/^0+(?=\d)/, '') || '0';
  const f = frac.replace(/0+$/, '');
  const zero = /^0*$/.test(i) && f === '';
  return `${negative && !zero ? '-' : ''}${i}${f ? `.${f}` : ''}`;
}

/** The point-notation text of a finite number: its shortest round-trip form, undefined when JS would write an exponent (1e21, 1e-7). */
export function numberText(n: number): string | undefined {
  if (!Number.isFinite(n)) return undefined;
  const s = String(n);
  return /e/i.test(s) ? undefined : s;
}

/** The canonical form of a point decimal: no sign for zero, no leading zeros, no trailing fraction zeros (`'012.3450'` → `'12.345'`). */
export function canonicalDecimal(text: string): string | undefined {
  const p = parse(text.trim());
  return p ? build(p.negative, p.int, p.frac) : undefined;
}

/** Round a point decimal to `scale` fraction digits, half away from zero ("half-up", as MySQL's DECIMAL does); canonical result. */
export function roundHalfUp(text: string, scale: number): string | undefined {
  const p = parse(text.trim());
  if (!p) return undefined;
  if (p.frac.length <= scale) return build(p.negative, p.int, p.frac);
  const kept = p.int + p.frac.slice(0, scale);
  const up = p.frac.charCodeAt(scale) >= 53; // '5'
  const digits = up ? increment(kept) : kept;
  const cut = digits.length - scale;
  return build(p.negative, digits.slice(0, cut), digits.slice(cut));
}

/** Round a point decimal to `digits` significant digits, half away from zero; canonical result. */
export function roundSignificant(text: string, digits: number): string | undefined {
  const p = parse(text.trim());
  if (!p) return undefined;
  const all = p.int + p.frac;
  const lead = all.search(/[1-9]/);
  if (lead < 0) return '0';
  // Fraction digits that keep `digits` significant ones: those of the integer part count first.
  const scale = Math.max(0, lead + digits - p.int.length);
  return roundHalfUp(text, scale);
}

/** Fraction digits of a canonical decimal. */
function fractionDigits(canonical: string): number {
  const at = canonical.indexOf('.');
  return at < 0 ? 0 : canonical.length - at - 1;
}

/** A value fitted to a scale: the text to send, and whether more than float noise was cut. */
export interface Scaled {
  /** The value as the shop stores it: unchanged text when it fits, else rounded (canonical). */
  readonly text: string;
  /** True when the value had digits past the scale. */
  readonly rounded: boolean;
  /**
   * True when what was cut is more than a double's noise: the value, read to the 15 significant
   * digits a double holds, still has more fraction digits than the scale (12.3456 into 2 places;
   * 0.30000000000000004 into 8 is noise).
   */
  readonly lossy: boolean;
}

/**
 * Fit a point decimal to `scale` fraction digits. A value that fits keeps its text (the ERP's
 * trailing zeros, `'12.3450'`, stay: equal in value, and what the ERP wrote); a longer one is
 * rounded half-up. Undefined for text that is not a point decimal.
 */
export function fitScale(text: string, scale: number): Scaled | undefined {
  const canonical = canonicalDecimal(text);
  if (canonical === undefined) return undefined;
  if (fractionDigits(canonical) <= scale) return { text, rounded: false, lossy: false };
  const rounded = roundHalfUp(canonical, scale)!;
  const significant = roundSignificant(canonical, DOUBLE_DIGITS)!;
  return { text: rounded, rounded: true, lossy: fractionDigits(significant) > scale };
}

/** A number rounded half-up to `scale` places through its shortest decimal text (0.1 + 0.2 → 0.3 at any scale below 17). */
export function roundNumber(n: number, scale: number): number {
  const text = numberText(n);
  return text === undefined ? n : Number(roundHalfUp(text, scale));
}
