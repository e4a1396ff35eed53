/**
 * Shops from a folder: `shops.d/<name>.yaml` beside the config, one shop per file (its connection,
 * rate limit, variables and changes to templates). A file that does not load makes its shop broken
 * (named with the file and line) and leaves the other shops alone.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, isAbsolute, join, resolve } from 'node:path';
import type { Document } from 'yaml';
import { ConfigError } from '../errors.js';
import { documentData, documentLocator, issueProblems, readDocument, validateTyped, type ConfigDocument, type Locate } from './document.js';
import type { InterpolationSources } from './interpolate.js';
import { leavesFolder, OUTSIDE_HINT } from './paths.js';
import { shopConfigSchema, type ShopConfig } from './shop.js';

/** The folder read when the config does not name one with `shopsDir:` (read only when it exists). */
export const DEFAULT_SHOPS_DIR = 'shops.d';

const SHOP_NAME = /^[A-Za-z0-9_.-]+$/;

/** A shop that did not load: its pipelines do not run, the other shops' do. */
export interface BrokenShop {
  readonly name: string;
  /** The file holding the mistake (the shop's file, or the main config for a shop written there). */
  readonly file: string;
  /** 1-based line of the mistake. */
  readonly line: number;
  /** Every problem, each `file:line: key: message`. */
  readonly message: string;
  /** Pipelines of this shop that are not run while it is broken. */
  readonly pipelines: readonly string[];
}

/** A shop read from its own file. */
export interface ShopFile {
  readonly name: string;
  readonly file: string;
  readonly document: ConfigDocument;
  readonly config: ShopConfig;
  /** Place of a path inside the shop (its file's top level). */
  readonly locate: Locate;
}

/** The shops folder the config names (`shopsDir:`), or `shops.d` beside it when that exists; undefined when there is none. */
export function shopsFolder(doc: Document, baseDir: string): { dir: string; written: string } | undefined {
  const written = doc.get('shopsDir');
  if (typeof written === 'string' && written !== '') return { dir: isAbsolute(written) ? written : resolve(baseDir, written), written };
  const dflt = resolve(baseDir, DEFAULT_SHOPS_DIR);
  return existsSync(dflt) && statSync(dflt).isDirectory() ? { dir: dflt, written: DEFAULT_SHOPS_DIR } : undefined;
}

/** The `.yaml`/`.yml` files of the folder, sorted by name (hidden files skipped). */
export function shopFileNames(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new ConfigError(`${dir}: cannot read the shops folder (${code}); create it or fix \`shopsDir:\``, { file: dir, cause: err });
  }
  return names.filter((n) => /\.ya?ml$/i.test(n) && !n.startsWith('.')).sort().map((n) => join(dir, n));
}

/**
 * Read every shop file of `dir`. `${…}` in a shop file resolves as in the main config (relative
 * `${file:…}` against the config's folder); secrets found are added to `secrets`.
 */
export function readShopFiles(dir: string, sources: InterpolationSources, secrets: Set<string>, warnings: string[], allowOutside: boolean): { shops: ShopFile[]; broken: Omit<BrokenShop, 'pipelines'>[] } {
  const shops: ShopFile[] = [];
  const broken: Omit<BrokenShop, 'pipelines'>[] = [];
  for (const file of shopFileNames(dir)) {
    const fallback = basename(file, extname(file));
    const result = readShopFile(file, fallback, sources, secrets, warnings, allowOutside);
    if ('config' in result) shops.push(result);
    else broken.push(result);
  }
  return { shops, broken };
}

/** One shop file: the shop, or why it is broken. */
function readShopFile(file: string, fallback: string, sources: InterpolationSources, secrets: Set<string>, warnings: string[], allowOutside: boolean): ShopFile | Omit<BrokenShop, 'pipelines'> {
  let name = fallback;
  const broken = (line: number, message: string) => ({ name, file, line, message });
  try {
    // A shop's changes to templates are filled in with its variables like the templates themselves.
    const document = readDocument(readFileSync(file, 'utf8'), file, sources, secrets, warnings, { keepShopReferences: (key) => key.startsWith('templates.') });
    const written = document.doc.get('name');
    if (written !== undefined) name = String(written);
    const locate = documentLocator(document);
    if (!SHOP_NAME.test(name)) return broken(locate(['name']).line, `${file}:${locate(['name']).line}: name: shop names use letters, digits, \`_\`, \`-\` and \`.\`, got "${name}"`);
    const outside = allowOutside ? [] : document.files.filter((f) => leavesFolder(sources.baseDir, f.written));
    if (outside.length > 0) {
      const f = outside[0]!;
      return broken(f.line ?? 1, `${file}:${f.line}: ${f.key}: \${file:${f.written}} leaves the config file's folder (${sources.baseDir}); ${OUTSIDE_HINT}`);
    }
    const data = () => {
      const { name: _name, ...rest } = documentData(document.doc);
      return rest;
    };
    const parsed = validateTyped(shopConfigSchema, data, locate, document.typed);
    if (!parsed.success) {
      const problems = issueProblems(parsed.error, shopConfigSchema, locate, secrets);
      return broken(problems[0]?.line ?? 1, problems.map((p) => p.message).join('\n'));
    }
    return { name, file, document, config: parsed.data, locate };
  } catch (err) {
    if (err instanceof ConfigError) return broken(err.line ?? 1, err.message);
    const code = (err as NodeJS.ErrnoException).code;
    if (code) return broken(1, `${file}: cannot read the shop file (${code})`);
    throw err;
  }
}
