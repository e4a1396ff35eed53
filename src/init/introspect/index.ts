/**
 * Introspection of any source init supports: SQL tables and queries (PostgreSQL, MariaDB/MySQL,
 * SQLite) and export files (CSV, JSON, NDJSON, XML). Each column is analysed from sample values
 * as the pipeline's source will deliver them.
 */
import { openSqlReader, type ConnectionInput, type ConnectionOrigin } from '../../erp/index.js';
import type { Logger } from '../../log.js';
import type { SourceAnswer } from '../answers.js';
import { analyseColumn, dominantLocale } from '../columns.js';
import { INIT_CODES, InitError } from '../errors.js';
import type { Column, ColumnKind, Introspection } from '../types.js';
import { sampleFile } from './file.js';
import { sampleSql } from './sql.js';

/** What introspection found, with the sample it read. */
export interface IntrospectResult {
  readonly introspection: Introspection;
  readonly records: readonly Record<string, unknown>[];
  /** The file's format (file sources). */
  readonly format?: 'csv' | 'json' | 'ndjson' | 'xml';
}

/** A declared SQL type as a column kind, for tables whose sample holds no value of a column. */
function declaredKind(type: string | undefined): ColumnKind | undefined {
  if (!type) return undefined;
  const t = type.toLowerCase();
  if (/int/.test(t)) return 'integer';
  if (/numeric|decimal|real|double|float|money/.test(t)) return 'decimal';
  if (/timestamp|datetime/.test(t)) return 'datetime';
  if (/^date$/.test(t)) return 'date';
  if (/bool/.test(t)) return 'boolean';
  return undefined;
}

function columnsOf(records: readonly Record<string, unknown>[], declared: ReadonlyMap<string, string>, primaryKey: readonly string[]): Column[] {
  const names = [...declared.keys()];
  for (const r of records) for (const k of Object.keys(r)) if (!names.includes(k)) names.push(k);
  return names.map((name) => {
    const type = declared.get(name);
    const c = analyseColumn(name, records.map((r) => r[name]), { ...(type ? { declaredType: type } : {}), ...(primaryKey.includes(name) ? { primaryKey: true } : {}) });
    const fallback = c.kind === 'empty' ? declaredKind(type) : undefined;
    if (fallback) return { ...c, kind: fallback };
    // Digits in a text column (an EAN in varchar) are text to the database, and stay text.
    if (type && /char|text|string|clob/i.test(type) && (c.kind === 'integer' || c.kind === 'decimal') && !c.locale) return { ...c, kind: 'text' };
    return c;
  });
}

/** Read a sample of the source and describe its columns. */
export async function introspect(source: SourceAnswer, connection: ConnectionInput, ctx: { logger: Logger; baseDir: string; origin?: ConnectionOrigin }, sampleRows: number): Promise<IntrospectResult> {
  if (source.kind === 'file') {
    const s = await sampleFile(source, ctx.baseDir, sampleRows);
    if (s.records.length === 0) throw new InitError(INIT_CODES.source, `${source.path} holds no records to learn the columns from; point init at an export with data`);
    const columns = columnsOf(s.records, new Map(), []);
    return {
      introspection: { columns, rows: s.records.length, encoding: s.encoding, ...(s.encodingGuessed ? { encodingGuessed: true } : {}), ...(s.delimiter ? { delimiter: s.delimiter } : {}), ...(s.recordsPath ? { recordsPath: s.recordsPath } : {}), ...localeOf(columns) },
      records: s.records,
      format: s.format,
    };
  }
  const driver = await openSqlReader(connection, ctx);
  try {
    const s = await sampleSql(driver, source, sampleRows);
    if (s.records.length === 0 && s.declared.size === 0) throw new InitError(INIT_CODES.source, `the ${source.table ? `table ${source.table}` : 'query'} returned no rows, so init cannot see its columns; give a table or a query with data`);
    const columns = columnsOf(s.records, s.declared, s.primaryKey);
    return { introspection: { columns, rows: s.records.length, ...localeOf(columns) }, records: s.records };
  } finally {
    await driver.close();
  }
}

function localeOf(columns: readonly Column[]): { locale?: Introspection['locale'] } {
  const locale = dominantLocale(columns);
  return locale ? { locale } : {};
}
