/**
 * Source hashes: a record read again exactly as it was, under the same mapping file and the same
 * mapping code, maps to the same payload, so it is unchanged without being mapped and hashed again
 * (most of a no-change full re-read's own work). Only where the payload follows from the source
 * record alone: a mapping with expressions (JSONata can read the clock) gets no fingerprint, and a
 * record whose mapping looked up a reference or a file, or warned, keeps no source hash and is
 * mapped every time. The stored payload hash stays the one change detection compares.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CompiledMapping } from '../../mapping/types.js';
import type { ResourceDef } from '../../shop/registry/index.js';
import { sha256 } from '../hash.js';

/** The folders whose code turns a source record into a payload (relative to `src/`). */
const MAPPING_CODE = ['mapping', 'shop/registry', 'shop/resources', 'shop/schema', 'util'] as const;

let codeDigest: string | undefined;

/**
 * A digest of the mapping code as installed: an upgrade that maps a record differently (a coercion
 * fixed) changes it, so every record is mapped once more and its new payload compared, never skipped.
 */
function mappingCodeDigest(): string {
  if (codeDigest !== undefined) return codeDigest;
  const src = fileURLToPath(new URL('../../', import.meta.url));
  const hash = createHash('sha256');
  const add = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) add(path);
      else if (/\.(js|ts)$/.test(name) && !name.endsWith('.d.ts')) hash.update(path.slice(src.length)).update(readFileSync(path));
    }
  };
  for (const dir of MAPPING_CODE) add(join(src, dir));
  codeDigest = hash.digest('hex');
  return codeDigest;
}

/** The fingerprint source hashes are taken under, or undefined when this mapping's records must always be mapped. */
export function sourceFingerprint(mapping: CompiledMapping, resource: ResourceDef): string | undefined {
  if (mapping.usesExpressions || mapping.applySync === undefined) return undefined;
  return sha256(`${mappingCodeDigest()}\n${resource.name}\n${mapping.fingerprint}\n`);
}

/**
 * The source hash of a record: its JSON text as the source delivered it (keys in the source's
 * column order; a source that reorders them only costs one more mapping), under the fingerprint.
 * Undefined for a record JSON cannot write (a BigInt): it is mapped every time.
 */
export function sourceHashOf(fingerprint: string, record: Readonly<Record<string, unknown>>): string | undefined {
  let text: string;
  try {
    text = JSON.stringify(record);
  } catch {
    return undefined;
  }
  return sha256(fingerprint + text);
}
