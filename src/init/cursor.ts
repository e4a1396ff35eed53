/**
 * The cursor of an SQL source: the column that grows on every change. A change column with a few
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

/** Names ERPs give a column they set on every change. */
const CHANGE_NAME = /(updated|changed|modified|geaendert|aenderung|lastmod|lastchange|timestamp|mtime|rowversion|zeitstempel|aktualisiert)/;
/** Names ERPs give a column they set once, when the row is created (`created_at`, `angelegt`, `erstellt_am`). */
const CREATED_NAME = /(created|creation|inserted|angelegt|anlage|erstellt|erfasst|erzeugt)/;
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

/** The column that says when a row was created, when the sample has it for every row. */
function createdColumn(columns: readonly Column[], change: Column & { kind: CursorKind }, key: string): Column | undefined {
  const fits = columns.filter((c) => c.name !== change.name && c.name !== key && IDENTIFIER.test(c.name) && CREATED_NAME.test(normalise(c.name)) && isCursorKind(c.kind) && sameFamily(c.kind, change.kind) && c.empty === 0 && c.samples.length > 0);
  return fits.find((c) => c.kind === change.kind) ?? fits[0];
}

/** `shopsync_changed`, or with a number when the source already has a column of that name. */
function aliasFor(columns: readonly Column[]): string {
  const names = new Set(columns.map((c) => c.name.toLowerCase()));
  let alias = CURSOR_ALIAS;
  for (let i = 2; names.has(alias); i++) alias = `${CURSOR_ALIAS}_${i}`;
  return alias;
}

/** `COALESCE(geaendert, angelegt)` as a person reads it (the query quotes the names). */
export function coalesceText(c: CoalescedCursor): string {
  const fallback = 'column' in c.fallback ? c.fallback.column : typeof c.fallback.constant === 'number' ? String(c.fallback.constant) : `'${c.fallback.constant}'`;
  return `COALESCE(${c.column}, ${fallback})`;
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

/** Pick the cursor: a change timestamp (through COALESCE when it has NULLs), else any timestamp, else the key, saying which and why. */
export function pickCursor(intro: Introspection, key: string, givenName: string | undefined): CursorChoice {
  if (givenName !== undefined) return given(intro, givenName, key);
  const plain = (name: string, note: string): CursorChoice => ({ cursor: name, column: name, note });
  const eligible = intro.columns.filter((c) => c.name !== key && IDENTIFIER.test(c.name));
  const named = eligible.flatMap((c) => (isCursorKind(c.kind) && CHANGE_NAME.test(normalise(c.name)) && !CREATED_NAME.test(normalise(c.name)) ? [{ ...c, kind: c.kind }] : []));
  const best = <C extends Column>(cs: readonly C[]): C | undefined => cs.find((c) => c.kind === 'datetime') ?? cs[0];
  const full = best(named.filter((c) => c.empty === 0));
  if (full) return plain(full.name, `${full.name} looks like a change timestamp`);
  // Some NULLs, some values: the ERP keeps the column, it just left it empty on some rows.
  const partly = best(named.filter((c) => c.samples.length > 0));
  if (partly) return coalesced(intro, partly, key, `${partly.name} looks like a change timestamp`);
  const anyTime = eligible.find((c) => c.empty === 0 && c.kind === 'datetime');
  if (anyTime) return plain(anyTime.name, `${anyTime.name} is the only timestamp; make sure the ERP sets it on every change, or give --cursor`);
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
  if (kind === 'mysql' && /date|time/i.test(c.declaredType ?? '')) return `CAST(${literal} AS ${c.kind === 'date' ? 'DATE' : 'DATETIME'})`;
  // PostgreSQL gives an untyped literal the other argument's type; SQLite compares text as text.
  return literal;
}

/** `COALESCE("geaendert", "angelegt")` in the dialect's quoting. */
export function coalesceSql(kind: SqlKind, c: CoalescedCursor): string {
  const fallback = 'column' in c.fallback ? quote(kind, c.fallback.column) : constantSql(kind, c, c.fallback.constant);
  return `COALESCE(${quote(kind, c.column)}, ${fallback})`;
}

/** The source's `query:`: the table (or the person's SELECT), with the coalesced cursor selected under its alias. */
export function sourceQuery(kind: SqlKind, from: { readonly table?: string; readonly query?: string }, c: CoalescedCursor | undefined): string {
  if (from.table !== undefined) return `SELECT *${c ? `, ${coalesceSql(kind, c)} AS ${c.alias}` : ''} FROM ${quote(kind, from.table)}`;
  const query = from.query ?? '';
  return c ? `SELECT shopsync_s.*, ${coalesceSql(kind, c)} AS ${c.alias} FROM (${query.trim().replace(/;+$/, '')}) shopsync_s` : query;
}
