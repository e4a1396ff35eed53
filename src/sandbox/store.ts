/**
 * The sandbox's storage: one SQLite database (a file or `:memory:`) holding every resource's
 * records as JSON in a generic table, plus a key index (natural keys such as products_model),
 * id sequences, shop settings, reference data, the outbox and the privacy log.
 *
 * Everything is synchronous (better-sqlite3): the server runs each request inside one
 * transaction, so a handler sees and writes a consistent state and two requests never interleave.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/** A stored record: a JSON object. */
export type StoredRecord = Record<string, unknown>;

/** A condition on a record field for `RecordStore.list` (compared through SQLite's json_extract). */
export interface FieldCondition {
  /** Top-level record field (or a JSON path below it, `billing.city`). */
  readonly field: string;
  /** `ieq`: equal ignoring case (Unicode lower case, not only ASCII). */
  readonly op: '=' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'like' | 'ieq';
  readonly value: string | number | readonly (string | number)[];
}

/** Options of `RecordStore.list`. */
export interface ListOptions {
  readonly where?: readonly FieldCondition[];
  /** Ids to restrict to (e.g. from a key lookup or a range). */
  readonly idFrom?: number;
  readonly idTo?: number;
  readonly limit?: number;
  readonly offset?: number;
  /** Sort field (json path) instead of the id. */
  readonly orderBy?: string;
  readonly desc?: boolean;
}

/** Generic record storage per resource, with natural-key indexes. */
export interface RecordStore {
  /** One record by id. */
  get(resource: string, id: number): StoredRecord | undefined;
  /** Whether a record exists. */
  has(resource: string, id: number): boolean;
  /** Write (insert or replace) a record under its id and refresh its key index entries. */
  put(resource: string, id: number, record: StoredRecord): void;
  /** Insert a record, assigning the next id into `idField` unless the record carries one; returns the id. */
  insert(resource: string, idField: string, record: StoredRecord): number;
  /** Delete a record; false when it did not exist. */
  delete(resource: string, id: number): boolean;
  /** Ids whose indexed `field` equals `value` (case-insensitive), ascending. */
  findIds(resource: string, field: string, value: string | number): number[];
  /** Records matching conditions, ordered by id (or `orderBy`), with the total before paging. */
  list(resource: string, options?: ListOptions): { records: StoredRecord[]; total: number };
  /** Every record of a resource, ordered by id. */
  all(resource: string): StoredRecord[];
  /** Ids of records whose list `listField` holds `value` (as the entry, or as the entry's `memberField`). */
  idsWithListMember(resource: string, listField: string, memberField: string | null, value: string | number): number[];
  /** Number of records of a resource. */
  count(resource: string): number;
  /** The id `insert` would assign next. */
  nextId(resource: string): number;
  /** Take the next value of a named counter (ids of sub-entries: address_book_id…), starting at `start`. */
  nextSequence(name: string, start?: number): number;
  /** Declare the record fields of a resource that `findIds` can look up. */
  defineIndex(resource: string, fields: readonly string[]): void;
  /** Remove every record of every resource (keeps settings and reference data). */
  clearRecords(): void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS records (resource TEXT NOT NULL, id INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (resource, id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS record_keys (resource TEXT NOT NULL, field TEXT NOT NULL, value TEXT NOT NULL, id INTEGER NOT NULL);
DROP INDEX IF EXISTS record_keys_lookup;
CREATE INDEX IF NOT EXISTS record_keys_by_value ON record_keys (resource, field, value, id);
CREATE INDEX IF NOT EXISTS record_keys_owner ON record_keys (resource, id);
CREATE TABLE IF NOT EXISTS sequences (resource TEXT PRIMARY KEY, next INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS privacy_log (id INTEGER PRIMARY KEY AUTOINCREMENT, event TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL);
`;

/** Open (and create) the sandbox database. */
export function openDatabase(path: string): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(SCHEMA);
  return db;
}

const SAFE_PATH = /^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;

function jsonPath(field: string): string {
  if (!SAFE_PATH.test(field)) throw new Error(`Unsafe record field path \`${field}\``);
  return `$.${field}`;
}

/** A `RecordStore` over an open database. */
export function createRecordStore(db: Database.Database): RecordStore {
  // SQLite's lower() folds ASCII only; JavaScript's folds 'Ä' too.
  db.function('sandbox_lower', { deterministic: true }, (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value));
  const indexes = new Map<string, readonly string[]>();
  const q = {
    get: db.prepare<[string, number], { data: string }>('SELECT data FROM records WHERE resource = ? AND id = ?'),
    has: db.prepare<[string, number], { one: number }>('SELECT 1 AS one FROM records WHERE resource = ? AND id = ?'),
    put: db.prepare<[string, number, string]>('INSERT INTO records (resource, id, data) VALUES (?, ?, ?) ON CONFLICT (resource, id) DO UPDATE SET data = excluded.data'),
    del: db.prepare<[string, number]>('DELETE FROM records WHERE resource = ? AND id = ?'),
    delKeys: db.prepare<[string, number]>('DELETE FROM record_keys WHERE resource = ? AND id = ?'),
    addKey: db.prepare<[string, string, string, number]>('INSERT INTO record_keys (resource, field, value, id) VALUES (?, ?, ?, ?)'),
    findKey: db.prepare<[string, string, string], { id: number }>('SELECT id FROM record_keys WHERE resource = ? AND field = ? AND value = ? ORDER BY id'),
    seqGet: db.prepare<[string], { next: number }>('SELECT next FROM sequences WHERE resource = ?'),
    seqSet: db.prepare<[string, number]>('INSERT INTO sequences (resource, next) VALUES (?, ?) ON CONFLICT (resource) DO UPDATE SET next = excluded.next'),
    maxId: db.prepare<[string], { max: number | null }>('SELECT MAX(id) AS max FROM records WHERE resource = ?'),
    count: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM records WHERE resource = ?'),
    all: db.prepare<[string], { data: string }>('SELECT data FROM records WHERE resource = ? ORDER BY id'),
  };

  /** Bumped by every write through the store (with SQLite's data_version for writes by other connections). */
  let writes = 0;
  const counted = new Map<string, { version: string; total: number }>();
  const pages = new Map<string, { version: string; next: number; lastId: number }>();
  /** Keep a few recent queries only: each client pages through one export at a time. */
  function remember<T>(cache: Map<string, T>, key: string, value: T): void {
    cache.delete(key);
    cache.set(key, value);
    if (cache.size > 64) cache.delete(cache.keys().next().value!);
  }

  const statements = new Map<string, Database.Statement>();
  /** Prepared statements of dynamic queries, cached by their text. */
  function prepared(sql: string): Database.Statement {
    let stmt = statements.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      statements.set(sql, stmt);
    }
    return stmt;
  }

  function nextId(resource: string): number {
    const seq = q.seqGet.get(resource)?.next ?? 1;
    const max = (q.maxId.get(resource)?.max ?? 0) + 1;
    return Math.max(seq, max);
  }

  function indexRecord(resource: string, id: number, record: StoredRecord): void {
    const fields = indexes.get(resource);
    if (!fields) return;
    q.delKeys.run(resource, id);
    for (const field of fields) {
      const value = record[field];
      if (value === undefined || value === null || value === '') continue;
      q.addKey.run(resource, field, String(value).toLowerCase(), id);
    }
  }

  const store: RecordStore = {
    get(resource, id) {
      const row = q.get.get(resource, id);
      return row ? (JSON.parse(row.data) as StoredRecord) : undefined;
    },
    has(resource, id) {
      return q.has.get(resource, id) !== undefined;
    },
    put(resource, id, record) {
      writes++;
      q.put.run(resource, id, JSON.stringify(record));
      indexRecord(resource, id, record);
      const seq = q.seqGet.get(resource)?.next ?? 1;
      if (id >= seq) q.seqSet.run(resource, id + 1);
    },
    insert(resource, idField, record) {
      const given = record[idField];
      const id = typeof given === 'number' && Number.isInteger(given) && given > 0 ? given : nextId(resource);
      store.put(resource, id, { [idField]: id, ...record, ...{ [idField]: id } });
      return id;
    },
    delete(resource, id) {
      writes++;
      q.delKeys.run(resource, id);
      return q.del.run(resource, id).changes > 0;
    },
    findIds(resource, field, value) {
      return q.findKey.all(resource, field, String(value).toLowerCase()).map((r) => r.id);
    },
    list(resource, options = {}) {
      const clauses = ['resource = ?'];
      const params: (string | number)[] = [resource];
      if (options.idFrom !== undefined) {
        clauses.push('id >= ?');
        params.push(options.idFrom);
      }
      if (options.idTo !== undefined) {
        clauses.push('id <= ?');
        params.push(options.idTo);
      }
      for (const c of options.where ?? []) {
        const expr = `json_extract(data, '${jsonPath(c.field)}')`;
        if (c.op === 'in') {
          const values = Array.isArray(c.value) ? c.value : [c.value as string | number];
          if (values.length === 0) {
            clauses.push('0');
            continue;
          }
          clauses.push(`${expr} IN (${values.map(() => '?').join(', ')})`);
          params.push(...values);
        } else if (c.op === 'ieq') {
          clauses.push(`sandbox_lower(${expr}) = ?`);
          params.push(String(c.value).toLowerCase());
        } else if (c.op === 'like') {
          clauses.push(`${expr} LIKE ?`);
          params.push(String(c.value));
        } else {
          clauses.push(`${expr} ${c.op} ?`);
          params.push(c.value as string | number);
        }
      }
      const where = clauses.join(' AND ');
      // A client paging through an export asks for the same filter page after page. Filters on JSON
      // fields scan every record, so COUNT and OFFSET made a 100,000-order export quadratic: the
      // count and the last id of the previous page are reused while nothing was written since.
      const version = `${writes}/${String(db.pragma('data_version', { simple: true }))}`;
      const query = `${where}|${JSON.stringify(params)}`;
      const offset = options.offset ?? 0;
      const limit = options.limit ?? -1;
      let total = counted.get(query)?.version === version ? counted.get(query)!.total : undefined;
      if (total === undefined) {
        total = (prepared(`SELECT COUNT(*) AS n FROM records WHERE ${where}`).get(...params) as { n: number }).n;
        remember(counted, query, { version, total });
      }
      const byId = !options.orderBy && !options.desc;
      const previous = byId && offset > 0 ? pages.get(query) : undefined;
      let rows: { id: number; data: string }[];
      if (previous && previous.version === version && previous.next === offset) {
        rows = prepared(`SELECT id, data FROM records WHERE ${where} AND id > ? ORDER BY id LIMIT ?`).all(...params, previous.lastId, limit) as { id: number; data: string }[];
      } else {
        const order = options.orderBy ? `json_extract(data, '${jsonPath(options.orderBy)}') ${options.desc ? 'DESC' : 'ASC'}, id` : `id ${options.desc ? 'DESC' : 'ASC'}`;
        rows = prepared(`SELECT id, data FROM records WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...params, limit, offset) as { id: number; data: string }[];
      }
      if (byId && rows.length > 0) remember(pages, query, { version, next: offset + rows.length, lastId: rows.at(-1)!.id });
      return { records: rows.map((r) => JSON.parse(r.data) as StoredRecord), total };
    },
    all(resource) {
      return q.all.all(resource).map((r) => JSON.parse(r.data) as StoredRecord);
    },
    idsWithListMember(resource, listField, memberField, value) {
      const member = memberField === null ? 'value' : `json_extract(value, '${jsonPath(memberField)}')`;
      const sql = `SELECT id FROM records WHERE resource = ? AND EXISTS (SELECT 1 FROM json_each(data, '${jsonPath(listField)}') WHERE ${member} = ?) ORDER BY id`;
      return (prepared(sql).all(resource, value) as { id: number }[]).map((r) => r.id);
    },
    count(resource) {
      return q.count.get(resource)?.n ?? 0;
    },
    nextId,
    nextSequence(name, start = 1) {
      const key = `#${name}`;
      const value = Math.max(q.seqGet.get(key)?.next ?? start, start);
      q.seqSet.run(key, value + 1);
      return value;
    },
    defineIndex(resource, fields) {
      indexes.set(resource, fields);
    },
    clearRecords() {
      writes++;
      db.exec('DELETE FROM records; DELETE FROM record_keys; DELETE FROM sequences;');
    },
  };
  return store;
}
