/**
 * The demo's sample ERP under `state/demo/`: a SQLite database shaped like a German ERP's
 * staging tables (from `src/demo`), the import tables the order pull writes into, and a CSV
 * inbox of Windows-1252 export files. Creating it twice changes nothing.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { parse } from 'yaml';
import { demoTables, writeDemoCsv } from '../../demo/index.js';

/** Where the demo ERP lives. */
export interface DemoErp {
  readonly dir: string;
  /** The ERP's SQLite database. */
  readonly database: string;
  /** Folder the ERP drops its CSV exports into (read by the file pipelines). */
  readonly inbox: string;
  /** True when this call created the ERP (first start). */
  readonly created: boolean;
}

/** ERP tables shopsync's order pull writes into: the order import, its lines and the changes after checkout (appended). */
export const ORDER_IMPORT = {
  table: 'erp_orders',
  key: 'Shop_BestellNr',
  lines: 'erp_order_lines',
  lineKey: ['Shop_BestellNr', 'Pos'],
  linesField: 'Positionen',
  changes: 'erp_order_changes',
  changeKey: ['Shop_BestellNr', 'Nr'],
  changesField: 'Aenderungen',
} as const;

/** ERP tables the variants-to-erp pull writes into: the shop's variants in the ERP's layout, with each SKU's shop id. */
export const VARIANT_IMPORT = { table: 'shop_artikel', key: 'ARTNR', rows: 'shop_varianten', rowKey: ['VARNR', 'MerkmalPos'], rowsField: 'Varianten' } as const;

/** Tables whose rows the demo reads from the CSV inbox instead of the database. */
export const INBOX_TABLES = ['warengruppen', 'hersteller'] as const;

/** Column names of the order import, taken from the shipped mapping so both stay in step. */
function importColumns(mappingFile: string): { orders: string[]; lines: string[]; changes: string[] } {
  const doc = parse(readFileSync(mappingFile, 'utf8')) as { fields: Record<string, unknown> };
  const child = (field: string) => Object.keys((doc.fields[field] as { fields?: Record<string, unknown> } | undefined)?.fields ?? {});
  const nested: readonly string[] = [ORDER_IMPORT.linesField, ORDER_IMPORT.changesField];
  return { orders: Object.keys(doc.fields).filter((f) => !nested.includes(f)), lines: child(ORDER_IMPORT.linesField), changes: child(ORDER_IMPORT.changesField) };
}

const quote = (c: string) => `"${c}"`;

/** Create (or reuse) the demo ERP in `dir`. */
export async function createDemoErp(dir: string, ordersToErpMapping: string): Promise<DemoErp> {
  mkdirSync(dir, { recursive: true });
  const database = join(dir, 'erp.sqlite');
  const inbox = join(dir, 'inbox');
  const created = !existsSync(database);
  const db = new Database(database);
  try {
    db.pragma('journal_mode = WAL');
    db.transaction(() => {
      for (const t of demoTables()) {
        db.exec(t.create);
        if (!created) continue;
        const insert = db.prepare(`INSERT OR IGNORE INTO "${t.name}" (${t.columns.map(quote).join(', ')}) VALUES (${t.columns.map(() => '?').join(', ')})`);
        for (const row of t.rows) insert.run(...t.columns.map((c) => row[c] ?? null));
      }
      db.exec(`CREATE TABLE IF NOT EXISTS ${VARIANT_IMPORT.table} (ARTNR TEXT PRIMARY KEY, Shop_ID INTEGER, Shop_Geaendert TEXT)`);
      db.exec(`CREATE TABLE IF NOT EXISTS ${VARIANT_IMPORT.rows} (ARTNR TEXT NOT NULL, VARNR TEXT NOT NULL, EAN TEXT, Bestand TEXT, Aufpreis TEXT, Sortierung INTEGER, MerkmalPos INTEGER, Merkmal TEXT, Merkmal_EN TEXT, Wert TEXT, Wert_EN TEXT, Shop_SKU_ID INTEGER, PRIMARY KEY (VARNR, MerkmalPos))`);
      const cols = importColumns(ordersToErpMapping);
      db.exec(`CREATE TABLE IF NOT EXISTS ${ORDER_IMPORT.table} (${cols.orders.map((c) => `${quote(c)} ${c === ORDER_IMPORT.key ? 'INTEGER PRIMARY KEY' : 'TEXT'}`).join(', ')})`);
      db.exec(`CREATE TABLE IF NOT EXISTS ${ORDER_IMPORT.lines} (${cols.lines.map((c) => `${quote(c)} ${ORDER_IMPORT.lineKey.includes(c as never) ? 'INTEGER' : 'TEXT'}`).join(', ')}, PRIMARY KEY (${ORDER_IMPORT.lineKey.map(quote).join(', ')}))`);
      // The ERP's own column beside shopsync's: the append sink never rewrites a change row, so the mark stays.
      if (cols.changes.length > 0) db.exec(`CREATE TABLE IF NOT EXISTS ${ORDER_IMPORT.changes} (${cols.changes.map((c) => `${quote(c)} ${ORDER_IMPORT.changeKey.includes(c as never) ? 'INTEGER' : 'TEXT'}`).join(', ')}, "Verarbeitet" TEXT, PRIMARY KEY (${ORDER_IMPORT.changeKey.map(quote).join(', ')}))`);
    })();
  } finally {
    db.close();
  }
  if (created) {
    // The ERP's CSV export: every table as a Windows-1252 file; the inbox gets the ones a pipeline reads.
    const exportDir = join(dir, 'export');
    const files = await writeDemoCsv(exportDir);
    mkdirSync(inbox, { recursive: true });
    const { copyFileSync, utimesSync } = await import('node:fs');
    // Exports the ERP finished before the demo started: settled, so the first sync reads them (settleMs 2 s).
    const finished = new Date(Date.now() - 60_000);
    for (const f of files) {
      for (const t of INBOX_TABLES) {
        if (!f.endsWith(`${t}.csv`)) continue;
        copyFileSync(f, join(inbox, `${t}.csv`));
        utimesSync(join(inbox, `${t}.csv`), finished, finished);
      }
    }
  }
  mkdirSync(inbox, { recursive: true });
  return { dir, database, inbox, created };
}
