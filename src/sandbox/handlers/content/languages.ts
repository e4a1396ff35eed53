/** Language handling shared by the resources (news, sliders, campaigns, SEO history, projects; catalog blocks). */
import type { SandboxContext } from '../../handler.js';
import type { Language } from '../../reference.js';
import { fail, isRecord, RecordError, type RecordScope } from '../../kit.js';

/** Resolve a language given as ISO code or language_id; undefined when unknown. */
export function findLanguage(ctx: SandboxContext, value: string | number): Language | undefined {
  const text = String(value).trim().toLowerCase();
  return ctx.reference().languages.find((l) => l.code === text || String(l.language_id) === text);
}

/** A `language` query parameter (code or id) as a language; 400 INVALID_PAYLOAD when unknown. */
export function languageParam(ctx: SandboxContext, raw: string | undefined, param = 'language'): Language | undefined {
  if (raw === undefined || raw === '') return undefined;
  const language = findLanguage(ctx, raw);
  if (!language) {
    const known = ctx.reference().languages.map((l) => `${l.code} (${l.language_id})`).join(', ');
    fail(400, 'INVALID_PAYLOAD', `${param} \`${raw}\` is no shop language; known: ${known}`);
  }
  return language;
}

/** The master language: the shop's DEFAULT_LANGUAGE, else the reference master. */
export function masterLanguageCode(ctx: SandboxContext): string {
  return ctx.settings().DEFAULT_LANGUAGE ?? ctx.reference().master_language;
}

/** A write's `languages{}` object checked against the shop's language codes (INVALID_PAYLOAD otherwise). */
export function languagesInput(record: Record<string, unknown>, ctx: SandboxContext, field = 'languages'): Record<string, Record<string, unknown>> | undefined {
  const value = record[field];
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw new RecordError('INVALID_PAYLOAD', `${field} must be an object keyed by language code`, field);
  const out: Record<string, Record<string, unknown>> = {};
  for (const [code, block] of Object.entries(value)) {
    const language = findLanguage(ctx, code);
    if (!language || language.code !== code.toLowerCase()) throw new RecordError('INVALID_PAYLOAD', `${field}.${code}: unknown language code`, `${field}.${code}`);
    if (!isRecord(block)) throw new RecordError('INVALID_PAYLOAD', `${field}.${code} must be an object`, `${field}.${code}`);
    out[language.code] = block;
  }
  return out;
}

/**
 * The blocks of a catalog write's `languages{}` (absent: none) whose code the shop knows; an
 * unknown code is warned `LANGUAGE_NOT_FOUND` and skipped, anything but an object is INVALID_PAYLOAD.
 */
export function knownLanguageBlocks(ctx: SandboxContext, value: unknown, scope: RecordScope): [string, Record<string, unknown>][] {
  if (value === undefined) return [];
  if (!isRecord(value)) throw new RecordError('INVALID_PAYLOAD', 'languages must be an object keyed by language code', 'languages');
  const known = new Set(ctx.reference().languages.map((l) => l.code));
  const out: [string, Record<string, unknown>][] = [];
  for (const [code, block] of Object.entries(value)) {
    if (!known.has(code)) {
      scope.warn('LANGUAGE_NOT_FOUND', `languages.${code}: the shop has no language ${code}; block ignored`, `languages.${code}`);
      continue;
    }
    if (!isRecord(block)) throw new RecordError('INVALID_PAYLOAD', `languages.${code} must be an object`, `languages.${code}`);
    out.push([code, block]);
  }
  return out;
}

/** Only the given fields of a language block (the record's interface; other keys are ignored). */
export function pick(block: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (block[f] !== undefined) out[f] = block[f];
  return out;
}

/** Merge sent language blocks into stored ones: only sent languages and fields change. */
export function mergeLanguages(
  stored: Readonly<Record<string, Record<string, unknown>>> | undefined,
  sent: Readonly<Record<string, Record<string, unknown>>>,
  fields: readonly string[],
): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [code, block] of Object.entries(stored ?? {})) out[code] = { ...block };
  for (const [code, block] of Object.entries(sent)) out[code] = { ...(out[code] ?? {}), ...pick(block, fields) };
  return out;
}

/** Keep only one language of a `languages{}` object (export `language` filter). */
export function onlyLanguage<T>(languages: Readonly<Record<string, T>> | undefined, language: Language | undefined): Record<string, T> {
  if (!languages) return {};
  if (!language) return { ...languages };
  return language.code in languages ? { [language.code]: languages[language.code] } : {};
}
