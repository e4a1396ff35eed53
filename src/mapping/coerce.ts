/**
 * Type coercion of source values. Decimals always leave in point notation; a source number whose
 * reading depends on a locale the mapping did not declare is refused, never guessed.
 */
import type { DecimalLocale } from './schema.js';

/** A value could not be coerced; the rule engine adds field, source value and rule. */
export class CoerceError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const POINT = /^[+-]?\d+(\.\d+)?$/;
const COMMA = /^[+-]?\d+(,\d+)?$/;
const DE_GROUPED = /^[+-]?\d{1,3}(\.\d{3})+(,\d+)?$/;
const EN_GROUPED = /^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/;

function stripPlus(s: string): string {
  return s.startsWith('+') ? s.slice(1) : s;
}

const DIGIT_0 = 48;
const DIGIT_9 = 57;
const COMMA_CODE = 44;
const POINT_CODE = 46;

/**
 * The usual cell (`89,90` in de, `89.90` in en or point, `12` anywhere): digits with at most one
 * decimal separator between them, no sign, space or grouping. One pass over the characters instead
 * of a trim, a replace and two regular expressions; any other text (and undefined) takes the full
 * path below, which gives the same answer for these.
 */
function plainDecimal(s: string, locale: DecimalLocale | undefined): string | undefined {
  const n = s.length;
  if (n === 0) return undefined;
  // The separator the locale reads as the decimal point; without a locale only plain integers are sure.
  const sep = locale === 'de' || locale === 'comma' ? COMMA_CODE : locale === 'en' || locale === 'point' ? POINT_CODE : -1;
  let at = -1;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= DIGIT_0 && c <= DIGIT_9) continue;
    if (c !== sep || at !== -1 || i === 0 || i === n - 1) return undefined;
    at = i;
  }
  if (at === -1 || sep === POINT_CODE) return s;
  // Two slices and a join: String.replace with a string pattern measured about a quarter slower.
  return `${s.slice(0, at)}.${s.slice(at + 1)}`;
}

/** Parse a decimal in the given locale into a point-notation string ('1.234,50' de → '1234.50'). */
export function toDecimal(value: unknown, locale: DecimalLocale | undefined): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new CoerceError('MAPPING_DECIMAL', `${value} is not a finite number`);
    const s = String(value);
    if (/e/i.test(s)) throw new CoerceError('MAPPING_DECIMAL', `${s} is too large or too small to send as a decimal`);
    return s;
  }
  if (typeof value !== 'string') throw new CoerceError('MAPPING_DECIMAL', `expected a number, got ${describe(value)}`);
  const plain = plainDecimal(value, locale);
  if (plain !== undefined) return plain;
  // Non-breaking spaces are thousands separators in some exports; they never carry meaning.
  const s = value.trim().replace(/[\u00a0\u202f]/g, '');
  switch (locale) {
    case 'de':
      if (COMMA.test(s)) return stripPlus(s.replace(',', '.'));
      if (DE_GROUPED.test(s)) return stripPlus(s.replace(/\./g, '').replace(',', '.'));
      if (/^[+-]?\d+$/.test(s)) return stripPlus(s);
      throw new CoerceError('MAPPING_DECIMAL', `\`${value}\` is not a decimal in German notation (like 1.234,50 or 50,5)`);
    case 'en':
      if (POINT.test(s)) return stripPlus(s);
      if (EN_GROUPED.test(s)) return stripPlus(s.replace(/,/g, ''));
      throw new CoerceError('MAPPING_DECIMAL', `\`${value}\` is not a decimal in English notation (like 1,234.50 or 50.5)`);
    case 'point':
      if (POINT.test(s)) return stripPlus(s);
      throw new CoerceError('MAPPING_DECIMAL', `\`${value}\` is not a decimal in point notation (like 1234.50)`);
    case 'comma':
      if (COMMA.test(s)) return stripPlus(s.replace(',', '.'));
      throw new CoerceError('MAPPING_DECIMAL', `\`${value}\` is not a decimal in comma notation (like 1234,50)`);
    default:
      // '1.234' may be German thousands grouping; '0.125' cannot be.
      if (POINT.test(s) && !/^[+-]?[1-9]\d{0,2}\.\d{3}$/.test(s)) return stripPlus(s);
      if (s.includes(',') || /^[+-]?[1-9]\d{0,2}(\.\d{3})+$/.test(s)) {
        throw new CoerceError(
          'GUARD_AMBIGUOUS_DECIMAL',
          `\`${value}\` is ambiguous without a declared locale (is the comma or point a decimal or thousands separator?); declare \`locale: de\` or \`locale: en\` on the rule or the mapping`,
        );
      }
      throw new CoerceError('MAPPING_DECIMAL', `\`${value}\` is not a decimal number`);
  }
}

/** Parse an integer (a decimal string in the locale is accepted when it has no fraction). */
export function toInteger(value: unknown, locale: DecimalLocale | undefined): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^[+-]?\d+$/.test(value.trim())) return Number(value.trim());
  const dec = toDecimal(value, locale);
  const n = Number(dec);
  if (!Number.isInteger(n)) throw new CoerceError('MAPPING_INTEGER', `\`${String(value)}\` is not a whole number`);
  return n;
}

/** Match a value against explicit true/false lists (compared as trimmed strings). */
export function toBoolean(value: unknown, truthy: ReadonlySet<string>, falsy: ReadonlySet<string>): boolean {
  const s = typeof value === 'string' ? value.trim() : String(value);
  if (truthy.has(s)) return true;
  if (falsy.has(s)) return false;
  throw new CoerceError(
    'MAPPING_BOOLEAN',
    `\`${String(value)}\` is neither a declared true value (${[...truthy].join(', ')}) nor a false value (${[...falsy].join(', ')}); declare it under \`true:\`/\`false:\``,
  );
}

/** Turn a scalar into a string; objects and lists are refused. */
export function toText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  throw new CoerceError('MAPPING_STRING', `expected a text value, got ${describe(value)}`);
}

/** A short description of a value for messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'object') return 'an object';
  return `\`${String(value)}\` (${typeof value})`;
}
