/**
 * The proposed mapping: each column is matched to the shop field its name and values fit best
 * (exact registry name, known ERP synonym, similar name), checked against what the field takes
 * (a price needs numbers, a status yes/no values, an e-mail field e-mail addresses); then the key
 * and the cursor are picked. What cannot be placed is listed with the reason, never guessed.
 */
import { distance } from 'fastest-levenshtein';
import type { DecimalLocale } from '../mapping/schema.js';
import { IDENTIFIER } from '../erp/connection.js';
import { resolveTarget } from '../mapping/targets.js';
import { targetsFill, type ResourceDef } from '../shop/registry/index.js';
import { pickCursor } from './cursor.js';
import { INIT_CODES, InitError } from './errors.js';
import { nearestFieldHint, targetFields, type TargetField } from './fields.js';
import { bareName, normalise, SYNONYMS } from './synonyms.js';
import type { CoalescedCursor, Column, Introspection, Proposal, ProposedField, Unplaced } from './types.js';

/** What proposing needs besides the introspection. */
export interface ProposeOptions {
  readonly resource: ResourceDef;
  readonly language: string;
  /** SQL sources need a cursor; files do not. */
  readonly needsCursor: boolean;
  readonly key?: string;
  readonly cursor?: string;
  /** Column → field path given by the person ('' leaves the column out). */
  readonly map?: Readonly<Record<string, string>>;
}

interface Candidate {
  readonly column: Column;
  readonly field: TargetField;
  readonly score: number;
  readonly why: string;
}

const KEY_NAME = /(^id$|nr$|no$|number|nummer|key|sku|code)/;

/** How well a column name fits a field name, 0..1. */
function nameScore(column: string, field: TargetField, resource: string): { score: number; why: string } {
  const c = normalise(column);
  const full = normalise(field.name);
  const bare = normalise(bareName(field.name, resource));
  if (c === full) return { score: 1, why: 'same name' };
  if ((SYNONYMS[field.name] ?? []).some((s) => normalise(s) === c)) return { score: 0.9, why: 'known ERP name' };
  if (c === bare && bare.length >= 3) return { score: 0.85, why: 'same name without prefix' };
  const best = Math.max(...[full, bare].map((n) => 1 - distance(c, n) / Math.max(c.length, n.length)));
  return best >= 0.8 && c.length >= 4 ? { score: 0.6 * best, why: 'similar name' } : { score: 0, why: '' };
}

/** Whether the column's values can become the field's values; the reason when not. */
function valuesFit(column: Column, field: TargetField): string | undefined {
  const k = column.kind;
  const eg = column.samples[0] !== undefined ? ` (e.g. "${column.samples[0]}")` : '';
  switch (field.type) {
    case 'decimal':
      return k === 'integer' || k === 'decimal' || k === 'empty' ? undefined : `its values are not numbers${eg}`;
    case 'integer':
      return k === 'integer' || k === 'empty' ? undefined : `its values are not whole numbers${eg}`;
    case 'flag':
    case 'boolean':
      return column.booleans || k === 'empty' ? undefined : `its values are not yes/no values${eg}`;
    case 'date':
    case 'datetime':
      return (k === 'date' || k === 'datetime') && column.dateFormat ? undefined : `its values are not dates in a format init knows${eg}`;
    case 'email':
      return column.samples.every((s) => field.schema.safeParse(s).success) ? undefined : `its values are not e-mail addresses${eg}`;
    case 'string':
      return k === 'boolean' && !column.booleans ? `its values are not text${eg}` : undefined;
    default:
      return column.samples.length > 0 && column.samples.every((s) => field.schema.safeParse(s).success || field.schema.safeParse(Number(s)).success) ? undefined : 'the field takes values init cannot check; map it by hand';
  }
}

/** The rule for a column on a field, with the coercion the field needs. */
function ruleFor(column: Column, field: TargetField, why: string, defaultLocale: DecimalLocale | undefined): ProposedField {
  const base = { target: field.path, column: column.name, why };
  const locale = column.locale !== undefined && column.locale !== defaultLocale ? { locale: column.locale } : {};
  switch (field.type) {
    case 'decimal':
      return { ...base, type: 'decimal', ...locale };
    case 'integer':
      return { ...base, type: 'integer', ...locale };
    case 'flag':
    case 'boolean': {
      // The mapping's default lists already read true/false and 1/0; other words are declared.
      const defaults = (column.booleans?.true ?? []).every((v) => v === 'true' || v === '1') && (column.booleans?.false ?? []).every((v) => v === 'false' || v === '0');
      return defaults ? { ...base, type: field.type } : { ...base, type: field.type, true: column.booleans?.true ?? [], false: column.booleans?.false ?? [] };
    }
    case 'date':
    case 'datetime':
      return { ...base, type: field.type, ...(column.dateFormat ? { format: column.dateFormat } : {}) };
    case 'string':
    case 'email':
      // Numbers from a database (an integer article number) must become text for a text field.
      return column.numbers ? { ...base, type: 'string' } : { ...base, trim: true };
    default:
      return base;
  }
}

/** Names an ERP gives a record's own id: `id`, `artikel_id`, `ArtikelID`, `itemId`. */
const ID_NAME = /^id$|[_-]id$|[a-z0-9]ID$|[a-z0-9]Id$/;

/**
 * The ERP's stable id beside the article number (issue 46): where the resource has a number a rename
 * changes (registry `renames`) and a unique column is placed on it, a unique whole-number column that
 * is the table's one-column primary key or is named like an id. Returns that column, or undefined.
 */
function surrogateOf(columns: readonly Column[], fields: readonly ProposedField[], resource: ResourceDef, sql: boolean): { surrogate: Column; natural: Column } | undefined {
  const number = resource.renames?.number;
  const numberColumn = number === undefined ? undefined : columns.find((c) => c.unique && fields.some((f) => f.target === number && f.column === c.name));
  if (!numberColumn) return undefined;
  const ids = columns.filter((c) => c !== numberColumn && c.unique && c.kind === 'integer' && usable(c.name, sql));
  const pk = columns.filter((c) => c.primaryKey);
  const surrogate = (pk.length === 1 && ids.includes(pk[0]!) ? pk[0] : undefined) ?? ids.find((c) => ID_NAME.test(c.name));
  return surrogate ? { surrogate, natural: numberColumn } : undefined;
}

/** Whether a column can be the source's key or cursor: SQL sources quote identifiers only, paths cannot hold dots. */
function usable(name: string, sql: boolean): boolean {
  return sql ? IDENTIFIER.test(name) : !name.includes('.');
}

function pickKey(all: readonly Column[], fields: readonly ProposedField[], resource: ResourceDef, given: string | undefined, sql: boolean): string {
  const names = all.map((c) => c.name);
  const columns = all.filter((c) => usable(c.name, sql));
  if (given !== undefined) {
    if (!names.includes(given)) throw new InitError(INIT_CODES.input, `--key ${given}: no such column; the source has ${names.join(', ')}`);
    if (!usable(given, sql)) throw new InitError(INIT_CODES.input, `--key ${given}: ${sql ? 'an SQL key column needs a plain name (letters, digits, _); rename it in --query (SELECT "Art-Nr" AS artnr …)' : 'a key field name cannot hold a dot'}`);
    return given;
  }
  const identifying = [...resource.key.alternatives, ...(resource.naturalKeys ?? []).flatMap((n) => n.fields)];
  const onShopKey = fields.find((f) => identifying.includes(f.target));
  const byName = (c: Column) => KEY_NAME.test(normalise(c.name));
  const unique = columns.filter((c) => c.unique);
  const pk = columns.filter((c) => c.primaryKey);
  const chosen =
    (onShopKey && columns.find((c) => c.name === onShopKey.column && c.unique)) ??
    (pk.length === 1 ? pk[0] : undefined) ??
    unique.find(byName) ??
    unique[0];
  if (!chosen) throw new InitError(INIT_CODES.input, `no column holds a different value in every sampled row, so init cannot pick the record key; give --key <column> (columns: ${names.join(', ')})`);
  return chosen.name;
}

/** The change columns a coalesced cursor reads (one, or several under GREATEST). */
function changeColumnsOf(c: CoalescedCursor | undefined): Set<string> {
  return new Set(c ? [c.column, ...(c.also ?? []).map((a) => a.column)] : []);
}

/** The created-at columns a coalesced cursor falls back on. */
function fallbacksOf(c: CoalescedCursor | undefined): Set<string> {
  if (!c) return new Set();
  return new Set([...('column' in c.fallback ? [c.fallback.column] : []), ...(c.also ?? []).flatMap((a) => (a.fallback !== undefined ? [a.fallback] : []))]);
}

/** Propose the mapping for an introspected source. */
export function propose(intro: Introspection, o: ProposeOptions): Proposal {
  const resourceName = o.resource.name;
  const targets = targetFields(o.resource, o.language);
  const defaultLocale = intro.locale;
  const fields: ProposedField[] = [];
  const unplaced: Unplaced[] = [];
  const taken = new Set<string>();
  const done = new Set<string>();
  const byName = new Map(intro.columns.map((c) => [c.name, c]));

  for (const [column, target] of Object.entries(o.map ?? {})) {
    const c = byName.get(column);
    if (!c) throw new InitError(INIT_CODES.input, `--map ${column}=${target}: no such column; the source has ${[...byName.keys()].join(', ')}`);
    done.add(column);
    if (target === '') {
      unplaced.push({ column, reason: 'left out as asked' });
      continue;
    }
    if (!resolveTarget(o.resource.schemas.write, target).ok) throw new InitError(INIT_CODES.input, `--map ${column}=${target}: ${target} is not a field of ${resourceName}; ${nearestFieldHint(target, targets, resourceName)}`);
    const field = targets.find((t) => t.path === target);
    fields.push(field ? { ...ruleFor(c, field, 'given', defaultLocale) } : { target, column, why: 'given' });
    taken.add(target);
  }

  const candidates: Candidate[] = [];
  const rejected = new Map<string, string>();
  for (const column of intro.columns) {
    if (done.has(column.name)) continue;
    if (column.name.includes('.')) {
      // A mapping reads `a.b` as a path into nested values, so such a column cannot be named in `from:`.
      rejected.set(column.name, 'its name holds a dot, which a mapping reads as a path; rename the column in the export or the query');
      continue;
    }
    for (const field of targets) {
      if (taken.has(field.path)) continue;
      const { score, why } = nameScore(column.name, field, resourceName);
      if (score === 0) continue;
      const misfit = valuesFit(column, field);
      if (misfit) {
        if (!rejected.has(column.name)) rejected.set(column.name, `its name suggests ${field.path}, but ${misfit}`);
        continue;
      }
      candidates.push({ column, field, score, why });
    }
  }
  // On a tie the more specific name wins: ERPNext's `item_name` over its `name`, which holds the item code.
  candidates.sort((a, b) => b.score - a.score || normalise(b.column.name).length - normalise(a.column.name).length);
  for (const c of candidates) {
    if (done.has(c.column.name) || taken.has(c.field.path)) continue;
    fields.push(ruleFor(c.column, c.field, c.why, defaultLocale));
    done.add(c.column.name);
    taken.add(c.field.path);
  }

  // A stable id beside the article number is the better key: a changed number then renames the shop record (issue 46).
  const stable = surrogateOf(intro.columns, fields, o.resource, o.needsCursor);
  const key = o.key === undefined && stable ? stable.surrogate.name : pickKey(intro.columns, fields, o.resource, o.key, o.needsCursor);
  const natural = stable && stable.surrogate.name === key ? stable.natural.name : undefined;
  const cursor = o.needsCursor ? pickCursor(intro, key, o.cursor) : undefined;
  const changeColumns = changeColumnsOf(cursor?.coalesce);
  const fallbacks = fallbacksOf(cursor?.coalesce);
  for (const column of intro.columns) {
    if (done.has(column.name)) continue;
    const reason =
      column.name === cursor?.column || changeColumns.has(column.name) ? 'the cursor (when the record changed), not a shop field'
        : fallbacks.has(column.name) ? `the cursor where ${cursor?.coalesce?.also?.length ? 'a change column' : (cursor?.column ?? 'the change column')} is NULL (when the record was created), not a shop field`
          : column.name === key && natural !== undefined ? `the ERP's stable id, the record key: a changed ${natural} renames the shop record instead of making a new one`
          : column.name === key ? `the record key; no field of ${resourceName} matches its name`
            : (rejected.get(column.name) ?? (column.kind === 'empty' ? 'empty in every sampled row' : `no field of ${resourceName} matches its name`));
    unplaced.push({ column: column.name, reason });
  }

  const identifying = o.resource.key.alternatives;
  const keyField = natural !== undefined ? fields.find((f) => f.column === natural && f.target === o.resource.renames?.number) : fields.find((f) => f.column === key && identifying.includes(f.target));
  const placedTargets = fields.map((f) => f.target);
  // A name in another language does not count as missing: the rule asks for a name in some language.
  const missingRequired = (o.resource.requiredOnCreate ?? []).filter((r) => !targetsFill(r, placedTargets)).map((r) => (r.inSomeEntry !== undefined ? `${r.field}.${o.language}.${r.inSomeEntry}` : r.field));
  return {
    fields: fields.map((f) => (f.target === keyField?.target ? { ...f, required: true } : f)),
    unplaced,
    key,
    ...(natural !== undefined ? { natural } : {}),
    ...(cursor ? { cursor: cursor.cursor, cursorNote: cursor.note, ...(cursor.coalesce ? { cursorCoalesce: cursor.coalesce } : {}) } : {}),
    ...(keyField ? { shopKey: keyField.target } : {}),
    ...(defaultLocale ? { locale: defaultLocale } : {}),
    missingRequired,
  };
}
