/**
 * Where each value of a loaded config was written, and which `${…}` gave it its text: what lets a
 * connector's error say "connection erp (shopsync.yaml:8), the password in ERP_DB_PASSWORD
 * (line 12)" instead of naming variables the config does not use.
 */
import { isMap, isScalar, isSeq, type Document, type LineCounter, type Node, type Scalar } from 'yaml';
import type { ConnectionOrigin, FieldOrigin } from '../erp/types.js';
import type { Reference } from './interpolate.js';
import type { LoadedConfig } from './load.js';

/** Where a value of the config was written. */
export interface ValueOrigin {
  readonly file: string;
  /** 1-based line of its key (of the item, in a list). */
  readonly line: number;
  /** The `${…}` references in its text; empty when written inline. */
  readonly references: readonly Reference[];
}

/** Look up the origin of the value at a path of the config (`['connections', 'erp', 'password']`). */
export type OriginOf = (path: readonly (string | number)[]) => ValueOrigin | undefined;

/** An `OriginOf` over a parsed (and interpolated) document. */
export function originLookup(doc: Document, file: string, lines: LineCounter, references: ReadonlyMap<Scalar, readonly Reference[]>): OriginOf {
  return (path) => {
    let node: unknown = doc.contents;
    let start: number | undefined = (node as Node | null)?.range?.[0];
    for (const seg of path) {
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
        if (!pair) return undefined;
        start = (pair.key as Node).range?.[0];
        node = pair.value;
      } else if (isSeq(node) && typeof seg === 'number') {
        node = node.items[seg];
        start = (node as Node | undefined)?.range?.[0];
      } else {
        return undefined;
      }
    }
    if (start === undefined) return undefined;
    return { file, line: lines.linePos(start).line, references: isScalar(node) ? (references.get(node) ?? []) : [] };
  };
}

/** A setting as messages name it: `state.url (/etc/shopsync/shopsync.yaml:47, from STATE_DATABASE_URL)`. */
export function settingOrigin(origin: OriginOf, path: readonly (string | number)[]): string | undefined {
  const o = origin(path);
  if (!o) return undefined;
  const variables = o.references.flatMap((r) => (r.variable === undefined ? [] : [r.variable]));
  return `${path.map(String).join('.')} (${o.file}:${o.line}${variables.length > 0 ? `, from ${variables.join(', ')}` : ''})`;
}

/** What a connector error says about where connection `name` is configured; `part` is the pipeline block using it. */
export function connectionOrigin(loaded: Pick<LoadedConfig, 'config' | 'origin'>, name: string, part?: { readonly pipeline: number; readonly side: 'source' | 'sink' }): ConnectionOrigin {
  const at = loaded.origin?.(['connections', name]);
  const fields: Record<string, FieldOrigin> = {};
  // Keys with defaults (poolSize…) are in the parsed connection too; only those written in the file have an origin.
  for (const field of Object.keys(loaded.config.connections[name] ?? {})) {
    const o = loaded.origin?.(['connections', name, field]);
    if (!o) continue;
    fields[field] = {
      where: `line ${o.line}`,
      variables: o.references.flatMap((r) => (r.variable === undefined ? [] : [r.variable])),
      references: o.references.map((r) => r.written),
      ...(o.references.length > 0 && o.references.every((r) => r.from === 'default') ? { defaulted: true } : {}),
    };
  }
  const block = part === undefined ? undefined : loaded.origin?.(['pipelines', part.pipeline, part.side]);
  return {
    name,
    ...(at ? { where: `${at.file}:${at.line}` } : {}),
    fields,
    ...(part ? { part: { key: `pipelines[${part.pipeline}].${part.side}`, ...(block ? { where: `${block.file}:${block.line}` } : {}) } } : {}),
  };
}
