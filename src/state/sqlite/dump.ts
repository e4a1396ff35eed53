/** Whole tables in and out of a SQLite state (`shopsync state copy`). */
import { STATE_TABLES, type StateDump, type StateRow, type StateTable, type TableCounts } from '../store.js';
import { StateError } from '../../errors.js';
import { marks, type Db } from './db.js';

/** An SQLite identifier: in double quotes, a `"` inside doubled (as pg.escapeIdentifier does on the PostgreSQL side). */
function identifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Table access for copying. */
export class SqliteDump implements StateDump {
  constructor(private readonly db: Db) {}

  async counts(): Promise<TableCounts> {
    const out = {} as Record<StateTable, number>;
    for (const t of STATE_TABLES) out[t] = (this.db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n;
    return out;
  }

  async *rows(table: StateTable, pageSize = 1000): AsyncIterable<StateRow[]> {
    const stmt = this.db.prepare<[number, number], StateRow & { __rowid: number }>(`SELECT rowid AS __rowid, * FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT ?`);
    let after = 0;
    for (;;) {
      const page = stmt.all(after, pageSize);
      if (page.length === 0) return;
      after = page[page.length - 1]!.__rowid;
      yield page.map(({ __rowid: _rowid, ...row }) => row);
    }
  }

  async insert(table: StateTable, rows: readonly StateRow[]): Promise<void> {
    if (rows.length === 0) return;
    if (!(STATE_TABLES as readonly string[]).includes(table)) throw new StateError('STATE_TABLE_UNKNOWN', `\`${table}\` is not a state table`);
    // The names come from the source's rows (a state file may be crafted): identifiers, never SQL.
    const columns = Object.keys(rows[0]!);
    const stmt = this.db.prepare(`INSERT INTO ${table} (${columns.map(identifier).join(', ')}) VALUES (${marks(columns.length)})`);
    this.db.transaction(() => {
      for (const row of rows) stmt.run(...columns.map((c) => row[c] ?? null));
    })();
  }

  async clear(): Promise<void> {
    this.db.transaction(() => {
      for (const t of STATE_TABLES) this.db.prepare(`DELETE FROM ${t}`).run();
      // Ids start from 1 again, as on a new state.
      this.db.prepare("DELETE FROM sqlite_sequence WHERE name IN ('runs', 'events', 'dead_letters')").run();
    })();
  }

  async finishCopy(): Promise<void> {
    // AUTOINCREMENT tables move sqlite_sequence past explicit ids by themselves.
  }
}
