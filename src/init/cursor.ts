/**
 * The cursor of an SQL source: the column that grows on every change. Change columns (Tryton's and
 * Odoo's `write_date`, ERPNext's `modified`, Dolibarr's `tms`…) rank ahead of creation dates, which
 * are never taken for one; several (a query joining tables) are read as the latest of them,
 * `GREATEST(COALESCE(a, a's creation date, first), COALESCE(b, …))`. A change column with a few
 * NULLs stays the cursor: keyset paging refuses a row without a cursor value, so the generated query
 * selects `COALESCE(<column>, <created-at column or a constant that sorts first>)` under an alias,
 * and the alias is the source's `cursor:`.
 *
 * Why an alias in the SELECT rather than the expression as the cursor: the SQL source takes a
 * column name (`cursor: identifierSchema`) and wraps the query as `SELECT * FROM (<query>) shopsync_q
 * WHERE (cursor, key) > (…) ORDER BY cursor, key`. PostgreSQL and SQLite fold that subquery into
 * the table scan, so the predicate and the ORDER BY reach the expression itself: PostgreSQL answers each
 * page as a range of an expression index on (COALESCE(…), key), SQLite walks such an index in order
 * without sorting (MariaDB has no expression indexes: an indexed generated column does it there).
 * A query that pages itself (`:cursor`, `:cursor_key`) would need initial values and the expression
 * three times, for the same plan.
 */
import { IDENTIFIER } from '../erp/connection.js';
import { INIT_CODES, InitError } from './errors.js';
import { normalise } from './synonyms.js';
import type { CoalescedCursor, Column, ColumnKind, Introspection } from './types.js';

/**
 * Names ERPs give a column they set on every change: Tryton, Odoo and OpenERP `write_date`, ERPNext
 * `modified`, Dolibarr `tms`, Rails `updated_at`, German ERPs `geaendert`/`aenderung`…
 */
const CHANGE_NAME = /(updated|update|changed|change|modified|modif|geaendert|aenderung|lastmod|timestamp|mtime|rowversion|zeitstempel|aktualisiert|write|edited|^tms$)/;
/** Names ERPs give a column they set once, when the row is created (`created_at`, `create_date`, ERPNext `creation`, Dolibarr `datec`, `angelegt`). */
const CREATED_NAME = /(creat|insert|angelegt|anlage|erstellt|erfasst|erzeugt|^datec$)/;
/** The alias the generated query selects a coalesced cursor under. */
const CURSOR_ALIAS = 'shopsync_changed';

type CursorKind = CoalescedCursor['kind'];

/** A constant in each kind that sorts before every value an ERP writes. */
const FIRST: Readonly<Record<CursorKind, string | number>> = { datetime: '1970-01-01 00:00:00', date: '1970-01-01', integer: 0 };

/** What init picked as the cursor. */
export interface CursorChoice {
  /** The source config's `cursor:` (the alias when coalesced). */
  readonly cursor: string;
  /** The source column behind it. */
  readonly column: string;
  /** Why, for the person: on screen and as the config's `# Cursor:` comment. */
  readonly note: string;
  readonly coalesce?: CoalescedCursor;
}

function isCursorKind(kind: ColumnKind): kind is CursorKind {
  return kind === 'datetime' || kind === 'date' || kind === 'integer';
}

/** Kinds COALESCE can mix: a timestamp with a date, a number with a number. */
function sameFamily(a: CursorKind, b: CursorKind): boolean {
  return (a === 'integer') === (b === 'integer');
}

/** Columns named like a time but holding who or how many (`write_uid`, `fk_user_modif`, `modified_by`, `change_count`). */
const NOT_A_TIME = /(uid$|user|by$|id$|author|count|number|nr$)/;
/** Words that say change or creation, dropped to pair `template_write_date` with `template_create_date`. */
const TIME_WORD = /^(created?|creation|inserted|insert|updated?|changed?|modified|modif|write|written|last|letzte|geaendert|aenderung|angelegt|erstellt|am|at|on|tms|datec)$/;

/** A column name without its change or creation words (`template_write_date` → `template date`). */
function stem(name: string): string {
  const words = name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9äöüß]+/).filter((w) => w !== '');
  return words.filter((w) => !TIME_WORD.test(normalise(w))).join(' ');
}

/** The column that says when a row was created, when the sample has it for every row: one named like the change column (`template_create_date` for `template_write_date`) first. */
function createdColumn(columns: readonly Column[], change: Column & { kind: CursorKind }, key: string): Column | undefined {
  const fits = columns.filter((c) => c.name !== change.name && c.name !== key && IDENTIFIER.test(c.name) && CREATED_NAME.test(normalise(c.name)) && !NOT_A_TIME.test(normalise(c.name)) && isCursorKind(c.kind) && sameFamily(c.kind, change.kind) && c.empty === 0 && c.samples.length > 0);
  const own = stem(change.name);
  return fits.find((c) => stem(c.name) === own) ?? fits.find((c) => c.kind === change.kind) ?? fits[0];
}

/** `shopsync_changed`, or with a number when the source already has a column of that name. */
function aliasFor(columns: readonly Column[]): string {
  const names = new Set(columns.map((c) => c.name.toLowerCase()));
  let alias = CURSOR_ALIAS;
  for (let i = 2; names.has(alias); i++) alias = `${CURSOR_ALIAS}_${i}`;
  return alias;
}

/** The terms of the cursor expression: the change column and its fallback, then any further change columns with theirs. */
function termsOf(c: CoalescedCursor): { column: string; fallback: { column: string } | { constant: string | number } }[] {
  if (!c.also || c.also.length === 0) return [{ column: c.column, fallback: c.fallback }];
  return [{ column: c.column, fallback: c.fallback }, ...c.also.map((a) => ({ column: a.column, fallback: a.fallback !== undefined ? { column: a.fallback } : { constant: FIRST[c.kind] } }))];
}

function constantText(value: string | number): string {
  return typeof value === 'number' ? String(value) : `'${value}'`;
}

/** `COALESCE(geaendert, angelegt)`, or `GREATEST(COALESCE(write_date, create_date, '1970-…'), …)`, as a person reads it (the query quotes the names). */
export function coalesceText(c: CoalescedCursor): string {
  const terms = termsOf(c);
  const first = constantText(FIRST[c.kind]);
  if (terms.length === 1) return `COALESCE(${c.column}, ${'column' in c.fallback ? c.fallback.column : constantText(c.fallback.constant)})`;
  // Every term ends in the constant: MariaDB's GREATEST and SQLite's max() are NULL when one argument is.
  return `GREATEST(${terms.map((x) => `COALESCE(${x.column}, ${'column' in x.fallback ? `${x.fallback.column}, ` : ''}${first})`).join(', ')})`;
}

/** `3 of 199 sampled rows have no geaendert (NULL)`. */
function nullRows(nulls: number, rows: number, column: string): string {
  return `${nulls} of ${rows} sampled rows ${nulls === 1 ? 'has' : 'have'} no ${column} (NULL)`;
}

/** The cursor read through COALESCE, with a note that says how many sampled rows are NULL and what follows. */
function coalesced(intro: Introspection, change: Column & { kind: CursorKind }, key: string, why: string): CursorChoice {
  const created = createdColumn(intro.columns, change, key);
  const coalesce: CoalescedCursor = {
    column: change.name,
    alias: aliasFor(intro.columns),
    fallback: created ? { column: created.name } : { constant: FIRST[change.kind] },
    kind: change.kind,
    ...(change.declaredType ? { declaredType: change.declaredType } : {}),
    nulls: change.empty,
    rows: intro.rows,
  };
  const expr = coalesceText(coalesce);
  const c = change.name;
  const effect = created
    ? `a row without ${c} counts as changed when it was created (${created.name}), and is read again once the ERP sets ${c}`
    : `rows without ${c} sort first, so the first run reads them, and a run reads a row again once the ERP sets ${c}. No column says when a row was created, so a row added later without ${c} waits until ${c} is set; if the table has such a column, put it in the COALESCE in query:`;
  return {
    cursor: coalesce.alias,
    column: c,
    coalesce,
    note: `${why}, but ${nullRows(change.empty, intro.rows, c)}, and a run refuses a row without a cursor value; so the query selects ${expr} AS ${coalesce.alias} and that is the cursor: ${effect}. For a large table, index (${expr}, ${key}) so pages need no sort (docs/init.md)`,
  };
}

function given(intro: Introspection, name: string, key: string): CursorChoice {
  const column = intro.columns.find((c) => c.name === name);
  if (!column) throw new InitError(INIT_CODES.input, `--cursor ${name}: no such column; the source has ${intro.columns.map((c) => c.name).join(', ')}`);
  if (!IDENTIFIER.test(name)) throw new InitError(INIT_CODES.input, `--cursor ${name}: a cursor column needs a plain name (letters, digits, _); rename it in --query`);
  if (column.empty > 0 && column.samples.length > 0 && isCursorKind(column.kind)) return coalesced(intro, { ...column, kind: column.kind }, key, 'given');
  if (column.empty > 0) {
    return { cursor: name, column: name, note: `given; ${nullRows(column.empty, intro.rows, name)}, and a run refuses a row without a cursor value: fill it in the ERP, or select a value for it in --query (e.g. COALESCE(${name}, created_at))` };
  }
  return { cursor: name, column: name, note: 'given' };
}

/** The cursor read through GREATEST of several change columns, each through COALESCE so no NULL makes the whole value NULL. */
function greatest(intro: Introspection, changes: readonly (Column & { kind: CursorKind })[], key: string): CursorChoice {
  const [main, ...rest] = changes as [Column & { kind: CursorKind }, ...(Column & { kind: CursorKind })[]];
  const fallbackOf = (c: Column & { kind: CursorKind }) => createdColumn(intro.columns, c, key)?.name;
  const mainFallback = fallbackOf(main);
  const coalesce: CoalescedCursor = {
    column: main.name,
    alias: aliasFor(intro.columns),
    fallback: mainFallback !== undefined ? { column: mainFallback } : { constant: FIRST[main.kind] },
    kind: main.kind,
    ...(main.declaredType ? { declaredType: main.declaredType } : {}),
    nulls: main.empty,
    rows: intro.rows,
    also: rest.map((c) => {
      const f = fallbackOf(c);
      return { column: c.name, ...(f !== undefined ? { fallback: f } : {}), nulls: c.empty };
    }),
  };
  const expr = coalesceText(coalesce);
  const names = changes.map((c) => c.name);
  const listed = `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
  const created = changes.flatMap((c) => fallbackOf(c) ?? []);
  const withNulls = changes.filter((c) => c.empty > 0).map((c) => nullRows(c.empty, intro.rows, c.name));
  const nullNote = `${withNulls.length > 0 ? ` (${withNulls.join('; ')})` : ''}; a NULL counts as the row's creation time${created.length > 0 ? ` (${[...new Set(created)].join(', ')})` : ''}, or sorts first where none is known, since a run refuses a row without a cursor value`;
  return {
    cursor: coalesce.alias,
    column: main.name,
    coalesce,
    note: `${listed} look like change timestamps: a row counts as changed when any of them moves, so the query selects ${expr} AS ${coalesce.alias} and that is the cursor${nullNote}. For a large table, see docs/init.md on indexing the cursor`,
  };
}

/** Pick the cursor: change timestamps (several through GREATEST, one with NULLs through COALESCE) ahead of creation dates, else any timestamp, else the key, saying which and why. */
export function pickCursor(intro: Introspection, key: string, givenName: string | undefined): CursorChoice {
  if (givenName !== undefined) return given(intro, givenName, key);
  const plain = (name: string, note: string): CursorChoice => ({ cursor: name, column: name, note });
  const eligible = intro.columns.filter((c) => c.name !== key && IDENTIFIER.test(c.name) && !NOT_A_TIME.test(normalise(c.name)));
  const isCreated = (c: Column) => CREATED_NAME.test(normalise(c.name));
  const named = eligible.flatMap((c) => (isCursorKind(c.kind) && CHANGE_NAME.test(normalise(c.name)) && !isCreated(c) && c.samples.length > 0 ? [{ ...c, kind: c.kind }] : []));
  // Timestamps first: a change counter (rowversion) is taken only where no change time exists.
  const family = named.some((c) => c.kind !== 'integer') ? named.filter((c) => c.kind !== 'integer') : named;
  const ordered = [...family].sort((a, b) => Number(b.kind === 'datetime') - Number(a.kind === 'datetime') || Number(a.empty > 0) - Number(b.empty > 0));
  // Several change columns are combined in the order the source lists them.
  if (family.length > 1) return greatest(intro, family, key);
  const only = ordered[0];
  const createdNames = eligible.filter((c) => isCursorKind(c.kind) && c.kind !== 'integer' && isCreated(c) && c.samples.length > 0).map((c) => c.name);
  if (only && only.empty === 0) return plain(only.name, `${only.name} looks like a change timestamp${createdNames.length > 0 ? ` (${createdNames.join(', ')} only ${createdNames.length === 1 ? 'says' : 'say'} when a row was created)` : ''}`);
  // Some NULLs, some values: the ERP keeps the column, it just left it empty on some rows (Tryton's write_date until the first edit).
  if (only) return coalesced(intro, only, key, `${only.name} looks like a change timestamp`);
  const times = eligible.filter((c) => c.empty === 0 && c.kind === 'datetime' && !isCreated(c));
  const anyTime = times[0];
  if (anyTime) {
    const why = times.length === 1 ? `${anyTime.name} is the only timestamp besides creation dates` : `${anyTime.name} is the first of ${times.length} timestamps (${times.map((c) => c.name).join(', ')}), none named like a change time`;
    return plain(anyTime.name, `${createdNames.length === 0 && times.length === 1 ? `${anyTime.name} is the only timestamp` : why}; make sure the ERP sets it on every change, or give --cursor`);
  }
  if (createdNames.length > 0) {
    return plain(createdNames[0] as string, `${createdNames.join(', ')} only ${createdNames.length === 1 ? 'says' : 'say'} when a row was created, and no column records changes: runs see new rows only, never changed ones. Add a column the ERP sets on every change (write_date, updated_at) and give it as --cursor`);
  }
  return plain(key, `no column records changes, so the cursor is the key ${key}: runs see new rows only, never changed ones. Add a column the ERP sets on every change (updated_at) and give it as --cursor`);
}

/** The SQL dialects init writes queries for. */
export type SqlKind = 'postgres' | 'mysql' | 'sqlite';

function quote(kind: SqlKind, name: string): string {
  const q = kind === 'mysql' ? '`' : '"';
  return name.split('.').map((p) => `${q}${p.split(q).join(q + q)}${q}`).join('.');
}

/** The constant in the change column's type: MariaDB would turn `COALESCE(datetime, '1970-…')` into text. */
function constantSql(kind: SqlKind, c: CoalescedCursor, value: string | number): string {
  if (typeof value === 'number') return String(value);
  const literal = `'${value}'`;
  // A query's columns have no declared type; the sampled values said date or time already.
  if (kind === 'mysql' && (/date|time/i.test(c.declaredType ?? '') || c.declaredType === undefined)) return `CAST(${literal} AS ${c.kind === 'date' ? 'DATE' : 'DATETIME'})`;
  // PostgreSQL gives an untyped literal the other argument's type; SQLite compares text as text.
  return literal;
}

/** `COALESCE("geaendert", "angelegt")`, or the GREATEST of several (SQLite: its multi-argument max()), in the dialect's quoting. */
export function coalesceSql(kind: SqlKind, c: CoalescedCursor): string {
  const terms = termsOf(c);
  if (terms.length === 1) {
    const fallback = 'column' in c.fallback ? quote(kind, c.fallback.column) : constantSql(kind, c, c.fallback.constant);
    return `COALESCE(${quote(kind, c.column)}, ${fallback})`;
  }
  const first = constantSql(kind, c, FIRST[c.kind]);
  const parts = terms.map((x) => `COALESCE(${quote(kind, x.column)}, ${'column' in x.fallback ? `${quote(kind, x.fallback.column)}, ` : ''}${first})`);
  return `${kind === 'sqlite' ? 'max' : 'GREATEST'}(${parts.join(', ')})`;
}

/** The source's `query:`: the table (or the person's SELECT), with the coalesced cursor selected under its alias. */
export function sourceQuery(kind: SqlKind, from: { readonly table?: string; readonly query?: string }, c: CoalescedCursor | undefined): string {
  if (from.table !== undefined) return `SELECT *${c ? `, ${coalesceSql(kind, c)} AS ${c.alias}` : ''} FROM ${quote(kind, from.table)}`;
  const query = from.query ?? '';
  return c ? `SELECT shopsync_s.*, ${coalesceSql(kind, c)} AS ${c.alias} FROM (${query.trim().replace(/;+$/, '')}) shopsync_s` : query;
}
