/**
 * Load `shopsync.yaml`: parse with line tracking, interpolate `${…}` in values, read the shop files,
 * expand the templates, validate with zod, and report every problem as `file:line: key: message`
 * (a shop's own mistake marks that shop broken instead: `brokenShops`).
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { Node } from 'yaml';
import { ConfigError } from '../errors.js';
import { describeLocation, type StateLocation } from '../state/location.js';
import { assemble, type PipelineOrigin } from './assemble.js';
import { formatPath, readDocument, type ConfigDocument } from './document.js';
import type { InterpolationSources } from './interpolate.js';
import { originLookup, settingOrigin, type OriginOf } from './origins.js';
import { ALLOW_OUTSIDE_KEY, leavesFolder, OUTSIDE_HINT, PATH_OUTSIDE, pathsOutside } from './paths.js';
import type { Config } from './schema.js';
import { collectKnownSecrets, isSecretText } from './secrets.js';
import { readShopFiles, shopsFolder, type BrokenShop, type ShopFile } from './shopFiles.js';

export { formatPath } from './document.js';

/** Where the config is found when neither `--config` nor SHOPSYNC_CONFIG says. */
export const DEFAULT_CONFIG_PATH = 'shopsync.yaml';

/** A loaded config with what the rest of the program needs around it. */
export interface LoadedConfig {
  readonly config: Config;
  /** Absolute path of the file. */
  readonly file: string;
  /** The file's folder: relative paths in the config resolve against it. */
  readonly baseDir: string;
  /** Where the state lives (SQLite path made absolute, or the PostgreSQL URL and schema). */
  readonly state: StateLocation;
  /** The state's place for messages: the SQLite path, or the PostgreSQL URL without its password and the schema. */
  readonly statePath: string;
  /** Every secret value in the config, so log lines can be scrubbed of them. */
  readonly secrets: readonly string[];
  /** Things that work but should be fixed (a secret written into the file…). */
  readonly warnings: readonly string[];
  /** Where a value was written and which `${…}` set it (for messages that point into the file). */
  readonly origin?: OriginOf;
  /** Shops whose file (or settings) have a mistake: their pipelines are not in `config` and do not run; the other shops' do. */
  readonly brokenShops: readonly BrokenShop[];
  /** The file of each shop read from the shops folder, by shop name. */
  readonly shopFiles?: Readonly<Record<string, string>>;
}

/** Options of `loadConfig`. */
export interface LoadConfigOptions {
  readonly env?: NodeJS.ProcessEnv;
}

/** The config path from `--config`, then SHOPSYNC_CONFIG, then ./shopsync.yaml. */
export function resolveConfigPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(flag ?? env.SHOPSYNC_CONFIG ?? DEFAULT_CONFIG_PATH);
}

/** Read, interpolate and validate a config file. Throws ConfigError naming file, line and key. */
export async function loadConfig(path: string, options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const file = resolve(path);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const hint = code === 'ENOENT' ? ' (pass --config <file>, set SHOPSYNC_CONFIG, or copy shopsync.example.yaml to shopsync.yaml)' : '';
    throw new ConfigError(`${file}: cannot read config: ${code ?? String(err)}${hint}`, { file, cause: err });
  }
  return parseConfigText(text, file, options);
}

/** Parse config text that came from `file` (exported for tests and the demo); shop files are read from its folder. */
export function parseConfigText(text: string, file: string, options: LoadConfigOptions = {}): LoadedConfig {
  const baseDir = dirname(file);
  const sources: InterpolationSources = { env: options.env ?? process.env, baseDir };
  const secrets = new Set<string>();
  const warnings: string[] = [];
  // `${shop.…}` in a template is filled in per shop when the template is expanded (templates.ts).
  const main = readDocument(text, file, sources, secrets, warnings, { keepShopReferences: (key) => key === 'templates' || key.startsWith('templates.') });
  // A `${file:…}` follows the path rule too; checked before validation, so nothing it read from outside is used or shown.
  const allowOutside = main.doc.get(ALLOW_OUTSIDE_KEY) === true;
  const fileRefs = allowOutside ? [] : main.files.filter((f) => leavesFolder(baseDir, f.written));
  if (fileRefs.length > 0) {
    throw pathsError(
      fileRefs.map((f) => ({ line: f.line ?? 1, key: f.key, message: `${file}:${f.line}: ${f.key}: \${file:${f.written}} leaves the config file's folder (${baseDir}); ${OUTSIDE_HINT}` })),
      file,
    );
  }
  const folder = shopsFolder(main.doc, baseDir);
  if (folder && !allowOutside && leavesFolder(baseDir, folder.written)) {
    const line = main.lineOf((main.doc.get('shopsDir', true) as Node | undefined)?.range?.[0]) ?? 1;
    throw pathsError([{ line, key: 'shopsDir', message: `${file}:${line}: shopsDir: "${folder.written}" leaves the folder it is relative to (${baseDir}); ${OUTSIDE_HINT}` }], file);
  }
  const fromFiles = folder ? readShopFiles(folder.dir, sources, secrets, warnings, allowOutside) : { shops: [], broken: [] };
  const assembled = assemble(main, fromFiles.shops, fromFiles.broken, secrets);
  const config = assembled.config;
  if (!config.allowPathsOutsideConfig) {
    const outside = pathsOutside(config, baseDir);
    if (outside.length > 0) {
      throw pathsError(
        outside.map((o) => {
          const place = assembled.locate(o.path);
          const key = formatPath(o.path);
          const shown = isSecretText(o.value, secrets) ? 'the value' : `"${o.value}"`;
          return { line: place.line, key, message: `${place.file}:${place.line}: ${key}: ${shown} leaves the folder it is relative to (${o.base}); ${OUTSIDE_HINT}` };
        }),
        file,
      );
    }
  }
  collectKnownSecrets(config, secrets);
  const origin = combinedOrigin(main, fromFiles.shops, assembled.origins);
  warnings.push(...unsafeSettings(config, file));
  const location: StateLocation =
    config.state.kind === 'postgres'
      ? { kind: 'postgres', url: config.state.url ?? '', schema: config.state.schema, origin: settingOrigin(origin, ['state', 'url']) }
      : { kind: 'sqlite', path: config.state.path === ':memory:' ? ':memory:' : isAbsolute(config.state.path) ? config.state.path : resolve(baseDir, config.state.path) };
  return {
    config,
    file,
    baseDir,
    state: location,
    statePath: describeLocation(location),
    secrets: [...secrets].filter((s) => s.length >= 4),
    warnings,
    origin,
    brokenShops: assembled.brokenShops,
    shopFiles: Object.fromEntries(fromFiles.shops.map((f) => [f.name, f.file])),
  };
}

/**
 * Where each value was written: a shop's settings in its file, a written pipeline at its place in the
 * main file, an expanded one at its template.
 */
function combinedOrigin(main: ConfigDocument, files: readonly ShopFile[], origins: readonly PipelineOrigin[]): OriginOf {
  const inMain = originLookup(main.doc, main.file, main.lines, main.references);
  const inFiles = new Map(files.map((f) => [f.name, originLookup(f.document.doc, f.file, f.document.lines, f.document.references)]));
  return (path) => {
    const [top, second, ...rest] = path;
    if (top === 'shops' && typeof second === 'string' && inFiles.has(second)) return inFiles.get(second)!(rest);
    if (top === 'pipelines' && typeof second === 'number') {
      const o = origins[second];
      if (o?.kind === 'written') return inMain(['pipelines', o.index, ...rest]);
      if (o?.kind === 'template') return inMain(['templates', o.expanded.template, ...rest]) ?? inMain(['templates', o.expanded.template]);
    }
    return inMain(path);
  };
}

/** One ConfigError (CONFIG_PATH_OUTSIDE) listing each path outside its folder. */
function pathsError(items: readonly { line: number; key: string; message: string }[], file: string): ConfigError {
  const first = items[0]!;
  const message = items.length === 1 ? first.message : `${file}: ${items.length} paths leave their folder:\n  ${items.map((i) => i.message).join('\n  ')}`;
  return new ConfigError(message, { code: PATH_OUTSIDE, file, line: first.line, key: first.key, details: { issues: items } });
}

/** Settings that are valid but can lose data with a common ERP: said at every start, never refused. */
function unsafeSettings(config: Config, file: string): string[] {
  const out: string[] = [];
  for (const p of config.pipelines) {
    const stability = (p.source as { stability?: { mode?: string; settleMs?: number } } | undefined)?.stability;
    if (stability?.mode !== 'marker' && stability?.settleMs === 0) {
      out.push(
        `${file}: pipeline ${p.name}: stability.settleMs 0 reads a file the moment it appears. That is safe only when the ERP writes under a temporary name (.tmp, .part) and renames the finished file into the inbox; an ERP that writes in place may be read half done. Leave settleMs at its default (2000) or use \`stability: { mode: marker }\` (docs/connectors.md, "Complete files")`,
      );
    }
  }
  return out;
}
