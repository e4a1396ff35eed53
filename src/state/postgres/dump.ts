/** Whole tables in and out of a PostgreSQL state (`shopsync state copy`). */
import pg from 'pg';
import { StateError } from '../../errors.js';
import { STATE_TABLES, type StateDump, type StateRow, type StateTable, type TableCounts } from '../store.js';
import { execute, one, query, transaction } from './db.js';

/** Primary key of each table: the order rows are read in (keyset paging, never OFFSET). */
const KEYS: Readonly<Record<StateTable, readonly string[]>> = {
  cursors: ['pipeline', 'name'],
  refs: ['shop', 'resource', 'erp_key'],
  sent_hashes: ['pipeline', 'resource', 'erp_key'],
  intents: ['shop', 'resource', 'erp_key'],
  seen: ['pipeline', 'record_key'],
  runs: ['id'],
  events: ['id'],
  dead_letters: ['id'],
  history_entries: ['shop', 'resource', 'shop_id', 'identity'],
  state_marks: ['name'],
  reservations: ['shop', 'orders_id', 'pos'],
  reservation_cursors: ['shop'],
  reservation_deliveries: ['shop', 'orders_id'],
  reservation_releases: ['shop', 'orders_id'],
  stock_sent: ['pipeline', 'record_key', 'field'],
  followed: ['pipeline', 'record_key'],
  sent_values: ['pipeline', 'record_key', 'field'],
  field_conflicts: ['pipeline', 'erp_key', 'field'],
};

/**
 * A row in the neutral form (StateRow): BOOLEAN columns (followed.cancelled) as 0/1, what SQLite
 * stores and takes; PostgreSQL reads 0/1 back into BOOLEAN on insert.
 */
function neutral(row: Record<string, unknown>): StateRow {
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(row)) {
    if (typeof v !== 'boolean') continue;
    out ??= { ...row };
    out[k] = v ? 1 : 0;
  }
  return (out ?? row) as StateRow;
}

/** Tables whose ids come from a sequence. */
const WITH_IDS = ['runs', 'events', 'dead_letters'] as const;

const marks = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `$${i + from}`).join(', ');

/** Table access for copying. */
export class PgDump implements StateDump {
  constructor(private readonly pool: pg.Pool) {}

  async counts(): Promise<TableCounts> {
    const row = await one<Record<StateTable, number>>(this.pool, `SELECT ${STATE_TABLES.map((t) => `(SELECT COUNT(*) FROM ${t}) AS ${t}`).join(', ')}`);
    return Object.fromEntries(STATE_TABLES.map((t) => [t, Number(row?.[t] ?? 0)])) as Record<StateTable, number>;
  }

  async *rows(table: StateTable, pageSize = 1000): AsyncIterable<StateRow[]> {
    const key = KEYS[table];
    const cols = key.join(', ');
    const first = `SELECT * FROM ${table} ORDER BY ${cols} LIMIT $1`;
    const next = `SELECT * FROM ${table} WHERE (${cols}) > (${marks(key.length, 2)}) ORDER BY ${cols} LIMIT $1`;
    let after: (string | number | null)[] | undefined;
    for (;;) {
      const page = after === undefined ? await query<StateRow>(this.pool, first, [pageSize]) : await query<StateRow>(this.pool, next, [pageSize, ...after]);
      if (page.length === 0) return;
      const last = page[page.length - 1]!;
      after = key.map((k) => last[k] ?? null);
      yield page.map(neutral);
      if (page.length < pageSize) return;
    }
  }

  async insert(table: StateTable, rows: readonly StateRow[]): Promise<void> {
    if (rows.length === 0) return;
    if (!(STATE_TABLES as readonly string[]).includes(table)) throw new StateError('STATE_TABLE_UNKNOWN', `\`${table}\` is not a state table`);
    const columns = Object.keys(rows[0]!).map((c) => pg.escapeIdentifier(c)).join(', ');
    // One statement for the page: the table's own row type turns the JSON values into its column types.
    await execute(this.pool, `INSERT INTO ${table} (${columns}) SELECT ${columns} FROM json_populate_recordset(NULL::${table}, $1::json)`, [JSON.stringify(rows)]);
  }

  async clear(): Promise<void> {
    await transaction(this.pool, async (client) => {
      await client.query(`TRUNCATE ${STATE_TABLES.join(', ')} RESTART IDENTITY`);
    });
  }

  async finishCopy(): Promise<void> {
    for (const table of WITH_IDS) {
      // is_called = false on an empty table: the next id is 1 again.
      await execute(this.pool, `SELECT setval(pg_get_serial_sequence('${table}', 'id'), COALESCE(MAX(id), 1), MAX(id) IS NOT NULL) FROM ${table}`);
    }
  }
}
