/**
 * What a column's sample values are: whole numbers, decimals (and in which notation), dates (and
 * in which format), yes/no flags or text. Only what every non-empty value agrees on counts: one
 * `12.50` among `12,50`s makes the column text, not a guess.
 */
import type { DecimalLocale } from '../mapping/schema.js';
import type { Column, ColumnKind } from './types.js';

const INTEGER = /^[+-]?\d+$/;
const COMMA_DECIMAL = /^[+-]?\d+,\d+$/;
const DE_GROUPED = /^[+-]?\d{1,3}(\.\d{3})+(,\d+)?$/;
const POINT_DECIMAL = /^[+-]?\d+\.\d+$/;
const EN_GROUPED = /^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/;

/** Text date formats init recognises, in the mapping's format tokens. */
const DATE_FORMATS: readonly { re: RegExp; format: string; kind: 'date' | 'datetime' }[] = [
  { re: /^\d{4}-\d{2}-\d{2}$/, format: 'YYYY-MM-DD', kind: 'date' },
  { re: /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/, format: 'iso', kind: 'datetime' },
  { re: /^\d{2}\.\d{2}\.\d{4}$/, format: 'DD.MM.YYYY', kind: 'date' },
  { re: /^\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}:\d{2}$/, format: 'DD.MM.YYYY HH:mm:ss', kind: 'datetime' },
  { re: /^\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}$/, format: 'DD.MM.YYYY HH:mm', kind: 'datetime' },
  { re: /^\d{2}\/\d{2}\/\d{4}$/, format: 'DD/MM/YYYY', kind: 'date' },
];

/** Words ERPs use for yes and no (compared lower-case). */
const YES = new Set(['j', 'ja', 'y', 'yes', 'true', 'x', '1', 'wahr', 'aktiv']);
const NO = new Set(['n', 'nein', 'no', 'false', '0', 'falsch', 'inaktiv']);

const SAMPLES = 5;

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The notation every text number of the list is written in, or undefined when they disagree or are not numbers. */
function decimalNotation(values: readonly string[]): { kind: 'integer' | 'decimal'; locale?: DecimalLocale } | undefined {
  let comma = false;
  let point = false;
  let grouped: DecimalLocale | undefined;
  for (const v of values) {
    if (INTEGER.test(v)) continue;
    if (COMMA_DECIMAL.test(v)) comma = true;
    else if (DE_GROUPED.test(v)) grouped = grouped === 'en' ? undefined : 'de';
    else if (POINT_DECIMAL.test(v)) point = true;
    else if (EN_GROUPED.test(v)) grouped = grouped === 'de' ? undefined : 'en';
    else return undefined;
  }
  if (!comma && !point && !grouped) return { kind: 'integer' };
  // `1.234` alone reads either way; the other values of the column decide.
  if (comma && !point && grouped !== 'en') return { kind: 'decimal', locale: grouped === 'de' || comma ? 'de' : 'comma' };
  if (point && !comma && grouped !== 'de') return { kind: 'decimal', locale: grouped === 'en' ? 'en' : 'point' };
  if (!comma && !point && grouped) return { kind: 'decimal', locale: grouped };
  return undefined;
}

/** Analyse one column from its sample values (as the source delivered them: strings, numbers, booleans, null). */
export function analyseColumn(name: string, values: readonly unknown[], extra: { declaredType?: string; primaryKey?: boolean } = {}): Column {
  const present = values.filter((v) => v !== null && v !== undefined && !(typeof v === 'string' && v.trim() === ''));
  const empty = values.length - present.length;
  const texts = present.map(text);
  const distinct = [...new Set(texts)];
  const base = { name, ...extra, samples: distinct.slice(0, SAMPLES), empty, unique: present.length > 0 && empty === 0 && distinct.length === present.length };
  const lower = new Set(distinct.map((d) => d.trim().toLowerCase()));
  const booleanLike = distinct.length > 0 && distinct.length <= 4 && [...lower].every((v) => YES.has(v) || NO.has(v)) && [...lower].some((v) => YES.has(v));
  const booleans = booleanLike ? { true: distinct.filter((d) => YES.has(d.trim().toLowerCase())), false: distinct.filter((d) => NO.has(d.trim().toLowerCase())) } : undefined;
  const withFlags = (c: Omit<Column, 'booleans'>): Column => (booleans ? { ...c, booleans } : c);
  if (present.length === 0) return { ...base, kind: 'empty' };
  if (present.every((v) => typeof v === 'boolean')) return { ...base, kind: 'boolean', booleans: { true: ['true'], false: ['false'] } };
  if (present.every((v) => typeof v === 'number')) return withFlags({ ...base, numbers: true, kind: present.every((v) => Number.isInteger(v)) ? 'integer' : 'decimal' });
  if (present.every((v) => typeof v === 'string')) {
    const trimmed = texts.map((t) => t.trim());
    const notation = decimalNotation(trimmed);
    if (notation) return withFlags({ ...base, kind: notation.kind, ...(notation.locale ? { locale: notation.locale } : {}) });
    for (const f of DATE_FORMATS) if (trimmed.every((t) => f.re.test(t))) return { ...base, kind: f.kind, dateFormat: f.format };
    if (booleans) return { ...base, kind: 'boolean', booleans };
  }
  const kind: ColumnKind = 'text';
  return { ...base, kind };
}

/** The decimal notation most decimal columns use (the mapping's default `locale:`). */
export function dominantLocale(columns: readonly Column[]): DecimalLocale | undefined {
  const counts = new Map<DecimalLocale, number>();
  for (const c of columns) if (c.locale) counts.set(c.locale, (counts.get(c.locale) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}
