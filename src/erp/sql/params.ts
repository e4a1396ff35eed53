/**
 * Named parameters (`:cursor`, `:limit`, `:keys`) in user-written SQL, compiled to the driver's
 * positional placeholders. Values are always bound, never spliced into the text.
 */

/** How a dialect writes the n-th (1-based) placeholder. */
export type PlaceholderStyle = 'dollar' | 'question';

/** A query ready for the driver. */
export interface CompiledQuery {
  readonly sql: string;
  readonly params: unknown[];
}

interface Token {
  readonly name: string;
  readonly start: number;
  readonly end: number;
}

/** Positions where `:name` parameters occur, skipping string literals, quoted identifiers, comments and `::` casts. */
function scan(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i];
    const next = sql[i + 1];
    if (ch === "'" || ch === '"' || ch === '`') {
      const close = ch;
      i++;
      while (i < sql.length) {
        if (sql[i] === '\\' && close === "'") i += 2;
        else if (sql[i] === close && sql[i + 1] === close) i += 2;
        else if (sql[i] === close) break;
        else i++;
      }
      i++;
    } else if (ch === '-' && next === '-') {
      const nl = sql.indexOf('\n', i);
      i = nl === -1 ? sql.length : nl + 1;
    } else if (ch === '/' && next === '*') {
      const endc = sql.indexOf('*/', i + 2);
      i = endc === -1 ? sql.length : endc + 2;
    } else if (ch === '$' && /[A-Za-z_$]/.test(next ?? '')) {
      // PostgreSQL dollar quoting: $tag$ ... $tag$
      const m = /^\$([A-Za-z_]*)\$/.exec(sql.slice(i));
      if (m) {
        const endq = sql.indexOf(m[0], i + m[0].length);
        i = endq === -1 ? sql.length : endq + m[0].length;
      } else i++;
    } else if (ch === ':' && next === ':') {
      i += 2;
    } else if (ch === ':' && /[A-Za-z_]/.test(next ?? '')) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i + 1));
      const name = m ? m[0] : '';
      tokens.push({ name, start: i, end: i + 1 + name.length });
      i += 1 + name.length;
    } else i++;
  }
  return tokens;
}

/** The named parameters a query uses. */
export function paramNames(sql: string): Set<string> {
  return new Set(scan(sql).map((t) => t.name));
}

/**
 * Replace `:name` with placeholders. An array value expands to a comma-separated list
 * (for `IN (:keys)`); an empty array becomes `NULL` so `IN (NULL)` matches nothing.
 */
export function compileNamed(sql: string, values: Readonly<Record<string, unknown>>, style: PlaceholderStyle): CompiledQuery {
  const params: unknown[] = [];
  const reuse = new Map<string, string>();
  let out = '';
  let last = 0;
  for (const t of scan(sql)) {
    if (!(t.name in values)) throw new Error(`query uses :${t.name} but no value is bound for it`);
    const value = values[t.name];
    let text: string;
    if (Array.isArray(value)) {
      if (value.length === 0) text = 'NULL';
      else text = value.map((v) => { params.push(v); return style === 'dollar' ? `$${params.length}` : '?'; }).join(', ');
    } else if (style === 'dollar' && reuse.has(t.name)) {
      text = reuse.get(t.name) as string;
    } else {
      params.push(value);
      text = style === 'dollar' ? `$${params.length}` : '?';
      reuse.set(t.name, text);
    }
    out += sql.slice(last, t.start) + text;
    last = t.end;
  }
  return { sql: out + sql.slice(last), params };
}
