/** Where a state lives, and how that is shown without secrets. */

/** A SQLite file, or a schema in a PostgreSQL database. */
export type StateLocation =
  | { readonly kind: 'sqlite'; readonly path: string }
  | {
      readonly kind: 'postgres';
      readonly url: string;
      readonly schema: string;
      /** Where the URL was configured, for messages: `state.url (/etc/shopsync/shopsync.yaml:47, from STATE_DATABASE_URL)`. */
      readonly origin?: string;
    };

import { redactUrl } from '../util/net.js';

export { redactUrl };

/** A location for messages: the SQLite path, or `postgres://user@host/db#schema` (never the password). */
export function describeLocation(location: StateLocation): string {
  return location.kind === 'sqlite' ? location.path : `${redactUrl(location.url)}#${location.schema}`;
}

/** A `--from`/`--to` argument: a postgres:// URL, or a SQLite file. */
export function parseLocation(text: string, schema = 'shopsync'): StateLocation {
  return /^postgres(ql)?:\/\//i.test(text) ? { kind: 'postgres', url: text, schema } : { kind: 'sqlite', path: text };
}
