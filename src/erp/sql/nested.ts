/**
 * Nested data from SQL: folding joined rows into one record per key (groupBy), and attaching
 * rows of child queries (order lines, price tiers, stock per warehouse) to their parents.
 */
import type { ErpRecord } from '../types.js';
import { jsonSafeRow } from '../values.js';
import type { SqlDriver } from './driver.js';
import { compileNamed } from './params.js';
import { keyList, type SqlSourceConfig } from './config.js';
import { keyString } from './keys.js';

type Group = SqlSourceConfig['groupBy'][number];

/** Which child field a column belongs to, and its name there (prefix stripped). */
function claim(groups: readonly Group[], column: string): { field: string; name: string } | undefined {
  for (const g of groups) {
    if (g.columns?.includes(column)) return { field: g.field, name: column };
    if (g.prefix !== undefined && column.startsWith(g.prefix) && column.length > g.prefix.length) return { field: g.field, name: column.slice(g.prefix.length) };
  }
  return undefined;
}

/**
 * Fold consecutive rows sharing a key into one record each. Child objects whose columns are all
 * NULL (a LEFT JOIN without match) are dropped; duplicates from joining two child tables are removed.
 */
export function groupRows(rows: readonly ErpRecord[], keyColumns: readonly string[], groups: readonly Group[]): ErpRecord[] {
  const out: ErpRecord[] = [];
  let current: ErpRecord | undefined;
  let currentKey: unknown;
  let seen = new Map<string, Set<string>>();
  for (const row of rows) {
    const key = keyString(row, keyColumns) ?? JSON.stringify(keyColumns.map((c) => row[c]));
    if (current === undefined || key !== currentKey) {
      current = {};
      for (const g of groups) current[g.field] = [];
      currentKey = key;
      seen = new Map(groups.map((g) => [g.field, new Set<string>()]));
      out.push(current);
    }
    const children = new Map<string, Record<string, unknown>>();
    for (const [column, value] of Object.entries(row)) {
      const c = claim(groups, column);
      if (!c) {
        current[column] = value;
        continue;
      }
      const child = children.get(c.field) ?? {};
      child[c.name] = value;
      children.set(c.field, child);
    }
    for (const [field, child] of children) {
      if (Object.values(child).every((v) => v === null)) continue;
      const fingerprint = JSON.stringify(child);
      const fieldSeen = seen.get(field) as Set<string>;
      if (fieldSeen.has(fingerprint)) continue;
      fieldSeen.add(fingerprint);
      (current[field] as unknown[]).push(child);
    }
  }
  return out;
}

/**
 * Run each child query once for the page's keys and attach the rows (in query order) to their
 * parents. A single key binds `:keys`; a composite key binds `:keys_<column>` per key column, and
 * the rows are matched to their parent by the whole key.
 */
export async function attachChildren(driver: SqlDriver, cfg: SqlSourceConfig, records: readonly ErpRecord[]): Promise<void> {
  if (cfg.children.length === 0 || records.length === 0) return;
  const columns = keyList(cfg.key);
  const lists: Record<string, unknown[]> = { keys: columns.length === 1 ? records.map((r) => r[columns[0] as string]) : [] };
  if (columns.length > 1) for (const c of columns) lists[`keys_${c}`] = [...new Set(records.map((r) => r[c]))];
  for (const child of cfg.children) {
    const parentColumns = keyList(child.parentKey);
    const compiled = compileNamed(child.query, { ...cfg.params, ...lists }, driver.style);
    const rows = await driver.query(compiled.sql, compiled.params);
    const byParent = new Map<string, ErpRecord[]>();
    for (const raw of rows) {
      const row = jsonSafeRow(raw);
      const parent = parentString(row, parentColumns);
      const list = byParent.get(parent);
      if (list) list.push(row);
      else byParent.set(parent, [row]);
    }
    for (const record of records) record[child.field] = byParent.get(parentString(record, columns)) ?? [];
  }
}

/** A parent key as one string for matching (the child's columns may be named differently). */
function parentString(row: ErpRecord, columns: readonly string[]): string {
  return columns.length === 1 ? String(row[columns[0] as string]) : JSON.stringify(columns.map((c) => String(row[c])));
}
