/**
 * A table a query names that the database does not have (PostgreSQL 42P01, MariaDB 1146, SQLite
 * "no such table"): the hint says which schema or database was searched, lists the tables there,
 * offers the nearest name and the schemas where a table of that very name lives, and names the
 * setting that chooses where to look (`schema:` of the connection, `init --db-schema`).
 */
import { didYouMean } from '../../util/suggest.js';
import type { ConnectionOrigin } from '../types.js';

/** What the database told, and what it holds. */
export interface MissingTable {
  readonly kind: 'postgres' | 'mysql' | 'sqlite';
  /** The name as written in the query (`artikel`, `erp.artikel`), when the error says which. */
  readonly table?: string;
  /** The schemas (PostgreSQL search path), the database (MariaDB) or the file (SQLite) that was searched. */
  readonly searched: readonly string[];
  /** The search path as set, when some of its schemas do not exist (PostgreSQL). */
  readonly asked?: string;
  /** Every table the connection sees, as `schema.table`. */
  readonly tables: readonly string[];
  /** The database file (SQLite), named instead of its one schema. */
  readonly file?: string;
  readonly origin?: ConnectionOrigin;
}

/** Tables listed by name in a hint before the rest is counted. */
const LISTED = 15;

/** Split `schema.table` (each part perhaps quoted) into its parts, unquoted. */
export function splitName(name: string): { schema?: string; table: string } {
  const parts = name.match(/"(?:[^"]|"")+"|`(?:[^`]|``)+`|[^.]+/g)?.map((p) => (/^["`]/.test(p) ? p.slice(1, -1).replace(/""|``/g, (q) => q[0]!) : p)) ?? [name];
  return parts.length > 1 ? { schema: parts[parts.length - 2], table: parts[parts.length - 1]! } : { table: parts[0]! };
}

/** The identifier (maybe `schema.table`, maybe quoted) at a 1-based character position of `sql` (PostgreSQL's `position`). */
export function identifierAt(sql: string, position: unknown): string | undefined {
  const at = Number(position);
  if (!Number.isInteger(at) || at < 1) return undefined;
  const part = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][\w$]*)`;
  const m = new RegExp(String.raw`^${part}(?:\s*\.\s*${part})?`).exec(sql.slice(at - 1));
  return m?.[0].replace(/\s+/g, '');
}

/** The hint: searched where, what is there, the nearest name, and how to look elsewhere. */
export function missingTableHint(m: MissingTable): string {
  const wanted = m.table === undefined ? undefined : splitName(m.table);
  const name = wanted?.table;
  const unquoted = m.kind === 'postgres' && wanted && !/"/.test(m.table ?? '') ? wanted.table.toLowerCase() : wanted?.table;
  const scope = wanted?.schema !== undefined ? [wanted.schema] : m.searched;
  const place = placeWord(m.kind);
  const inScope = (t: string) => scope.some((s) => t.toLowerCase().startsWith(`${s.toLowerCase()}.`));
  const there = m.tables.filter(inScope).map((t) => (scope.length === 1 ? t.slice(t.indexOf('.') + 1) : t));
  const out: string[] = [];
  let elsewhere: string[] = [];

  const searched = m.kind === 'sqlite' ? `${place} ${m.file ?? scope.join(', ')}` : scope.length > 0 ? `${place} ${scope.join(', ')}` : `the search path (${m.asked ?? 'empty'}; none of its schemas exists)`;
  const chosen = scope.length > 0 && wanted?.schema === undefined ? ` (${chosenBy(m)})` : '';
  out.push(`${name === undefined ? 'A table the query names' : `Table ${name}`} is not in ${searched}${chosen}.`);
  if (m.kind === 'postgres' && m.asked !== undefined && wanted?.schema === undefined) {
    const missing = schemasOf(m.asked).filter((s) => !m.searched.some((x) => x.toLowerCase() === s.toLowerCase()) && s !== '$user');
    if (missing.length > 0) out.push(`Schema ${missing.join(', ')} of the search path does not exist; the schemas with tables are ${[...new Set(m.tables.map((t) => t.slice(0, t.indexOf('.'))))].join(', ') || '(none)'}.`);
  }
  if (scope.length > 0) out.push(there.length === 0 ? `It holds no tables.` : `Tables there: ${list(there)}.`);
  if (unquoted !== undefined) {
    const near = didYouMean(unquoted, there.map((t) => t.slice(t.lastIndexOf('.') + 1)));
    if (near !== undefined && near.toLowerCase() !== unquoted.toLowerCase()) out.push(`Did you mean ${near}?`);
    elsewhere = m.tables.filter((t) => !inScope(t) && t.slice(t.indexOf('.') + 1).toLowerCase() === unquoted.toLowerCase());
    if (elsewhere.length > 0) out.push(`A table ${name} exists in ${place} ${elsewhere.map((t) => t.slice(0, t.indexOf('.'))).join(', ')}: ${howToLook(m, elsewhere[0]!.slice(0, elsewhere[0]!.indexOf('.')))}, or ${m.origin?.init ? `give --table ${elsewhere[0]}` : `write ${elsewhere[0]} in the query`}.`);
  }
  const query = m.origin?.init ? 'the table name (--table, --query)' : `the table name in the query${m.origin?.part ? ` (${m.origin.part.key}${m.origin.part.where ? `, ${m.origin.part.where}` : ''})` : ''}`;
  out.push(elsewhere.length > 0 ? `Otherwise fix ${query}.` : m.kind === 'sqlite' ? `Fix ${query}.` : `Fix ${query}, or ${howToLook(m)}.`);
  return out.join(' ');
}

function placeWord(kind: MissingTable['kind']): string {
  return kind === 'postgres' ? 'schema' : kind === 'mysql' ? 'database' : 'SQLite file';
}

/** What chose the searched place: the connection's `schema:`/`database:`, init's options, or the server's default. */
function chosenBy(m: MissingTable): string {
  const o = m.origin;
  const field = m.kind === 'postgres' ? 'schema' : m.kind === 'mysql' ? 'database' : 'path';
  const set = o?.fields?.[field];
  if (m.kind === 'sqlite') return o && set ? `\`path:\` of connection ${o.name}, ${set.where}` : o ? `connection ${o.name}` : 'the connection';
  if (o?.init) return m.kind === 'postgres' ? (set ? 'set by --db-schema' : 'the search path: no --db-schema given') : 'the database of --db-url';
  if (o && set) return `set by \`${field}:\` in connection ${o.name}, ${set.where}`;
  if (m.kind === 'mysql') return `the connection's database`;
  return o ? `the server's search path: connection ${o.name}${o.where ? ` (${o.where})` : ''} sets no \`schema:\`` : `the server's search path`;
}

/** How to point the connection at another schema or database. */
function howToLook(m: MissingTable, target?: string): string {
  const o = m.origin;
  const field = m.kind === 'postgres' ? 'schema' : 'database';
  const value = target ?? `<${field}>`;
  if (o?.init) return m.kind === 'postgres' ? `pass --db-schema ${value}` : `name the database in --db-url (…/${value})`;
  const set = o?.fields?.[field];
  if (set) return `change \`${field}:\` (${set.where}) to ${target ?? `the ${field} that holds it`}`;
  const written = `set \`${field}: ${value}\` in connection ${o?.name ?? 'of the source'}${o?.where ? ` (${o.where})` : ''}`;
  return m.kind === 'postgres' ? `${written} (\`shopsync init --db-schema\` writes it)` : written;
}

function list(names: readonly string[]): string {
  const sorted = [...names].sort((a, b) => a.localeCompare(b));
  return sorted.length > LISTED ? `${sorted.slice(0, LISTED).join(', ')} … (${sorted.length - LISTED} more)` : sorted.join(', ');
}

/** The schemas named in a search_path setting (`"$user", public`). */
function schemasOf(searchPath: string): string[] {
  return searchPath.split(',').map((s) => s.trim().replace(/^"(.*)"$/, '$1')).filter((s) => s !== '');
}
