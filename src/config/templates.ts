/**
 * Pipelines written once and run for every shop: a top-level `templates:` entry is expanded into one
 * pipeline per shop, named `<template>-<shop>`, with the shop's variables filled in (`${shop.…}`),
 * its own changes merged over the template (`templates:` in the shop's file) and its schedule offset
 * applied. A mistake that only one shop makes (a variable it lacks, a bad override) is that shop's:
 * the loader marks the shop broken and the other shops go on.
 */
import { z } from 'zod';
import type { ShopConfig } from './shop.js';
import { offsetSchedule, ScheduleOffsetError } from './scheduleOffset.js';
import type { Locate, Place } from './document.js';
import { formatPath } from '../util/paths.js';
import { didYouMean } from '../util/suggest.js';

const NAME = /^[A-Za-z0-9_.-]+$/;

/** One `templates:` entry: a pipeline without `name` and `shop`, plus the shops it runs for and default variables. */
export const templateSchema = z
  .looseObject({
    /** The shops to expand the template for: `all` (every shop that loaded), or a list of names. @default all */
    shops: z.union([z.literal('all'), z.array(z.string().regex(NAME, 'shop names use letters, digits, `_`, `-` and `.`')).min(1)]).default('all'),
    /** Default values of `${shop.…}` variables; a shop's own `vars:` win. @default {} */
    vars: z.record(z.string(), z.unknown()).default({}),
  })
  .superRefine((t, ctx) => {
    for (const key of ['name', 'shop'] as const) {
      if (key in t) ctx.addIssue({ code: 'custom', path: [key], message: `a template has no \`${key}\`: it is expanded once per shop as <template>-<shop>; list shops under \`shops:\`` });
    }
  });

/** The `templates:` block. */
export const templatesSchema = z.record(z.string().regex(NAME, 'template names use letters, digits, `_`, `-` and `.`'), templateSchema).default({});

/** A validated template. */
export type TemplateConfig = z.output<typeof templateSchema>;

/** A shop the templates may expand for, with where its settings were written. */
export interface ShopEntry {
  readonly name: string;
  readonly config: ShopConfig;
  /** Place of a path inside the shop's block (`['vars', 'priceColumn']`). */
  readonly locate: Locate;
}

/** One pipeline made from a template for a shop. */
export interface Expanded {
  readonly template: string;
  readonly shop: string;
  /** The pipeline entry as written (not yet validated), with `name`, `shop`, `template` and `vars`. */
  readonly pipeline: Record<string, unknown>;
}

/** A problem that is one shop's (it makes that shop broken). */
export interface ShopProblem {
  readonly shop: string;
  readonly place: Place;
  readonly message: string;
}

/** What expanding gave. */
export interface Expansion {
  readonly expanded: readonly Expanded[];
  readonly problems: readonly ShopProblem[];
}

const WHOLE_REF = /^\$\{shop\.([A-Za-z][A-Za-z0-9_]*)\}$/;
const REF = /\$\{shop\.([A-Za-z][A-Za-z0-9_]*)\}/g;

/** A shop's variables as templates and mappings see them: its name, the template's defaults, then its own `vars:`. */
export function shopVariables(shop: string, ...layers: readonly Readonly<Record<string, unknown>>[]): Record<string, unknown> {
  return Object.assign({}, ...layers, { name: shop }) as Record<string, unknown>;
}

/** Expand every template for its shops; templates naming a shop that is not there are the caller's to report (`unknownShops`). */
export function expandTemplates(templates: Readonly<Record<string, TemplateConfig>>, shops: readonly ShopEntry[]): Expansion {
  const expanded: Expanded[] = [];
  const problems: ShopProblem[] = [];
  // A change to a template that does not exist would be ignored without a word: it is the shop's mistake.
  for (const shop of shops) {
    for (const name of Object.keys(shop.config.templates)) {
      if (name in templates) continue;
      const near = didYouMean(name, Object.keys(templates));
      const place = shop.locate(['templates', name]);
      problems.push({ shop: shop.name, place, message: `templates.${name}: no template named "${name}"${near ? `; did you mean "${near}"?` : ''} (known: ${Object.keys(templates).join(', ') || 'none'})` });
    }
  }
  for (const [name, template] of Object.entries(templates)) {
    const { shops: wanted, vars: defaults, ...body } = template;
    for (const shop of shops) {
      if (wanted !== 'all' && !wanted.includes(shop.name)) continue;
      if (problems.some((p) => p.shop === shop.name)) continue;
      const override = shop.config.templates[name];
      if (override === false) continue;
      const vars = shopVariables(shop.name, defaults, shop.config.vars);
      const missing = new Set<string>();
      const spliced: Splice[] = [];
      const filled = fill(deepMerge(body, override ?? {}), vars, missing, [], spliced) as Record<string, unknown>;
      for (const sp of spliced) {
        problems.push({
          shop: shop.name,
          place: shop.locate(shop.config.vars[sp.variable] !== undefined ? ['vars', sp.variable] : ['vars']),
          message: `template ${name}: ${formatPath(sp.path, '')} splices \${shop.${sp.variable}} into SQL, and shop "${shop.name}"'s value is not a bare name (letters, digits, \`_\`), so it could change the query: bind it as a parameter instead, \`:${sp.variable}\` in the query and \`params: { ${sp.variable}: "\${shop.${sp.variable}}" }\` beside it (docs/shops.md, "Templates")`,
        });
      }
      if (spliced.length > 0) continue;
      for (const v of missing) {
        problems.push({
          shop: shop.name,
          place: shop.locate(['vars']),
          message: `template ${name} uses \${shop.${v}}, which shop "${shop.name}" does not define: add \`vars: { ${v}: … }\` to the shop (or a default under templates.${name}.vars)`,
        });
      }
      if (missing.size > 0) continue;
      if (shop.config.scheduleOffsetSeconds !== undefined && typeof filled.schedule === 'string' && !(override && 'schedule' in override)) {
        try {
          filled.schedule = offsetSchedule(filled.schedule, shop.config.scheduleOffsetSeconds);
        } catch (err) {
          if (!(err instanceof ScheduleOffsetError)) throw err;
          problems.push({ shop: shop.name, place: shop.locate(['scheduleOffsetSeconds']), message: `scheduleOffsetSeconds for template ${name}: ${err.message}` });
          continue;
        }
      }
      expanded.push({ template: name, shop: shop.name, pipeline: { ...filled, name: `${name}-${shop.name}`, shop: shop.name, template: name, vars } });
    }
  }
  return { expanded, problems };
}

/** Template shop lists naming shops that are neither configured nor broken: `[template, index, name]`. */
export function unknownShops(templates: Readonly<Record<string, TemplateConfig>>, known: ReadonlySet<string>): [string, number, string][] {
  return Object.entries(templates).flatMap(([name, t]) => (t.shops === 'all' ? [] : t.shops.flatMap((s, i) => (known.has(s) ? [] : [[name, i, s] as [string, number, string]]))));
}

/**
 * Whose mistake a problem at `path` inside an expanded pipeline is: the shop's when its file changed
 * that setting or a `${shop.…}` variable filled it, the template's otherwise.
 */
export function blame(e: Expanded, path: readonly (string | number)[], templates: Readonly<Record<string, TemplateConfig>>, shop: ShopEntry | undefined, locateMain: Locate): { place: Place; shop?: string } {
  const override = shop?.config.templates[e.template];
  if (shop && override) {
    for (let n = path.length; n >= 1; n--) {
      if (valueAt(override, path.slice(0, n)) !== undefined) return { place: named(shop.locate(['templates', e.template, ...path.slice(0, n)]), ['templates', e.template, ...path]), shop: shop.name };
    }
  }
  const written = valueAt(templates[e.template], path);
  const variable = typeof written === 'string' ? [...written.matchAll(REF)][0]?.[1] : undefined;
  if (shop && variable !== undefined && variable !== 'name') {
    const own = shop.config.vars[variable] !== undefined;
    return { place: named(shop.locate(own ? ['vars', variable] : ['vars']), ['templates', e.template, ...path]), shop: shop.name };
  }
  return { place: named(locateMain(['templates', e.template, ...path]), ['templates', e.template, ...path]) };
}

/** The place with the setting named as written in the template (`templates.products.batchSize`), not as `pipelines[7].batchSize`. */
function named(place: Place, path: readonly (string | number)[]): Place {
  return { ...place, key: formatPath(path, '(top level)') };
}

/** Objects merged key by key; lists and values of `over` replace those of `base`. */
export function deepMerge(base: unknown, over: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(over)) return over === undefined ? base : over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = deepMerge(base[k], v);
  return out;
}

/** A `${shop.x}` inside an SQL query whose value is more than a bare name. */
interface Splice {
  readonly path: readonly (string | number)[];
  readonly variable: string;
}

/** What may stand for a `${shop.x}` inside SQL: a bare name (a table, a column, a code), nothing that can close a quote or add a clause. */
const BARE_NAME = /^[A-Za-z0-9_]+$/;

/** `query:` strings are SQL (sources, children, lookups); an HTTP source's `query:` is a map of URL parameters, encoded by the client. */
function isSqlQuery(path: readonly (string | number)[]): boolean {
  return path[path.length - 1] === 'query';
}

/**
 * `${shop.x}` replaced in every string; a string that is one whole reference takes the variable's value as it is (a number, a map).
 * Inside SQL (`query:`) only a bare name is filled in; any other value is reported in `spliced` (bind it with `params:`).
 */
function fill(value: unknown, vars: Readonly<Record<string, unknown>>, missing: Set<string>, path: readonly (string | number)[] = [], spliced: Splice[] = []): unknown {
  if (typeof value === 'string') {
    if (isSqlQuery(path)) {
      for (const [, name] of value.matchAll(REF)) {
        const v = vars[name!];
        if (v !== undefined && !BARE_NAME.test(typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v))) spliced.push({ path, variable: name! });
      }
    }
    const whole = WHOLE_REF.exec(value);
    if (whole) {
      const v = vars[whole[1]!];
      if (v === undefined) missing.add(whole[1]!);
      return v;
    }
    return value.replace(REF, (m, name: string) => {
      const v = vars[name];
      if (v === undefined) {
        missing.add(name);
        return m;
      }
      return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => fill(v, vars, missing, [...path, i], spliced));
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, vars, missing, [...path, k], spliced)]));
  return value;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let o = root;
  for (const k of path) {
    if (o === null || typeof o !== 'object') return undefined;
    o = (o as Record<string | number, unknown>)[k];
  }
  return o;
}
