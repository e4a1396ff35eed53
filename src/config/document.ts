/**
 * One YAML file of the config (the main file or a shop file) as a document with lines: parsed with
 * merge keys, `${…}` interpolated in place, and zod issues turned into `file:line: key: message`.
 * The loader (load.ts) combines such documents into one config.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, Scalar, visit, type Document, type Node } from 'yaml';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { formatPath as formatIssuePath } from '../util/paths.js';
import { formatYamlProblem, yamlSyntaxProblem } from '../util/yamlSyntax.js';
import { coerceScalar, interpolateString, InterpolationFailure, type InterpolationSources, type Reference } from './interpolate.js';
import { isSecretKey, isSecretText } from './secrets.js';
import { suggestKey } from './suggest.js';

/** A `${file:…}` written in the config, where it is. */
export interface FileReference {
  readonly written: string;
  readonly key: string;
  readonly line: number | undefined;
}

/** A parsed and interpolated YAML file of the config. */
export interface ConfigDocument {
  readonly file: string;
  readonly doc: Document;
  readonly lines: LineCounter;
  /** 1-based line of a source offset. */
  lineOf(offset: number | undefined): number | undefined;
  /** Scalars read as a number, true/false or null from a whole `${…}`, with the text as set. */
  readonly typed: Map<Scalar, string>;
  readonly files: readonly FileReference[];
  /** The `${…}` references of each interpolated scalar. */
  readonly references: Map<Scalar, readonly Reference[]>;
}

/** Options of `readDocument`. */
export interface ReadDocumentOptions {
  /** Keys (dotted paths) under which `${shop.…}` stays as written: template values filled in per shop. */
  readonly keepShopReferences?: (keyPath: string) => boolean;
}

/**
 * Parse YAML text with merge keys (`<<: *defaults`), report a syntax problem with its line, and
 * replace `${…}` in every scalar value; secrets met on the way are added to `secrets`, secrets written
 * inline become warnings. Throws ConfigError naming file and line.
 */
export function readDocument(text: string, file: string, sources: InterpolationSources, secrets: Set<string>, warnings: string[], options: ReadDocumentOptions = {}): ConfigDocument {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true, merge: true });
  const lineOf = (offset: number | undefined): number | undefined => (offset === undefined ? undefined : lines.linePos(offset).line);
  const syntax = yamlSyntaxProblem(doc, text, lines);
  if (syntax) throw new ConfigError(formatYamlProblem(file, 'YAML syntax', syntax), { file, line: syntax.line });
  const interpolated = interpolateDocument(doc, sources, secrets, warnings, file, lineOf, options.keepShopReferences ?? (() => false));
  return { file, doc, lines, lineOf, ...interpolated };
}

/** The document's value as plain data, without top-level `x-…` blocks (anchors for merge keys, as in Compose files). */
export function documentData(doc: Document): Record<string, unknown> {
  const data = (doc.toJS({ maxAliasCount: 1000 }) ?? {}) as unknown;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return data as Record<string, unknown>;
  return Object.fromEntries(Object.entries(data).filter(([k]) => !k.startsWith('x-')));
}

/** Replace `${…}` in every scalar value; remember secrets; warn about secrets written inline. */
function interpolateDocument(
  doc: Document,
  sources: InterpolationSources,
  secrets: Set<string>,
  warnings: string[],
  file: string,
  lineOf: (offset: number | undefined) => number | undefined,
  keepShop: (keyPath: string) => boolean,
): Pick<ConfigDocument, 'typed' | 'files' | 'references'> {
  const done = new WeakSet<object>();
  const typed = new Map<Scalar, string>();
  const files: FileReference[] = [];
  const references = new Map<Scalar, readonly Reference[]>();
  /** A plain scalar that was one whole reference is read as YAML would read it; the text is kept in case the key wants text. */
  const assign = (node: Scalar, r: { value: string; whole: boolean; references: readonly Reference[] }) => {
    if (r.references.length > 0) references.set(node, r.references);
    const value = r.whole && node.type === Scalar.PLAIN ? coerceScalar(r.value) : r.value;
    if (typeof value !== 'string') typed.set(node, r.value);
    node.value = value;
  };
  visit(doc, {
    Pair(_, pair, path) {
      const value = pair.value;
      if (!isScalar(value) || typeof value.value !== 'string') return;
      done.add(value);
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      const keyPath = keyPathOf(path, key);
      let result;
      try {
        result = interpolateString(value.value, { ...sources, keepShop: keepShop(keyPath) });
      } catch (err) {
        if (!(err instanceof InterpolationFailure)) throw err;
        const line = lineOf(value.range?.[0]);
        throw new ConfigError(`${file}:${line}: ${keyPath}: ${err.message}`, { file, line, key: keyPath });
      }
      const secretKey = isSecretKey(key);
      for (const written of result.files) files.push({ written, key: keyPath, line: lineOf(value.range?.[0]) });
      if (result.changed) {
        if (result.fromFile || secretKey) secrets.add(result.value);
        assign(value, result);
      } else if (secretKey && value.value.length > 0) {
        warnings.push(`${file}:${lineOf(value.range?.[0])}: ${keyPath} is written into the config file; take it from the environment (\${VAR}) or a file (\${file:/run/secrets/…}) so it never lands in a repository`);
      }
      if (secretKey && typeof value.value === 'string') secrets.add(value.value);
    },
    Scalar(index, node, path) {
      // Sequence items are not pairs; interpolate them too (e.g. a block list of scopes: `- ${SCOPE}`).
      if (done.has(node) || typeof node.value !== 'string' || !node.value.includes('${')) return;
      const keyPath = `${keyPathOf(path.slice(0, -1), '')}[${String(index)}]`;
      try {
        const r = interpolateString(node.value, { ...sources, keepShop: keepShop(keyPath) });
        if (r.fromFile) secrets.add(r.value);
        for (const written of r.files) files.push({ written, key: keyPath, line: lineOf(node.range?.[0]) });
        assign(node, r);
      } catch (err) {
        if (!(err instanceof InterpolationFailure)) throw err;
        const line = lineOf(node.range?.[0]);
        throw new ConfigError(`${file}:${line}: ${err.message}`, { file, line });
      }
    },
  });
  return { typed, files, references };
}

/** A value's place for messages: its file, its line and its YAML node (when the path reaches one). */
export interface Place {
  readonly file: string;
  readonly line: number;
  readonly node: Node | undefined;
  /** The node is the value at the path itself, not an ancestor. */
  readonly exact: boolean;
  /** The setting as the file names it, when that differs from its path in the config (`templates.products.batchSize`). */
  readonly key?: string;
  /** Line of another offset in the same file (an unknown key sits on its own line, below its block's). */
  readonly lineOf: (offset: number | undefined) => number | undefined;
}

/** Where a path of the validated data was written. */
export type Locate = (path: readonly (string | number)[]) => Place;

/** A `Locate` over one document, whose data paths are its own. */
export function documentLocator(d: ConfigDocument, prefix: readonly (string | number)[] = []): Locate {
  return (path) => {
    const { node, exact } = nearestNode(d.doc, [...prefix, ...path]);
    return { file: d.file, line: d.lineOf(node?.range?.[0]) ?? 1, node, exact, lineOf: d.lineOf };
  };
}

/**
 * Validate data built from documents. A whole unquoted `${VAR}` was read as YAML would read the value
 * written there (`5432` a number, `true` a boolean); where the key wants text (a password `98765432`,
 * a database `007`) it goes back to the text exactly as set, and the data is built and validated again.
 */
export function validateTyped<S extends z.ZodType>(schema: S, build: () => unknown, locate: Locate, typed: Map<Scalar, string>): z.ZodSafeParseResult<z.output<S>> {
  for (;;) {
    // Once per load: generating zod's compiled fast path for each object schema would cost more than this one parse.
    const parsed = schema.safeParse(build(), { jitless: true });
    if (parsed.success || typed.size === 0) return parsed;
    let reverted = false;
    for (const issue of parsed.error.issues.flatMap((i) => expandUnion(i))) {
      if (issue.code !== 'invalid_type' || issue.expected !== 'string') continue;
      const { node, exact } = locate(issue.path.filter((p): p is string | number => typeof p !== 'symbol'));
      const text = exact && isScalar(node) ? typed.get(node) : undefined;
      if (!isScalar(node) || text === undefined) continue;
      node.value = text;
      typed.delete(node);
      reverted = true;
    }
    // Nothing went back to text: the remaining issues are the config's own.
    if (!reverted) return parsed;
  }
}

/** One problem of the config, located. */
export interface ConfigProblem {
  /** Where in the validated data (`['pipelines', 3, 'source', 'query']`). */
  readonly path: readonly (string | number)[];
  readonly file: string;
  readonly line: number;
  readonly key: string;
  readonly message: string;
}

/** zod issues as located problems, each `file:line: key: message, got … ; did you mean …?`. */
export function issueProblems(error: z.ZodError, schema: z.ZodType, locate: Locate, secrets: ReadonlySet<string>): ConfigProblem[] {
  const issues = error.issues.flatMap((issue) => expandUnion(issue));
  const typos = new Map(issues.map((issue) => [issue, typoOf(issue, schema)] as const));
  // A misspelt key is one mistake: `cursr` unknown and `cursor` missing are reported once, as the typo.
  const corrected = new Set([...typos].flatMap(([issue, typo]) => (typo ? [JSON.stringify([...issue.path, typo])] : [])));
  return issues
    .filter((issue) => !(issue.code === 'invalid_type' && corrected.has(JSON.stringify(issue.path))))
    .map((issue) => {
      const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
      const unknownKey = issue.code === 'unrecognized_keys' && issue.keys.length === 1 ? issue.keys[0] : undefined;
      const place = locate(path);
      const { node, exact } = place;
      // An unknown key is named on its own line, not on the line of the block holding it.
      const keyAt = unknownKey === undefined ? undefined : keyNode(node, unknownKey)?.range?.[0];
      const line = keyAt === undefined ? place.line : (place.lineOf(keyAt) ?? place.line);
      const key = place.key ?? formatPath(path);
      // Custom checks (cron, time zone, connection names…) name the value in their own message.
      const got = issue.code === 'custom' || unknownKey !== undefined ? '' : exact && isScalar(node) ? describeValue(node.value, key, secrets) : exact ? '' : ' (missing)';
      const typo = typos.get(issue);
      const hint = typo ? `; did you mean "${typo}"?` : '';
      return { path, file: place.file, line, key, message: `${place.file}:${line}: ${key}: ${issue.message}${got}${hint}` };
    });
}

/** One ConfigError listing located problems. */
export function problemsError(items: readonly ConfigProblem[], file: string, code?: string): ConfigError {
  const first = items[0];
  const message = items.length === 1 ? first!.message : `${file}: ${items.length} problems:\n  ${items.map((i) => i.message).join('\n  ')}`;
  return new ConfigError(message, { ...(code ? { code } : {}), file: first?.file ?? file, line: first?.line, key: first?.key, details: { issues: items } });
}

/** The known key an unknown one is a typo of: from the schema, or the connector's schema's (`suggestion`, set by schema.ts). */
function typoOf(issue: z.core.$ZodIssue, schema: z.ZodType): string | undefined {
  if (issue.code !== 'unrecognized_keys' || issue.keys.length !== 1) return undefined;
  const given = (issue as { suggestion?: unknown }).suggestion;
  return typeof given === 'string' ? given : suggestKey(schema, issue.path.filter((p): p is string | number => typeof p !== 'symbol'), issue.keys[0]!);
}

/** For an invalid discriminated union, zod reports one issue; keep the most specific one. */
export function expandUnion(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    // Pick the branch that got furthest (longest paths = the discriminator matched).
    const best = issue.errors.reduce((a, b) => (depth(b) > depth(a) ? b : a));
    return best.map((sub) => ({ ...sub, path: [...issue.path, ...sub.path] })).flatMap(expandUnion);
  }
  return [issue];
}

function depth(issues: readonly z.core.$ZodIssue[]): number {
  return Math.max(0, ...issues.map((i) => i.path.length));
}

/** `a.b[2].c` for a key found while visiting. */
function keyPathOf(path: readonly unknown[], key: string): string {
  const parts: string[] = [];
  for (let i = 0; i < path.length; i++) {
    const n = path[i];
    if (isSeq(n)) {
      const child = path[i + 1];
      parts.push(`[${n.items.indexOf(child as never)}]`);
    } else if (isMap(n)) {
      const child = path[i + 1] as { key?: unknown } | undefined;
      if (child && isScalar(child.key)) parts.push(`.${String(child.key.value)}`);
    }
  }
  const prefix = parts.join('').replace(/^\./, '');
  return prefix && key ? `${prefix}.${key}` : prefix || key;
}

/** `pipelines[0].source.query` from a zod path. */
export function formatPath(path: readonly PropertyKey[]): string {
  return formatIssuePath(path, '(top level)');
}

/** The key node `key` of a mapping node. */
function keyNode(node: Node | undefined, key: string): Node | undefined {
  if (!isMap(node)) return undefined;
  const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
  return pair?.key as Node | undefined;
}

/** The node at `path`, or the nearest ancestor that exists. */
export function nearestNode(doc: Document, path: readonly (string | number)[]): { node: Node | undefined; exact: boolean } {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? (doc.contents as Node | null) : (doc.getIn(path.slice(0, n), true) as Node | undefined);
    if (node) return { node, exact: n === path.length };
  }
  return { node: undefined, exact: false };
}

/** `, got "abc"` — never for secrets, nor for what a `${file:…}` read (the file may be anything). */
function describeValue(value: unknown, key: string, secrets: ReadonlySet<string>): string {
  if (isSecretKey(key) || isSecretText(String(value), secrets)) return '';
  // A password inside a URL is not shown either.
  const text = typeof value === 'string' ? value.replace(/(\/\/[^/:@\s]*:)[^@\s/]*@/, '$1[redacted]@') : value;
  const shown = typeof text === 'string' ? `"${text.length > 60 ? `${text.slice(0, 57)}…` : text}"` : String(text);
  return `, got ${shown} (${value === null ? 'null' : typeof value})`;
}
