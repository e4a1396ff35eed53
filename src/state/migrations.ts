/**
 * Versioned migrations, shared by the backends: each keeps `NNNN_name.sql` files beside its module
 * (`npm run build` copies them into dist/), with the same numbered steps in its own dialect.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StateError } from '../errors.js';
import type { Logger } from '../log.js';

/** One migration file. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

const MIGRATION_FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/** Read every migration of a folder in version order; versions must be 1, 2, 3… without gaps. */
export function loadMigrations(dir: string): Migration[] {
  if (!existsSync(dir)) throw new StateError('STATE_MIGRATIONS_MISSING', `state migrations not found in ${dir}; run npm run build (it copies src/**/*.sql beside the compiled code)`);
  const migrations = readdirSync(dir)
    .map((file) => ({ file, match: MIGRATION_FILE.exec(file) }))
    .filter((m): m is { file: string; match: RegExpExecArray } => m.match !== null)
    .map(({ file, match }) => ({ version: Number(match[1]), name: match[2] ?? file, sql: readFileSync(join(dir, file), 'utf8') }))
    .sort((a, b) => a.version - b.version);
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new StateError('STATE_MIGRATIONS_INVALID', `state migration ${m.version}_${m.name} is out of sequence: expected version ${i + 1}`);
  });
  return migrations;
}

/** The refusal of a state written by a newer shopsync. */
export function tooNew(current: number, latest: number, what: string): StateError {
  return new StateError(
    'STATE_TOO_NEW',
    `the state ${what} is at schema version ${current} but this shopsync knows only up to ${latest}; upgrade shopsync or point it at another state`,
    { details: { current, latest } },
  );
}

/**
 * Say what migrating did in one line at info: a new state is "created", an older one "upgraded";
 * a state already current says nothing. The steps themselves are logged at debug as they are applied.
 */
export function logMigrated(logger: Logger | undefined, from: number, to: number): void {
  if (!logger || to <= from) return;
  if (from === 0) logger.info({ schemaVersion: to }, `state created (schema v${to})`);
  else logger.info({ from, to }, `state upgraded from schema v${from} to v${to}`);
}
