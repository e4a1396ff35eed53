/**
 * The state store: everything that makes a run safe to interrupt and repeat (cursors, references,
 * hashes, intents, runs, events, dead letters, history entries, locks). `store.ts` is the contract;
 * `sqlite/` (the embedded default) and `postgres/` (production, several replicas) keep it. See
 * `types.ts` for the glossary.
 */
import type { Logger } from '../log.js';
import { openSqliteState } from './sqlite/index.js';
import type { StateLocation } from './location.js';
import type { StateStore } from './store.js';

export * from './types.js';
export * from './store.js';
export { DEFAULT_RETENTION, type PruneReport, type RetentionPolicy } from './retentionPolicy.js';
export { loadMigrations, type Migration } from './migrations.js';
export { processAlive, openSqliteState } from './sqlite/index.js';
export { describeLocation, parseLocation, redactUrl, type StateLocation } from './location.js';
export { isUnwritable } from './faults.js';
export { EVENT_EXCERPT_MAX, isCutMarker } from './eventExcerpt.js';
export { LIST_EXCERPT_MAX } from './letterExcerpt.js';


/** Options of `openState`. */
export interface StateOptions {
  readonly logger?: Logger;
  /** The shop the returned view is scoped to. @default 'default' */
  readonly shop?: string;
  /** A SQLite state that cannot be written (full disk, read-only file) opens read-only with a warning instead of failing: for commands that only read (`status`). @default false */
  readonly readOnlyFallback?: boolean;
}

/** Open (create, migrate) the state at a location; a plain string is a SQLite path. */
export async function openState(location: StateLocation | string, options: StateOptions = {}): Promise<StateStore> {
  const where: StateLocation = typeof location === 'string' ? { kind: 'sqlite', path: location } : location;
  if (where.kind === 'sqlite') return openSqliteState(where.path, options);
  const { openPostgresState } = await import('./postgres/index.js');
  return openPostgresState(where, options);
}
