/**
 * Load `shopsync.yaml`: parse with line tracking, interpolate `${…}` in values, validate with
 * zod, and report every problem as `file:line: key: message`.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, Scalar, visit, type Document, type Node } from 'yaml';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { formatPath as formatIssuePath } from '../util/paths.js';
import { coerceScalar, interpolateString, InterpolationFailure, type InterpolationSources, type Reference } from './interpolate.js';
import { ALLOW_OUTSIDE_KEY, leavesFolder, OUTSIDE_HINT, PATH_OUTSIDE, pathsOutside } from './paths.js';
import { describeLocation, type StateLocation } from '../state/location.js';
import { configSchema, shopsOf, type Config } from './schema.js';
import { suggestKey } from './suggest.js';
import { originLookup, settingOrigin, type OriginOf } from './origins.js';
import { formatYamlProblem, yamlSyntaxProblem } from '../util/yamlSyntax.js';

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
}

/** Options of `loadConfig`. */
export interface LoadConfigOptions {
  readonly env?: NodeJS.ProcessEnv;
}

const SECRET_WORD = /token|secret|password|passwd|api[-_]?key|credential/i;
/** A key whose value is a secret (`token`, `clientSecret`, `X-Api-Key`), but not one naming where a secret is used (`tokenUrl`). */
const isSecretKey = (key: string): boolean => SECRET_WORD.test(key) && !/url$/i.test(key);
const DUMMY_URL = 'http://x';

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

/** Parse config text that came from `file` (exported for tests and the demo). */
export function parseConfigText(text: string, file: string, options: LoadConfigOptions = {}): LoadedConfig {
  const baseDir = dirname(file);
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const lineOf = (offset: number | undefined): number | undefined => (offset === undefined ? undefined : lines.linePos(offset).line);
  const syntax = yamlSyntaxProblem(doc, text, lines);
  if (syntax) throw new ConfigError(formatYamlProblem(file, 'YAML syntax', syntax), { file, line: syntax.line });
  const sources: InterpolationSources = { env: options.env ?? process.env, baseDir };
  const secrets = new Set<string>();
  const warnings: string[] = [];
  const interpolated = interpolateDocument(doc, sources, secrets, warnings, file, lineOf);
  // A `${file:…}` follows the path rule too; checked before validation, so nothing it read from outside is used or shown.
  const allowOutside = doc.get(ALLOW_OUTSIDE_KEY) === true;
  const fileRefs = allowOutside ? [] : interpolated.files.filter((f) => leavesFolder(baseDir, f.written));
  if (fileRefs.length > 0) {
    throw pathsError(
      fileRefs.map((f) => ({ line: f.line ?? 1, key: f.key, message: `${file}:${f.line}: ${f.key}: \${file:${f.written}} leaves the config file's folder (${baseDir}); ${OUTSIDE_HINT}` })),
      file,
    );
  }

  const parsed = validate(doc, interpolated.typed);
  if (!parsed.success) throw configIssues(parsed.error, doc, file, lineOf, secrets);
  const config = parsed.data;
  if (!config.allowPathsOutsideConfig) {
    const outside = pathsOutside(config, baseDir);
    if (outside.length > 0) {
      throw pathsError(
        outside.map((o) => {
          const line = lineOf(nearestNode(doc, o.path).node?.range?.[0]) ?? 1;
          const key = formatPath(o.path);
          const shown = isSecretText(o.value, secrets) ? 'the value' : `"${o.value}"`;
          return { line, key, message: `${file}:${line}: ${key}: ${shown} leaves the folder it is relative to (${o.base}); ${OUTSIDE_HINT}` };
        }),
        file,
      );
    }
  }
  collectKnownSecrets(config, secrets);
  const origin = originLookup(doc, file, lines, interpolated.references);
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
  };
}

/** A `${file:…}` written in the config, where it is. */
interface FileReference {
  readonly written: string;
  readonly key: string;
  readonly line: number | undefined;
}

/** What interpolation did besides replacing text. */
interface Interpolated {
  /** Scalars read as a number, true/false or null from a whole `${…}`, with the text as set. */
  readonly typed: Map<Scalar, string>;
  readonly files: readonly FileReference[];
  /** The `${…}` references of each interpolated scalar. */
  readonly references: Map<Scalar, readonly Reference[]>;
}

/** Replace `${…}` in every scalar value; remember secrets; warn about secrets written inline. */
function interpolateDocument(
  doc: Document,
  sources: InterpolationSources,
  secrets: Set<string>,
  warnings: string[],
  file: string,
  lineOf: (offset: number | undefined) => number | undefined,
): Interpolated {
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
        result = interpolateString(value.value, sources);
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
        const r = interpolateString(node.value, sources);
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

/**
 * Validate the interpolated document. A whole unquoted `${VAR}` was read as YAML would read the value
 * written there (`5432` a number, `true` a boolean); where the key wants text (a password `98765432`,
 * a database `007`) it goes back to the text exactly as set, and the document is validated again.
 */
function validate(doc: Document, typed: Map<Scalar, string>): ReturnType<typeof configSchema.safeParse> {
  for (;;) {
    const parsed = configSchema.safeParse(doc.toJS() ?? {});
    if (parsed.success || typed.size === 0) return parsed;
    let reverted = false;
    for (const issue of parsed.error.issues.flatMap((i) => expandUnion(i))) {
      if (issue.code !== 'invalid_type' || issue.expected !== 'string') continue;
      const node = doc.getIn(issue.path.filter((p): p is string | number => typeof p !== 'symbol'), true);
      const text = isScalar(node) ? typed.get(node) : undefined;
      if (!isScalar(node) || text === undefined) continue;
      node.value = text;
      typed.delete(node);
      reverted = true;
    }
    // Nothing went back to text: the remaining issues are the config's own.
    if (!reverted) return parsed;
  }
}

/** One ConfigError (CONFIG_PATH_OUTSIDE) listing each path outside its folder. */
function pathsError(items: readonly { line: number; key: string; message: string }[], file: string): ConfigError {
  const first = items[0]!;
  const message = items.length === 1 ? first.message : `${file}: ${items.length} paths leave their folder:\n  ${items.map((i) => i.message).join('\n  ')}`;
  return new ConfigError(message, { code: PATH_OUTSIDE, file, line: first.line, key: first.key, details: { issues: items } });
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

/** Turn zod issues into one ConfigError listing each issue with its line. */
function configIssues(error: z.ZodError, doc: Document, file: string, lineOf: (o: number | undefined) => number | undefined, secrets: ReadonlySet<string>): ConfigError {
  const issues = error.issues.flatMap((issue) => expandUnion(issue));
  const typos = new Map(issues.map((issue) => [issue, typoOf(issue)] as const));
  // A misspelt key is one mistake: `cursr` unknown and `cursor` missing are reported once, as the typo.
  const corrected = new Set([...typos].flatMap(([issue, typo]) => (typo ? [JSON.stringify([...issue.path, typo])] : [])));
  const items = issues.filter((issue) => !(issue.code === 'invalid_type' && corrected.has(JSON.stringify(issue.path)))).map((issue) => {
    const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    const unknownKey = issue.code === 'unrecognized_keys' && issue.keys.length === 1 ? issue.keys[0] : undefined;
    const { node, exact } = nearestNode(doc, path);
    // An unknown key is named on its own line, not on the line of the block holding it.
    const line = lineOf(unknownKey === undefined ? node?.range?.[0] : (keyNode(node, unknownKey)?.range?.[0] ?? node?.range?.[0])) ?? 1;
    const key = formatPath(path);
    // Custom checks (cron, time zone, connection names…) name the value in their own message.
    const got = issue.code === 'custom' || unknownKey !== undefined ? '' : exact && isScalar(node) ? describeValue(node.value, key, secrets) : exact ? '' : ' (missing)';
    const typo = typos.get(issue);
    const hint = typo ? `; did you mean "${typo}"?` : '';
    return { line, key, message: `${file}:${line}: ${key}: ${issue.message}${got}${hint}` };
  });
  const first = items[0];
  const message = items.length === 1 ? first.message : `${file}: ${items.length} problems:\n  ${items.map((i) => i.message).join('\n  ')}`;
  return new ConfigError(message, { file, line: first?.line, key: first?.key, details: { issues: items } });
}

/** The known key an unknown one is a typo of: from the config schema, or the connector's schema's (`suggestion`, set by schema.ts). */
function typoOf(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code !== 'unrecognized_keys' || issue.keys.length !== 1) return undefined;
  const given = (issue as { suggestion?: unknown }).suggestion;
  return typeof given === 'string' ? given : suggestKey(configSchema, issue.path.filter((p): p is string | number => typeof p !== 'symbol'), issue.keys[0]!);
}

/** For an invalid discriminated union, zod reports one issue; keep the most specific one. */
function expandUnion(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
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

/** The key node `key` of a mapping node. */
function keyNode(node: Node | undefined, key: string): Node | undefined {
  if (!isMap(node)) return undefined;
  const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
  return pair?.key as Node | undefined;
}

/** The node at `path`, or the nearest ancestor that exists. */
function nearestNode(doc: Document, path: readonly (string | number)[]): { node: Node | undefined; exact: boolean } {
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

/** The text is, or holds, a secret the config is known to hold so far (a value read from a file is one). */
function isSecretText(text: string, secrets: ReadonlySet<string>): boolean {
  for (const s of secrets) if (s.length >= 4 && text.includes(s)) return true;
  return false;
}

/** Request headers whose values describe content, never credentials. */
const PLAIN_HEADERS = new Set(['accept', 'accept-language', 'content-type', 'user-agent']);

/**
 * Add the secrets a validated config holds even when they were not interpolated: shop credentials,
 * passwords and keys inside URLs, ERP HTTP auth and headers (connection and pipeline), alert
 * channels and the dashboard token.
 */
function collectKnownSecrets(config: Config, secrets: Set<string>): void {
  const add = (s: unknown) => {
    if (typeof s === 'string' && s) secrets.add(s);
  };
  for (const shop of Object.values(shopsOf(config))) {
    add(shop.token);
    add(shop.oauth?.clientSecret);
    addUrlSecrets(shop.baseUrl, add);
    if (shop.oauth?.tokenUrl) addUrlSecrets(shop.oauth.tokenUrl, add);
  }
  if (config.state.url) addUrlSecrets(config.state.url, add);
  add(config.dashboard.token);
  add(config.alerts.webhook?.secret);
  if (config.alerts.webhook) {
    // Chat webhooks (Slack, Teams, Discord) carry their credential in the path: the whole URL is one.
    add(config.alerts.webhook.url);
    addUrlSecrets(config.alerts.webhook.url, add);
  }
  add(config.alerts.email?.password);
  for (const conn of Object.values(config.connections)) {
    const c = conn as { password?: unknown; url?: unknown; baseUrl?: unknown; auth?: { value?: unknown }; headers?: Record<string, unknown> };
    add(c.password);
    addCredential(c.auth?.value, add);
    addHeaders(c.headers, add);
    if (typeof c.url === 'string') addUrlSecrets(c.url, add);
    if (typeof c.baseUrl === 'string') addUrlSecrets(c.baseUrl, add);
  }
  for (const p of config.pipelines) {
    for (const block of [p.source, p.sink] as ({ headers?: Record<string, unknown>; path?: unknown } | undefined)[]) {
      addHeaders(block?.headers, add);
      // An HTTP path may be a whole URL, or carry a key in its query.
      if (typeof block?.path === 'string') addUrlSecrets(block.path, add);
    }
  }
}

/**
 * Any configured header may carry a credential (X-Api-Key, a cookie): every value is redacted, but
 * for the few that only describe the content (redacting `application/json` helps nobody).
 */
function addHeaders(headers: Record<string, unknown> | undefined, add: (s: unknown) => void): void {
  for (const [name, v] of Object.entries(headers ?? {})) if (!PLAIN_HEADERS.has(name.toLowerCase())) addCredential(v, add);
}

/**
 * A credential as sent (`Bearer abc`), and the credential alone (`abc`), which is what an error
 * message or a token endpoint's answer shows; for Basic, the password inside it too.
 */
function addCredential(value: unknown, add: (s: unknown) => void): void {
  if (typeof value !== 'string') return;
  add(value);
  const m = /^\s*([A-Za-z][\w.-]*)\s+(\S+)\s*$/.exec(value);
  if (!m) return;
  add(m[2]);
  if (m[1]!.toLowerCase() === 'basic') {
    const decoded = Buffer.from(m[2]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon >= 0) add(decoded.slice(colon + 1));
  }
}

/** Query parameters whose values are credentials (`api_key`, `token`, `password`, `sig`…). */
const SECRET_PARAM = /token|secret|pass|pwd|key|sig|auth|cred|session/i;

/** The password inside a URL (as written and decoded) and the values of its credential query parameters. */
function addUrlSecrets(url: string, add: (s: unknown) => void): void {
  let parsed: URL;
  try {
    parsed = new URL(url, DUMMY_URL);
  } catch {
    return; // Not a URL we can read secrets from.
  }
  if (parsed.password) {
    add(parsed.password);
    try {
      add(decodeURIComponent(parsed.password));
    } catch {
      // A malformed escape: the raw form is added.
    }
  }
  for (const [name, value] of parsed.searchParams) if (SECRET_PARAM.test(name)) add(value);
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
