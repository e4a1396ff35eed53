/**
 * Lists read from a folder (`folder: "bilder/{ARTNR}"`): one entry per file, for product images
 * kept by the ERP in a folder per article. A folder that cannot be read is never an empty list:
 * an unmounted share or a permission problem must not empty the shop's gallery.
 */
import { readdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { templateParts, type Scope } from './paths.js';

/** One file of a folder list, as the list's entry rules see it (`name`, `path`, `size`). */
export interface FolderFile {
  readonly name: string;
  readonly path: string;
  readonly size: number;
}

/** A file a mapping read for a list entry; the pipeline uploads it where the registry says the entries name files. */
export interface SourceFile {
  /** Top-level list field (`images`). */
  readonly field: string;
  /** Position of the entry in the produced list. */
  readonly index: number;
  /** Absolute path of the file. */
  readonly path: string;
}

/** What reading the folder gave: files, a missing folder (or template value), or an unreadable one. */
export type FolderRead =
  | { readonly kind: 'files'; readonly folder: string; readonly files: readonly FolderFile[] }
  | { readonly kind: 'missing'; readonly folder?: string; readonly reason: string }
  | { readonly kind: 'unreadable'; readonly folder: string; readonly reason: string };

/** Extensions a folder list takes when the rule names none: the image types shops take. @default jpg, jpeg, png, gif, webp */
export const DEFAULT_EXTENSIONS = ['jpg', 'jpeg', 'png', 'gif', 'webp'] as const;

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/**
 * Compile a folder template into a reader. Placeholders are source paths; their values may not
 * contain a path separator or `..` (a record must not point the mapping at another folder).
 * Relative folders resolve against the mapping file's folder.
 */
export function compileFolder(template: string, mappingFile: string, extensions: readonly string[] | undefined): (scope: Scope) => FolderRead {
  const parts = templateParts(template);
  const base = dirname(resolve(mappingFile));
  const allowed = new Set((extensions ?? DEFAULT_EXTENSIONS).map((e) => e.toLowerCase().replace(/^\./, '')));
  return (scope) => {
    let path = '';
    for (const p of parts) {
      if (typeof p === 'string') {
        path += p;
        continue;
      }
      const v = p(scope);
      const s = v === undefined || v === null ? '' : String(v).trim();
      if (s === '') return { kind: 'missing', reason: `the folder template \`${template}\` has an empty placeholder` };
      if (/[\\/]/.test(s) || s === '.' || s === '..') return { kind: 'unreadable', folder: template, reason: `the placeholder value ${JSON.stringify(s)} would leave the folder the template names` };
      path += s;
    }
    const folder = isAbsolute(path) ? path : join(base, path);
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { kind: 'missing', folder, reason: `the folder ${folder} does not exist` };
      return { kind: 'unreadable', folder, reason: `the folder ${folder} cannot be read (${code ?? (err as Error).message})` };
    }
    const files: FolderFile[] = [];
    try {
      for (const name of names) {
        if (name.startsWith('.')) continue;
        const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
        if (!allowed.has(ext)) continue;
        const full = join(folder, name);
        const st = statSync(full);
        if (st.isFile()) files.push({ name, path: full, size: st.size });
      }
    } catch (err) {
      return { kind: 'unreadable', folder, reason: `a file in ${folder} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
    }
    files.sort((a, b) => collator.compare(a.name, b.name));
    return { kind: 'files', folder, files };
  };
}
