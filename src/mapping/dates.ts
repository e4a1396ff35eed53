/**
 * Dates and datetimes: parse an ERP format in the ERP's time zone, emit the shop's format in the
 * shop's time zone ('YYYY-MM-DD HH:MM:SS'), using only Intl (no date library needed for this).
 */
import { CoerceError } from './coerce.js';

/** Tokens a format may use; everything else is literal. `iso` alone means ISO 8601 with optional offset. */
const TOKENS = ['YYYY', 'YY', 'MM', 'DD', 'HH', 'mm', 'ss', 'M', 'D', 'H'] as const;
type Token = (typeof TOKENS)[number];
const TOKEN_RE: Record<Token, string> = { YYYY: '(\\d{4})', YY: '(\\d{2})', MM: '(\\d{2})', DD: '(\\d{2})', HH: '(\\d{2})', mm: '(\\d{2})', ss: '(\\d{2})', M: '(\\d{1,2})', D: '(\\d{1,2})', H: '(\\d{1,2})' };

interface Fields { y: number; mo: number; d: number; h: number; mi: number; s: number }

/** A compiled input format. */
export interface DateParser {
  readonly hasTime: boolean;
  /** Parse into wall-clock fields, or return an epoch when the input carried its own offset (iso). */
  parse(text: string): Fields | { epochMs: number };
}

/** Compile an input format once (`DD.MM.YYYY`, `DD.MM.YYYY HH:mm:ss`, `YYYYMMDD`, `iso`). */
export function compileDateFormat(format: string): DateParser {
  if (format === 'iso') {
    return {
      hasTime: true,
      parse(text) {
        const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(text);
        if (!m) throw new CoerceError('MAPPING_DATE', `\`${text}\` is not an ISO 8601 date`);
        const f = check({ y: +m[1], mo: +m[2], d: +m[3], h: +(m[4] ?? 0), mi: +(m[5] ?? 0), s: +(m[6] ?? 0) }, text, format);
        if (!m[7]) return f;
        const sign = m[7] === 'Z' ? 0 : m[7][0] === '-' ? -1 : 1;
        const off = m[7] === 'Z' ? 0 : sign * (Number(m[7].slice(1, 3)) * 60 + Number(m[7].slice(-2)));
        return { epochMs: Date.UTC(f.y, f.mo - 1, f.d, f.h, f.mi, f.s) - off * 60_000 };
      },
    };
  }
  const order: Token[] = [];
  let re = '';
  for (let i = 0; i < format.length; ) {
    const tok = TOKENS.find((t) => format.startsWith(t, i));
    if (tok) {
      order.push(tok);
      re += TOKEN_RE[tok];
      i += tok.length;
    } else {
      re += format[i].replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      i++;
    }
  }
  if (!order.some((t) => t.startsWith('Y')) || !order.some((t) => t.startsWith('M')) || !order.some((t) => t.startsWith('D'))) {
    throw new Error(`date format \`${format}\` needs YYYY (or YY), MM (or M) and DD (or D); time tokens are HH, mm, ss; or use \`iso\``);
  }
  const regex = new RegExp(`^${re}$`);
  const hasTime = order.some((t) => t === 'HH' || t === 'H');
  return {
    hasTime,
    parse(text) {
      const m = regex.exec(text);
      if (!m) throw new CoerceError('MAPPING_DATE', `\`${text}\` does not match the date format \`${format}\``);
      const f: Fields = { y: 0, mo: 1, d: 1, h: 0, mi: 0, s: 0 };
      for (let i = 0; i < order.length; i++) {
        const tok = order[i];
        const n = Number(m[i + 1]);
        if (tok === 'YYYY') f.y = n;
        else if (tok === 'YY') f.y = n < 70 ? 2000 + n : 1900 + n;
        else if (tok === 'MM' || tok === 'M') f.mo = n;
        else if (tok === 'DD' || tok === 'D') f.d = n;
        else if (tok === 'HH' || tok === 'H') f.h = n;
        else if (tok === 'mm') f.mi = n;
        else f.s = n;
      }
      return check(f, text, format);
    },
  };
}

function check(f: Fields, text: string, format: string): Fields {
  const t = new Date(Date.UTC(f.y, f.mo - 1, f.d, f.h, f.mi, f.s));
  if (t.getUTCFullYear() !== f.y || t.getUTCMonth() !== f.mo - 1 || t.getUTCDate() !== f.d || f.h > 23 || f.mi > 59 || f.s > 59) {
    throw new CoerceError('MAPPING_DATE', `\`${text}\` is not a real date/time (format \`${format}\`)`);
  }
  return f;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Throws a readable error for an unknown IANA time zone. */
export function assertTimeZone(tz: string): void {
  try {
    formatter(tz);
  } catch {
    throw new Error(`unknown time zone \`${tz}\`; use an IANA name like Europe/Berlin or UTC`);
  }
}

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formatters.set(tz, f);
  }
  return f;
}

function wallClock(epochMs: number, tz: string): Fields {
  const out: Fields = { y: 0, mo: 0, d: 0, h: 0, mi: 0, s: 0 };
  for (const p of formatter(tz).formatToParts(new Date(epochMs))) {
    if (p.type === 'year') out.y = Number(p.value);
    else if (p.type === 'month') out.mo = Number(p.value);
    else if (p.type === 'day') out.d = Number(p.value);
    else if (p.type === 'hour') out.h = Number(p.value);
    else if (p.type === 'minute') out.mi = Number(p.value);
    else if (p.type === 'second') out.s = Number(p.value);
  }
  return out;
}

/** Epoch of a wall-clock time in a zone (for a time in a DST gap, the moment one hour later). */
export function zonedToEpoch(f: Fields, tz: string): number {
  const guess = Date.UTC(f.y, f.mo - 1, f.d, f.h, f.mi, f.s);
  const offset = (e: number) => {
    const w = wallClock(e, tz);
    return Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s) - e;
  };
  const o1 = offset(guess);
  const epoch = guess - o1;
  const o2 = offset(epoch);
  return o2 === o1 ? epoch : guess - o2;
}

const pad2 = (n: number) => (n >= 0 && n < 10 ? `0${n}` : String(n).padStart(2, '0'));
const pad4 = (n: number) => String(n).padStart(4, '0');

/** One output token as a function of the fields. */
const RENDER: Record<Token, (f: Fields) => string> = {
  YYYY: (f) => pad4(f.y),
  YY: (f) => pad2(f.y % 100),
  MM: (f) => pad2(f.mo),
  M: (f) => String(f.mo),
  DD: (f) => pad2(f.d),
  D: (f) => String(f.d),
  HH: (f) => pad2(f.h),
  H: (f) => String(f.h),
  mm: (f) => pad2(f.mi),
  ss: (f) => pad2(f.s),
};

type Render = (f: Fields) => string;
// Output formats are few (one or two per mapping): each is split into tokens once, not per value.
const renderers = new Map<string, Render>();

function renderer(format: string): Render {
  let render = renderers.get(format);
  if (render) return render;
  const parts: (string | ((f: Fields) => string))[] = [];
  for (let i = 0; i < format.length; ) {
    const tok = TOKENS.find((t) => format.startsWith(t, i));
    if (!tok) {
      const last = parts[parts.length - 1];
      if (typeof last === 'string') parts[parts.length - 1] = last + format[i++];
      else parts.push(format[i++]);
      continue;
    }
    i += tok.length;
    parts.push(RENDER[tok]);
  }
  render = (f) => {
    let out = '';
    for (const p of parts) out += typeof p === 'string' ? p : p(f);
    return out;
  };
  renderers.set(format, render);
  return render;
}

/** Render fields with an output format (same tokens as input formats). */
export function renderDate(f: Fields, format: string): string {
  return renderer(format)(f);
}

/** Settings of one date/datetime rule, resolved at compile time. */
export interface DateRule {
  readonly kind: 'date' | 'datetime';
  readonly parser: DateParser;
  readonly inputZone: string;
  readonly outputZone: string;
  readonly outputFormat: string;
}

/** Convert one source value with a compiled date rule. */
export function convertDate(rule: DateRule, text: string): string {
  const parsed = rule.parser.parse(text);
  if ('epochMs' in parsed) return renderDate(wallClock(parsed.epochMs, rule.outputZone), rule.outputFormat);
  // A plain calendar date has no instant: moving it across zones would shift birthdays and start dates.
  if (rule.kind === 'date' && !rule.parser.hasTime) return renderDate(parsed, rule.outputFormat);
  if (rule.inputZone === rule.outputZone) return renderDate(parsed, rule.outputFormat);
  return renderDate(wallClock(zonedToEpoch(parsed, rule.inputZone), rule.outputZone), rule.outputFormat);
}
