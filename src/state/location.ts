/** Where a state lives, and how that is shown without secrets. */

/** A SQLite file, or a schema in a PostgreSQL database. */
export type StateLocation = { readonly kind: 'sqlite'; readonly path: string } | { readonly kind: 'postgres'; readonly url: string; readonly schema: string };

/** The URL without its password (for logs, `status`, the dashboard). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
  }
}

/** A location for messages: the SQLite path, or `postgres://user:***@host/db#schema`. */
export function describeLocation(location: StateLocation): string {
  return location.kind === 'sqlite' ? location.path : `${redactUrl(location.url)}#${location.schema}`;
}

/** A `--from`/`--to` argument: a postgres:// URL, or a SQLite file. */
export function parseLocation(text: string, schema = 'shopsync'): StateLocation {
  return /^postgres(ql)?:\/\//i.test(text) ? { kind: 'postgres', url: text, schema } : { kind: 'sqlite', path: text };
}
