/**
 * `write(fn)` on PostgreSQL: the writer only records. On commit the ops of each table are folded
 * by key (the last op on a key wins) and sent as one set-based statement per table and kind, all
 * in one transaction, or one statement altogether (see `statements`): a batch of 100 settled
 * records costs the same round trips as one.
 *
 * Folding keeps what running the ops one by one would leave:
 * - a delete followed by a put of the same key deletes first and inserts afresh (so a reference
 *   put, deleted and put again gets a new `created_at`);
 * - dead letters: each `add` of a key counts an attempt (two adds = attempts + 2, as two upserts
 *   would), a `resolve` forgets what came before it, so resolve + add ends as a fresh letter with
 *   attempts 1; `first_failed_at` is that of the first add after the last resolve.
 * Deletes run before upserts; tables have no foreign keys, so their order is free.
 */
import { EVENT_COLUMNS, eventValues, LETTER_COLUMNS, letterValues } from '../rows.js';
import type { StateWriter } from '../store.js';
import { followedValues } from '../followedRows.js';
import { conflictValues, sentValueColumns } from '../conflictRows.js';
import { COUNT_COLUMNS, countValues } from '../filters.js';
import type { Param } from './db.js';

type Value = string | number | null;
type Col = readonly [name: string, type: 'text' | 'bigint' | 'boolean'];

/** The later of a folded change time and a new one (either may be absent). */
function laterOf(previous: Value | undefined, next: number | undefined): Value {
  const p = previous === undefined || previous === null ? undefined : Number(previous);
  if (p === undefined) return next ?? null;
  return next === undefined ? p : Math.max(p, next);
}

/** An upsertable table: key columns, the other columns, and what a conflict updates. */
interface Spec {
  readonly table: string;
  readonly key: readonly Col[];
  readonly cols: readonly Col[];
  readonly update: string;
}

const t = (name: string): Col => [name, 'text'];
const n = (name: string): Col => [name, 'bigint'];
const b = (name: string): Col => [name, 'boolean'];
const excluded = (cols: readonly Col[]) => cols.map(([c]) => `${c} = excluded.${c}`).join(', ');

function spec(table: string, key: readonly Col[], cols: readonly Col[], update?: string): Spec {
  return { table, key, cols, update: update ?? excluded(cols) };
}

const LETTER_REST: readonly Col[] = [t('shop'), t('resource'), t('record'), t('payload'), t('code'), t('reason'), n('run_id'), n('first_failed_at'), n('last_failed_at'), t('origin'), n('attempts')];

const FIRST_FAILED = LETTER_REST.findIndex(([c]) => c === 'first_failed_at');
const ATTEMPTS = LETTER_REST.findIndex(([c]) => c === 'attempts');

const SPECS = {
  cursors: spec('cursors', [t('pipeline'), t('name')], [t('value'), t('record_key'), t('boundary'), n('updated_at')]),
  // number (issue 46): a put without one keeps the stored one.
  refs: spec('refs', [t('shop'), t('resource'), t('erp_key')], [t('shop_id'), n('created_at'), n('updated_at'), t('number')], 'shop_id = excluded.shop_id, updated_at = excluded.updated_at, number = COALESCE(excluded.number, refs.number)'),
  // changed_at only rises (GREATEST skips NULL): an older version delivered again keeps the newer one's time.
  hashes: spec(
    'sent_hashes',
    [t('pipeline'), t('resource'), t('erp_key')],
    [t('hash'), t('source_hash'), n('changed_at'), n('updated_at')],
    'hash = excluded.hash, source_hash = excluded.source_hash, changed_at = GREATEST(sent_hashes.changed_at, excluded.changed_at), updated_at = excluded.updated_at',
  ),
  intents: spec('intents', [t('shop'), t('resource'), t('erp_key')], [t('pipeline'), t('hash'), t('natural_key'), n('run_id'), n('created_at')]),
  seen: spec('seen', [t('pipeline'), t('record_key')], [t('hash'), n('seen_at')]),
  stockSent: spec('stock_sent', [t('pipeline'), t('record_key'), t('field')], [t('erp'), t('reserved'), t('sent'), t('at')]),
  // Columns in followedValues order after the key; cancelled goes as 0/1, which boolean[] takes.
  followed: spec(
    'followed',
    [t('pipeline'), t('record_key')],
    [t('shop'), t('placed_day'), n('status'), b('cancelled'), t('snapshot'), t('changes'), t('first_at'), t('changed_at'), t('done_at'), t('done_reason')],
  ),
  // Columns in conflictValues order after the key (pipeline, erp_key, field).
  conflicts: spec(
    'field_conflicts',
    [t('pipeline'), t('erp_key'), t('field')],
    [t('shop'), t('resource'), t('shop_id'), t('erp_value'), t('sent_value'), t('shop_value'), t('status'), t('resolution'), n('first_seen'), n('last_seen'), n('resolved_at'), n('run_id')],
  ),
  sentValues: spec('sent_values', [t('pipeline'), t('record_key'), t('field')], [t('value'), t('erp_value'), n('at')]),
  history: spec('history_entries', [t('shop'), t('resource'), t('shop_id'), t('identity')], [t('state'), t('entry'), n('run_id'), n('updated_at')]),
  deadLetters: spec(
    'dead_letters',
    [t('pipeline'), t('erp_key')],
    LETTER_REST,
    `${excluded(LETTER_REST.filter(([c]) => c !== 'first_failed_at' && c !== 'attempts'))}, attempts = dead_letters.attempts + excluded.attempts`,
  ),
} as const;

type TableName = keyof typeof SPECS;

const casts = (cols: readonly Col[], from = 1) => cols.map(([, type], i) => `$${i + from}::${type}[]`).join(', ');
const names = (cols: readonly Col[]) => cols.map(([c]) => c).join(', ');

/** `INSERT … SELECT FROM unnest(…) ON CONFLICT … DO UPDATE` of a table. */
const upsertSql = (s: Spec) =>
  `INSERT INTO ${s.table} (${names([...s.key, ...s.cols])}) SELECT * FROM unnest(${casts([...s.key, ...s.cols])}) ON CONFLICT (${names(s.key)}) DO UPDATE SET ${s.update}`;

/** `DELETE … WHERE (key) IN (SELECT FROM unnest(…))` of a table. */
const deleteSql = (s: Spec) => `DELETE FROM ${s.table} WHERE (${names(s.key)}) IN (SELECT * FROM unnest(${casts(s.key)}))`;

const EVENT_COLS: readonly Col[] = EVENT_COLUMNS.map((c) => (c === 'run_id' || c === 'at' ? n(c) : t(c)));
// WITH ORDINALITY … ORDER BY: ids are drawn in the order the events were added.
const EVENTS_SQL = `INSERT INTO events (${names(EVENT_COLS)}) SELECT ${names(EVENT_COLS)} FROM unnest(${casts(EVENT_COLS)}) WITH ORDINALITY AS u(${names(EVENT_COLS)}, ord) ORDER BY ord`;
const COUNTS_SQL = `UPDATE runs SET ${COUNT_COLUMNS.map((c) => `${c} = u.${c}`).join(', ')} FROM unnest(${casts([n('id'), ...COUNT_COLUMNS.map(n)])}) AS u(id, ${COUNT_COLUMNS.join(', ')}) WHERE runs.id = u.id`;

/** One statement and its parameters. */
export interface Statement {
  readonly text: string;
  readonly values: Param[];
}

/** Statements as one: every one but the last a data-modifying CTE, parameters numbered on. */
function combine(statements: readonly Statement[]): Statement {
  let offset = 0;
  const parts = statements.map((st) => {
    const text = st.text.replace(/\$(\d+)/g, (_m, n: string) => `$${Number(n) + offset}`);
    offset += st.values.length;
    return text;
  });
  const ctes = parts.slice(0, -1).map((text, i) => `w${i} AS (${text})`);
  return { text: `WITH ${ctes.join(', ')} ${parts.at(-1)!}`, values: statements.flatMap((st) => st.values) };
}

/** Columns of rows: `rows[i][j]` → `out[j][i]`, the shape `unnest` takes. */
function transpose(rows: readonly (readonly Value[])[], width: number): Value[][] {
  const out: Value[][] = Array.from({ length: width }, () => []);
  for (const row of rows) for (let j = 0; j < width; j++) out[j]!.push(row[j] ?? null);
  return out;
}

/** The ops on one table, by key. */
class Fold {
  private readonly byKey = new Map<string, { key: Value[]; reset: boolean; row?: Value[] }>();

  put(key: Value[], row: (previous: Value[] | undefined) => Value[]): void {
    const id = JSON.stringify(key);
    const entry = this.byKey.get(id) ?? { key, reset: false };
    entry.row = row(entry.row);
    this.byKey.set(id, entry);
  }

  delete(key: Value[]): void {
    this.byKey.set(JSON.stringify(key), { key, reset: true });
  }

  get empty(): boolean {
    return this.byKey.size === 0;
  }

  /** Whether a key saw a delete and a put after it (the delete must land first). */
  deletesAndPuts(): boolean {
    for (const e of this.byKey.values()) if (e.reset && e.row !== undefined) return true;
    return false;
  }

  /** Keys to delete first (every key that saw a delete). */
  deletes(): Value[][] {
    return [...this.byKey.values()].filter((e) => e.reset).map((e) => e.key);
  }

  /** Key and column values to upsert after the deletes. */
  upserts(): Value[][] {
    return [...this.byKey.values()].filter((e) => e.row !== undefined).map((e) => [...e.key, ...e.row!]);
  }
}

/** Folded ops of one or more writes: one Fold per table, the events in order, the last counters per run. */
class Folded {
  readonly folds = new Map<TableName, Fold>();
  readonly events: Value[][] = [];
  readonly counts = new Map<number, number[]>();

  fold(table: TableName): Fold {
    let f = this.folds.get(table);
    if (!f) this.folds.set(table, (f = new Fold()));
    return f;
  }
}

/** One recorded op, replayed onto the folds of its write or of a group of writes. */
type Op = (into: Folded) => void;

/**
 * Records the writes of one `write(fn)` as ops. Folding happens when they are sent, over the ops
 * of this write alone or of several writes in the order they were made (`statementsOf`): the
 * same result as committing them one after another, as every op folds onto what came before it
 * (a reference keeps the `created_at` of the put before it, a dead letter adds its attempts).
 */
export class PgWriter {
  private readonly ops: Op[] = [];
  private readonly now = Date.now();
  readonly writer: StateWriter;

  constructor(private readonly shop: string) {
    const { now, ops } = this;
    const put = (table: TableName, key: Value[], row: (previous: Value[] | undefined) => Value[]) => void ops.push((f) => f.fold(table).put(key, row));
    const del = (table: TableName, key: Value[]) => void ops.push((f) => f.fold(table).delete(key));
    this.writer = {
      refs: {
        // Columns shop_id, created_at, updated_at, number: a put onto a put keeps the first created_at and, without a number, the number before, as the upsert does.
        put: (resource, erpKey, shopId, number) => put('refs', [shop, resource, erpKey], (prev) => [String(shopId), prev ? prev[1]! : now, now, number ?? prev?.[3] ?? null]),
        delete: (resource, erpKey) => del('refs', [shop, resource, erpKey]),
      },
      hashes: {
        // Columns hash, source_hash, changed_at, updated_at: a put onto a put keeps the later change time, as the upsert does.
        put: (pipeline, resource, erpKey, hash, sourceHash, changedAt) =>
          put('hashes', [pipeline, resource, erpKey], (prev) => [hash, sourceHash ?? null, laterOf(prev?.[2], changedAt), now]),
        delete: (pipeline, resource, erpKey) => del('hashes', [pipeline, resource, erpKey]),
      },
      intents: {
        put: (i) => {
          const row = [i.pipeline, i.hash, i.naturalKey ? JSON.stringify(i.naturalKey) : null, i.runId ?? null, now];
          put('intents', [shop, i.resource, i.erpKey], () => row);
        },
        delete: (resource, erpKey) => del('intents', [shop, resource, erpKey]),
      },
      seen: { put: (pipeline, key, hash) => put('seen', [pipeline, key], () => [hash, now]) },
      stockSent: {
        put: (r) => put('stockSent', [r.pipeline, r.recordKey, r.field], () => [r.erp, r.reserved, r.sent, r.at]),
        forget: (pipeline, recordKey, field) => del('stockSent', [pipeline, recordKey, field]),
      },
      followed: {
        put: (r) => {
          const [pipeline, key, ...rest] = followedValues(r);
          put('followed', [pipeline!, key!], () => rest);
        },
      },
      conflicts: {
        put: (c) => {
          const [pipeline, erpKey, field, ...rest] = conflictValues(c);
          put('conflicts', [pipeline!, erpKey!, field!], () => rest);
        },
      },
      sentValues: { put: (pipeline, recordKey, field, value, erp) => put('sentValues', [pipeline, recordKey, field], () => [...sentValueColumns(value, erp), now]) },
      events: {
        add: (e) => {
          const values = eventValues(shop, e);
          ops.push((f) => void f.events.push(values));
        },
      },
      deadLetters: {
        add: (letter) => {
          const values = letterValues(shop, letter, now);
          const v = Object.fromEntries(LETTER_COLUMNS.map((c, i) => [c, values[i] ?? null])) as Record<string, Value>;
          put('deadLetters', [letter.pipeline, letter.erpKey], (prev) => {
            const first = prev ? prev[FIRST_FAILED]! : now;
            const attempts = prev ? Number(prev[ATTEMPTS]) + 1 : 1;
            return LETTER_REST.map(([c]) => (c === 'first_failed_at' ? first : c === 'attempts' ? attempts : (v[c] ?? null)));
          });
        },
        resolve: (pipeline, erpKey) => del('deadLetters', [pipeline, erpKey]),
      },
      history: {
        mark: (resource, shopId, identity, state, entry, runId) => {
          const row = [state, JSON.stringify(entry), runId ?? null, now];
          put('history', [shop, resource, String(shopId), identity], () => row);
        },
        forget: (resource, shopId, identity) => del('history', [shop, resource, String(shopId), identity]),
      },
      cursors: {
        set: (pipeline, name, c) => {
          const row = [JSON.stringify(c.value), c.key, c.boundary ? JSON.stringify(c.boundary) : null, now];
          put('cursors', [pipeline, name], () => row);
        },
      },
      runs: {
        saveCounts: (id, c) => {
          const values = countValues(c);
          ops.push((f) => void f.counts.set(id, values));
        },
      },
    };
  }

  /** Whether anything was recorded. */
  get empty(): boolean {
    return this.ops.length === 0;
  }

  /** The statements of this write alone (see `statementsOf`). */
  statements(): { statements: Statement[]; upserted: Map<string, number> } {
    return PgWriter.statementsOf([this]);
  }

  /**
   * The folded writes, in the order given, as statements: deletes, upserts, events, run counters.
   * When no key of a table is both deleted and put, they are one statement (data-modifying CTEs):
   * a single statement is atomic on its own, so the writes cost one round trip and no
   * BEGIN/COMMIT. Its parts run on one snapshot in no set order, which is only the same as running
   * them one after another when they touch different rows; a delete followed by a put of the same
   * key (a fresh `created_at`, a dead letter starting over) needs the delete to have happened
   * first, so such writes stay separate statements in one transaction. Also returns the rows
   * upserted per table.
   */
  static statementsOf(writers: readonly PgWriter[]): { statements: Statement[]; upserted: Map<string, number> } {
    const f = new Folded();
    for (const w of writers) for (const op of w.ops) op(f);
    const upserted = new Map<string, number>();
    const out: Statement[] = [];
    let overlap = false;
    for (const [table, fold] of f.folds) {
      const deletes = fold.deletes();
      if (deletes.length > 0) out.push({ text: deleteSql(SPECS[table]), values: transpose(deletes, SPECS[table].key.length) as Param[] });
      overlap ||= fold.deletesAndPuts();
    }
    for (const [table, fold] of f.folds) {
      const s = SPECS[table];
      const rows = fold.upserts();
      if (rows.length > 0) out.push({ text: upsertSql(s), values: transpose(rows, s.key.length + s.cols.length) as Param[] });
      upserted.set(s.table, rows.length);
    }
    if (f.events.length > 0) out.push({ text: EVENTS_SQL, values: transpose(f.events, EVENT_COLS.length) as Param[] });
    if (f.counts.size > 0) out.push({ text: COUNTS_SQL, values: transpose([...f.counts].map(([id, c]) => [id, ...c]), COUNT_COLUMNS.length + 1) as Param[] });
    return { statements: overlap || out.length <= 1 ? out : [combine(out)], upserted };
  }
}
