/**
 * One config from its files: the main file, the shop files and the pipelines its templates make.
 * Validated as one, so every cross-check (connections, shop names, duplicate pipeline names) holds
 * for expanded pipelines too; each problem is named where it was written, and a problem that is one
 * shop's (its file, its variables, its changes to a template) makes that shop broken instead of
 * stopping the config.
 */
import type { z } from 'zod';
import { DEFAULT_SHOP } from '../state/store.js';
import { documentData, documentLocator, issueProblems, problemsError, validateTyped, type ConfigDocument, type ConfigProblem, type Locate, type Place } from './document.js';
import { configSchema, shopsOf, type Config } from './schema.js';
import { fillShopStatus } from '../follow/shopStatus.js';
import type { BrokenShop, ShopFile } from './shopFiles.js';
import { blame, expandTemplates, shopVariables, templatesSchema, unknownShops, type Expanded, type ShopEntry, type TemplateConfig } from './templates.js';

/** Where a pipeline of the assembled config comes from. */
export type PipelineOrigin = { readonly kind: 'written'; readonly index: number } | { readonly kind: 'template'; readonly expanded: Expanded };

/** The assembled config. */
export interface Assembled {
  readonly config: Config;
  readonly brokenShops: readonly BrokenShop[];
  /** By index of `config.pipelines`. */
  readonly origins: readonly PipelineOrigin[];
  /** Where a path of `config` was written. */
  readonly locate: Locate;
}

/** Validate the main document with the shop files and the expanded templates. Throws ConfigError for a mistake that is not one shop's. */
export function assemble(main: ConfigDocument, files: readonly ShopFile[], brokenFiles: readonly Omit<BrokenShop, 'pipelines'>[], secrets: ReadonlySet<string>): Assembled {
  const locateMain = documentLocator(main);
  const broken: Omit<BrokenShop, 'pipelines'>[] = [...brokenFiles];
  // A second file of a shop that loaded is reported, but the shop runs from its first file.
  const duplicates: BrokenShop[] = [];
  const written = documentData(main.doc);
  const inlineNames = [...(written.shop !== undefined ? [DEFAULT_SHOP] : []), ...Object.keys(isObject(written.shops) ? written.shops : {})];
  // A file naming a shop that is already there is that file's mistake.
  const seen = new Map<string, string>(inlineNames.map((n) => [n, `${main.file}:${locateMain(n === DEFAULT_SHOP && written.shop !== undefined ? ['shop'] : ['shops', n]).line}`]));
  const shopFiles = files.filter((f) => {
    const other = seen.get(f.name);
    if (other) duplicates.push({ name: f.name, file: f.file, line: f.locate(['name']).line, pipelines: [], message: `${f.file}:${f.locate(['name']).line}: shop "${f.name}" is already defined at ${other}, which is used; this file is ignored: rename it or set \`name:\`` });
    else seen.set(f.name, f.file);
    return !other;
  });
  const byFile = new Map(shopFiles.map((f) => [f.name, f]));

  for (;;) {
    const out = attempt(main, shopFiles, byFile, new Set(broken.map((b) => b.name)), locateMain, secrets);
    if ('config' in out) {
      const templates = templatesOf(main);
      return { ...out, brokenShops: [...broken.map((b) => ({ ...b, pipelines: pipelinesOf(b.name, out.written, templates) })), ...duplicates] };
    }
    broken.push(...out.broken);
  }
}

/** One validation with the shops that are not broken; the shops it found broken when only theirs were wrong. */
function attempt(
  main: ConfigDocument,
  shopFiles: readonly ShopFile[],
  byFile: ReadonlyMap<string, ShopFile>,
  brokenNames: ReadonlySet<string>,
  locateMain: Locate,
  secrets: ReadonlySet<string>,
): (Omit<Assembled, 'brokenShops'> & { written: readonly { shop: string; name: string }[] }) | { broken: Omit<BrokenShop, 'pipelines'>[] } {
  let origins: PipelineOrigin[] = [];
  let shopProblems: { shop: string; place: Place; message: string }[] = [];
  let entries: ShopEntry[] = [];
  let writtenPipelines: { shop: string; name: string }[] = [];
  const templates = templatesOf(main);
  const build = (withTemplates: boolean) => () => {
    const data = documentData(main.doc);
    const inline = isObject(data.shops) ? data.shops : {};
    const shops = Object.fromEntries(Object.entries(inline).filter(([n]) => !brokenNames.has(n)));
    for (const f of shopFiles) if (!brokenNames.has(f.name)) shops[f.name] = f.config;
    if (data.shops !== undefined || shopFiles.length > 0 || brokenNames.size > 0) data.shops = shops;
    if (brokenNames.has(DEFAULT_SHOP)) delete data.shop;
    const pipelines = Array.isArray(data.pipelines) ? (data.pipelines as unknown[]) : [];
    origins = [];
    writtenPipelines = [];
    const kept: unknown[] = [];
    pipelines.forEach((p, index) => {
      const shop = isObject(p) && typeof p.shop === 'string' ? p.shop : DEFAULT_SHOP;
      if (isObject(p) && typeof p.name === 'string') writtenPipelines.push({ shop, name: p.name });
      if (brokenNames.has(shop)) return;
      origins.push({ kind: 'written', index });
      kept.push(p);
    });
    if (withTemplates) {
      const expansion = expandTemplates(templates, entries);
      shopProblems = [...expansion.problems];
      for (const e of expansion.expanded) {
        origins.push({ kind: 'template', expanded: e });
        kept.push(e.pipeline);
      }
    }
    if (data.pipelines !== undefined || kept.length > 0) data.pipelines = kept;
    return data;
  };
  const where = (path: readonly (string | number)[]): { place: Place; shop?: string } => {
    const [top, second, ...rest] = path;
    if (top === 'pipelines' && typeof second === 'number') {
      const o = origins[second];
      if (o?.kind === 'written') return { place: locateMain(['pipelines', o.index, ...rest]) };
      if (o?.kind === 'template') return blame(o.expanded, rest, templates, entries.find((e) => e.name === o.expanded.shop), locateMain);
    }
    if (top === 'shops' && typeof second === 'string' && byFile.has(second)) return { place: byFile.get(second)!.locate(rest), shop: second };
    return { place: locateMain(path) };
  };
  const locate: Locate = (path) => where(path).place;
  const fail = (error: z.ZodError) => issueProblems(error, configSchema, locate, secrets);

  // First the config as written: its shops are needed to expand the templates.
  const first = validateTyped(configSchema, build(false), locate, main.typed);
  if (!first.success) throw problemsError(fail(first.error), main.file);
  const unknown = unknownShops(templates, new Set([...Object.keys(first.data.shops ?? {}), ...(first.data.shop ? [DEFAULT_SHOP] : []), ...brokenNames]));
  if (unknown.length > 0) {
    const known = [...Object.keys(first.data.shops ?? {}), ...(first.data.shop ? [DEFAULT_SHOP] : [])];
    throw problemsError(
      unknown.map(([t, i, s]) => {
        const line = locateMain(['templates', t, 'shops', i]).line;
        return { path: ['templates', t, 'shops', i], file: main.file, line, key: `templates.${t}.shops[${i}]`, message: `${main.file}:${line}: templates.${t}.shops[${i}]: no shop named "${s}"; known: ${known.join(', ') || '(none)'}` };
      }),
      main.file,
    );
  }
  entries = Object.entries({ ...(first.data.shop ? { [DEFAULT_SHOP]: first.data.shop } : {}), ...(first.data.shops ?? {}) }).map(([name, config]) => ({
    name,
    config,
    locate: byFile.get(name)?.locate ?? ((p) => locateMain([...(name === DEFAULT_SHOP && first.data.shop ? ['shop'] : ['shops', name]), ...p])),
  }));

  const full = validateTyped(configSchema, build(true), locate, main.typed);
  const problems: ConfigProblem[] = full.success ? [] : fail(full.error);
  const mine = problems.filter((p) => where(p.path).shop === undefined);
  if (mine.length > 0) throw problemsError(problems, main.file);
  const byShop = new Map<string, { place: Place; message: string }[]>();
  for (const p of shopProblems) byShop.set(p.shop, [...(byShop.get(p.shop) ?? []), { place: p.place, message: `${p.place.file}:${p.place.line}: ${p.message}` }]);
  for (const p of problems) {
    const w = where(p.path);
    byShop.set(w.shop!, [...(byShop.get(w.shop!) ?? []), { place: w.place, message: p.message }]);
  }
  if (byShop.size > 0) return { broken: [...byShop].map(([name, list]) => ({ name, file: list[0]!.place.file, line: list[0]!.place.line, message: list.map((l) => l.message).join('\n') })) };
  if (!full.success) throw problemsError(problems, main.file); // Unreachable: every problem was a shop's or the config's.
  const config = full.data;
  const shops = shopsOf(config);
  config.pipelines.forEach((p, i) => {
    // A written pipeline sees its shop's variables under its own; an expanded one has them already.
    if (origins[i]?.kind === 'written') p.vars = shopVariables(p.shop, shops[p.shop]?.vars ?? {}, p.vars);
  });
  // A status push without `shopStatus:` takes the cancelled statuses of the shop's following pull (one list for both ways).
  fillShopStatus(config.pipelines);
  return { config, origins, locate, written: writtenPipelines };
}

/** The templates as written (validated loosely; their pipelines are checked once expanded). */
function templatesOf(main: ConfigDocument): Record<string, TemplateConfig> {
  const parsed = templatesSchema.safeParse(documentData(main.doc).templates);
  return parsed.success ? parsed.data : {};
}

/** The pipelines a broken shop would have run. */
function pipelinesOf(shop: string, written: readonly { shop: string; name: string }[], templates: Readonly<Record<string, TemplateConfig>>): string[] {
  const fromTemplates = Object.entries(templates).flatMap(([t, c]) => (c.shops === 'all' || c.shops.includes(shop) ? [`${t}-${shop}`] : []));
  return [...written.filter((w) => w.shop === shop).map((w) => w.name), ...fromTemplates];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
