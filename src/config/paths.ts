/**
 * Paths in the config. A relative path resolves against the folder it is relative to — the config
 * file's folder, or for a pipeline's `folder:` its files connection's folder — and may not climb out
 * of it with `..` unless the config says `allowPathsOutsideConfig: true`. An absolute path is taken
 * as written: the operator wrote it (`/var/spool/erp`, `/run/secrets/…`).
 *
 * This is a guard against a path that leaves its folder by accident or by a value pasted in from
 * elsewhere (`mapping: ../../../../etc/passwd`), not a sandbox: whoever can write the config can
 * name any absolute path the process may read.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Config } from './schema.js';

/** The stable code of a path that leaves its folder. */
export const PATH_OUTSIDE = 'CONFIG_PATH_OUTSIDE';

/** The top-level key that allows relative paths outside their folder. */
export const ALLOW_OUTSIDE_KEY = 'allowPathsOutsideConfig';

/** A relative path in the config that climbs out of the folder it is relative to. */
export interface OutsidePath {
  /** Where it is in the config (`pipelines`, 0, `mapping`). */
  readonly path: readonly (string | number)[];
  /** As written. */
  readonly value: string;
  /** The folder it is relative to. */
  readonly base: string;
}

/** True when `written` is relative and, resolved against `base`, lies outside it. */
export function leavesFolder(base: string, written: string): boolean {
  if (isAbsolute(written)) return false;
  const rel = relative(resolve(base), resolve(base, written));
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

/** Every path-like setting of a validated config that climbs out of its folder. */
export function pathsOutside(config: Config, baseDir: string): OutsidePath[] {
  const out: OutsidePath[] = [];
  const check = (path: readonly (string | number)[], value: unknown, base = baseDir) => {
    if (typeof value === 'string' && value !== '' && leavesFolder(base, value)) out.push({ path, value, base: resolve(base) });
  };
  if (config.state.kind === 'sqlite' && config.state.path !== ':memory:') check(['state', 'path'], config.state.path);
  for (const [name, conn] of Object.entries(config.connections)) {
    if (conn.kind === 'sqlite') check(['connections', name, 'path'], conn.path);
    else if (conn.kind === 'files') check(['connections', name, 'folder'], conn.folder);
    else if (conn.kind === 'postgres' || conn.kind === 'mysql') check(['connections', name, 'sslCaFile'], conn.sslCaFile);
  }
  config.pipelines.forEach((p, i) => {
    check(['pipelines', i, 'mapping'], p.mapping);
    for (const side of ['source', 'sink'] as const) {
      const block = p[side] as { connection?: unknown; folder?: unknown } | undefined;
      const conn = typeof block?.connection === 'string' ? config.connections[block.connection] : undefined;
      // A pipeline's folder is relative to its connection's folder, the root the connection names.
      if (conn?.kind === 'files') check(['pipelines', i, side, 'folder'], block?.folder, resolve(baseDir, conn.folder));
    }
  });
  return out;
}

/** The end of every message about a path outside its folder: how to fix it. */
export const OUTSIDE_HINT = `write the absolute path if that place is meant, or set \`${ALLOW_OUTSIDE_KEY}: true\` at the top of the config to allow relative paths outside their folder`;
