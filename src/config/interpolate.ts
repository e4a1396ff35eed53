/**
 * `${…}` interpolation in config values. Secrets never live in the config file: they come from
 * the environment (`${SHOP_TOKEN}`), from a file (`${file:/run/secrets/shop_token}`), or from
 * the Docker/Kubernetes convention `SHOP_TOKEN_FILE=/run/secrets/shop_token` standing in for
 * an unset `SHOP_TOKEN`.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

/** Where interpolated values come from. */
export interface InterpolationSources {
  readonly env: NodeJS.ProcessEnv;
  /** Folder relative `${file:…}` paths resolve against (the config file's folder). */
  readonly baseDir: string;
  /** Leave `${shop.…}` as written: a template's value, filled in per shop when templates are expanded (templates.ts). */
  readonly keepShop?: boolean;
}

/** One resolved reference: its value and whether it came from a file (then it is a secret). */
export interface Resolved {
  readonly value: string;
  readonly fromFile: boolean;
  /** The path of a `${file:…}` as written in the config (not one from a NAME_FILE variable). */
  readonly fileWritten?: string;
  /** Where the value was found, for messages that say which variable to check. */
  readonly reference: Reference;
}

/** Which `${…}` gave a value its text, and where that text came from. */
export interface Reference {
  /** The reference as written: `${ERP_DB_PASSWORD}`, `${ERP_DB_HOST:-127.0.0.1}`, `${file:secrets/pw}`. */
  readonly written: string;
  /** The variable read (`ERP_DB_PASSWORD`), or `ERP_DB_PASSWORD_FILE` when that named the file; absent for `${file:…}`. */
  readonly variable?: string;
  /** The variable's value, the file a NAME_FILE variable names, a `${file:…}`, or the default after `:-`. */
  readonly from: 'env' | 'env-file' | 'file' | 'default';
}

/** A reference that could not be resolved; the loader turns it into a ConfigError with a line. */
export class InterpolationFailure extends Error {
  constructor(
    readonly reference: string,
    readonly hint: string,
  ) {
    super(`cannot resolve \${${reference}}: ${hint}`);
  }
}

const REFERENCE = /\$\$\{|\$\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Read a secret file, dropping the trailing newline editors and `echo` add. */
function readSecretFile(path: string, baseDir: string, reference: string): string {
  const full = isAbsolute(path) ? path : resolve(baseDir, path);
  try {
    return readFileSync(full, 'utf8').replace(/\r?\n$/, '');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new InterpolationFailure(reference, `file ${full} cannot be read (${code})`);
  }
}

/** Resolve one reference body (`NAME`, `NAME:-default`, `file:/path`). */
export function resolveReference(body: string, sources: InterpolationSources): Resolved {
  const written = `\${${body}}`;
  if (body.startsWith('file:')) {
    const path = body.slice(5).trim();
    return { value: readSecretFile(path, sources.baseDir, body), fromFile: true, fileWritten: path, reference: { written, from: 'file' } };
  }
  const dflt = body.indexOf(':-');
  const name = (dflt >= 0 ? body.slice(0, dflt) : body).trim();
  if (name.startsWith('shop.')) throw new InterpolationFailure(body, 'a shop variable is filled in only under templates: (expanded per shop) and in mapping files; write the value here, or make this pipeline a template');
  if (!NAME.test(name)) throw new InterpolationFailure(body, 'expected ${NAME}, ${NAME:-default} or ${file:/path}');
  const direct = sources.env[name];
  if (direct !== undefined && direct !== '') return { value: direct, fromFile: false, reference: { written, variable: name, from: 'env' } };
  const fileVar = sources.env[`${name}_FILE`];
  if (fileVar) return { value: readSecretFile(fileVar, sources.baseDir, body), fromFile: true, reference: { written, variable: `${name}_FILE`, from: 'env-file' } };
  if (dflt >= 0) return { value: body.slice(dflt + 2), fromFile: false, reference: { written, variable: name, from: 'default' } };
  throw new InterpolationFailure(body, `set the environment variable ${name} (or ${name}_FILE to a file holding the value)`);
}

/** The result of interpolating one string. */
export interface InterpolatedString {
  readonly value: string;
  /** The string was exactly one reference (then a plain YAML scalar may become a number/boolean). */
  readonly whole: boolean;
  /** Some part came from a file. */
  readonly fromFile: boolean;
  /** The string held at least one reference. */
  readonly changed: boolean;
  /** The paths of its `${file:…}` references as written (the loader checks they stay in the config folder). */
  readonly files: readonly string[];
  /** Every reference in the string, in order. */
  readonly references: readonly Reference[];
}

/** Replace every `${…}` in a string; `$${` stays a literal `${`. */
export function interpolateString(text: string, sources: InterpolationSources): InterpolatedString {
  let fromFile = false;
  let count = 0;
  const files: string[] = [];
  const references: Reference[] = [];
  const value = text.replace(REFERENCE, (match: string, body: string | undefined) => {
    if (body === undefined) return '${';
    if (sources.keepShop && body.startsWith('shop.')) return match;
    count += 1;
    const r = resolveReference(body, sources);
    fromFile ||= r.fromFile;
    if (r.fileWritten !== undefined) files.push(r.fileWritten);
    references.push(r.reference);
    return r.value;
  });
  const whole = count === 1 && /^\$\{[^}]*\}$/.test(text);
  return { value, whole, fromFile, changed: count > 0 || value !== text, files, references };
}

/**
 * Read a plain scalar the way YAML would have, had the value been written inline. The loader takes
 * this back to the text as set where the key wants text (a numeric password stays a string).
 */
export function coerceScalar(value: string): string | number | boolean | null {
  if (/^-?\d+(\.\d+)?$/.test(value) && Number.isFinite(Number(value))) return Number(value);
  if (value === 'true' || value === 'false') return value === 'true';
  if (value === '' || value === 'null' || value === '~') return value === '' ? '' : null;
  return value;
}
