/**
 * Loading mapping files from disk and checking many at once.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { MappingError } from '../errors.js';
import { compileMapping } from './compile.js';
import { MappingFileError } from './problems.js';
import type { CompiledMapping, LoadOptions } from './types.js';
import { mappingStockWarning } from '../reservations/choice.js';

/** Read and compile one mapping file; throws MappingFileError (every problem with file:line:column). */
export async function loadMapping(file: string, options: LoadOptions = {}): Promise<CompiledMapping> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    // The path as the user gave it may be relative: the message names the file that was looked for.
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT' ? '; check the path (a relative one is read from the current folder, or in a pipeline from the config file\'s folder)' : '';
    throw new MappingError('MAPPING_READ', `${path.resolve(file)}: cannot read the mapping file (${(err as Error).message})${missing}`, { file, cause: err });
  }
  return compileMapping(text, file, options);
}

/** The `.yaml`/`.yml` files of a folder, sorted by name. */
export async function mappingFiles(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    throw new MappingError('MAPPING_READ', `${dir}: cannot read the mappings folder (${(err as Error).message})`, { file: dir, cause: err });
  }
  return entries
    .filter((e) => e.isFile() && /\.ya?ml$/i.test(e.name))
    .map((e) => path.join(dir, e.name))
    .sort();
}

/** Compile every mapping of a folder, keyed by mapping name; throws on the first invalid file or a duplicate name. */
export async function loadMappings(dir: string, options: LoadOptions = {}): Promise<Map<string, CompiledMapping>> {
  const out = new Map<string, CompiledMapping>();
  for (const file of await mappingFiles(dir)) {
    const m = await loadMapping(file, options);
    const other = out.get(m.name);
    if (other) throw new MappingError('MAPPING_DUPLICATE', `${file}: mapping name \`${m.name}\` is already used by ${other.file}`, { file });
    out.set(m.name, m);
  }
  return out;
}

/** Outcome of checking one file. */
export interface FileCheck {
  readonly file: string;
  readonly ok: boolean;
  /** Mapping name when it compiled. */
  readonly name?: string;
  readonly problems: readonly MappingError[];
  /** Findings that do not stop the file (STOCK_CHOICE_MISSING). */
  readonly warnings?: readonly { readonly code: string; readonly message: string }[];
}

/** Outcome of checking several files. */
export interface CheckReport {
  readonly ok: boolean;
  readonly files: readonly FileCheck[];
}

/** Compile each file and collect its problems (never throws for a bad mapping). */
export async function checkMappings(files: readonly string[], options: LoadOptions = {}): Promise<CheckReport> {
  const results: FileCheck[] = [];
  for (const file of files) {
    try {
      const m = await loadMapping(file, options);
      const stock = mappingStockWarning(m);
      results.push({ file, ok: true, name: m.name, problems: [], ...(stock ? { warnings: [{ code: stock.code, message: stock.message }] } : {}) });
    } catch (err) {
      if (err instanceof MappingFileError) results.push({ file, ok: false, problems: err.problems });
      else if (err instanceof MappingError) results.push({ file, ok: false, problems: [err] });
      else throw err;
    }
  }
  return { ok: results.every((r) => r.ok), files: results };
}
