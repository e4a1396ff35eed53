/**
 * A tiny HTML template helper: every interpolation is escaped unless it is already `SafeHtml`.
 *
 * The dashboard shows ERP and shop data verbatim (product names, error messages, payloads), and
 * any of it may contain markup. Making escaping the default — and trusted markup the exception that
 * has to be spelled out — means a forgotten call leaves text, never an injection.
 */

/** Markup that has been escaped or built from trusted parts. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Escape text for use in element content and in quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c] ?? c);
}

type Interpolation = SafeHtml | string | number | bigint | boolean | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map((v: Interpolation) => render(v)).join('');
  return escapeHtml(String(value));
}

/** Tagged template: `html\`<td>${name}</td>\`` escapes `name`; arrays are joined; null/undefined/false render nothing. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}

/** Mark a string as trusted markup. Only for markup built by the dashboard's own code. */
export function unsafeRaw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** Serialise a value as JSON that is safe inside a `<script type="application/json">` element. */
export function jsonForScript(value: unknown): SafeHtml {
  const text = JSON.stringify(value) ?? 'null';
  return new SafeHtml(text.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029'));
}
