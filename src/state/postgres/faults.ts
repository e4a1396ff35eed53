/**
 * PostgreSQL's answers for a state that cannot be written, as named errors: SQLSTATE 53100
 * (disk_full: "could not extend file …: No space left on device") and 53000
 * (insufficient_resources) are STATE_DISK_FULL; 25006 (read_only_sql_transaction: a hot standby,
 * or `default_transaction_read_only` on for the database or role) is STATE_READ_ONLY. Anything
 * else passes unchanged.
 */
import { StateError } from '../../errors.js';
import { endpoint } from './db.js';

/** Where the state is, for messages: the server (never the password) and the schema. */
export interface PgPlace {
  readonly url: string;
  readonly schema: string;
  /** `postgres://user@host/db#schema` */
  readonly location: string;
}

const DISK_FULL = new Set(['53100', '53000']);

/** Whether a pg error says the server takes no writes now (full disk, read-only): the session itself is fine. */
export function refusesWrites(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && (DISK_FULL.has(code) || code === '25006');
}

/** A pg error of a full disk or a read-only server as a StateError; other errors unchanged. */
export function translatePg(err: unknown, place: PgPlace): unknown {
  if (err instanceof StateError) return err;
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return err;
  const text = err instanceof Error ? err.message : String(err);
  const { host, port } = endpoint(place.url);
  const details = { location: place.location, host, port, schema: place.schema, sqlState: code };
  if (DISK_FULL.has(code)) {
    return new StateError(
      'STATE_DISK_FULL',
      `the disk of the state's PostgreSQL at ${host}:${port} is full (${text}; SQLSTATE ${code}); the free space is the database server's, shopsync cannot see it. Nothing committed is lost, and a run that failed continues from its last checkpoint once there is room: free space on the server's data volume (or the tablespace of schema ${place.schema}), or move the state (state.url) to a server with room`,
      { cause: err, details },
    );
  }
  if (code === '25006') {
    return new StateError(
      'STATE_READ_ONLY',
      `the state's PostgreSQL at ${host}:${port} takes no writes (${text}; SQLSTATE 25006): it is a hot standby, or default_transaction_read_only is on for the database or the role. Nothing committed is lost: point state.url at the primary, or turn it off (ALTER DATABASE … SET default_transaction_read_only = off, or the same with ALTER ROLE) and reconnect`,
      { cause: err, details },
    );
  }
  return err;
}
