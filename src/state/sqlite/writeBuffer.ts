/**
 * Rows a `write(fn)` adds, held until its writes end and then inserted many to a statement
 * (issue 47). A settle of 1,000 records adds a reference, a hash, a stock figure, an event and a
 * letter removal for each; one statement a row cost an eighth more than this (396 → 347 ms for
 * 20,000 records in isolation): the per-call cost of better-sqlite3 and of binding, while most of
 * what is left is SQLite's b-tree work.
 *
 * The contract allows it: writes "land together when fn returns" (store.ts), nothing reads them
 * before. Order is kept where it can matter, within a table: a write on a buffered table that is
 * not itself buffered (a reference deleted, a letter added) flushes the buffer first, so it runs
 * after the rows added before it, as it would have unbuffered. Across tables the order of
 * independent rows changes nothing (the state has no triggers).
 */
import type { Statement as SqliteStatement } from 'better-sqlite3';
import { StateError } from '../../errors.js';
import { cached, marks, type Db } from './db.js';

type Statement = SqliteStatement<unknown[], unknown>;

/** A value a state column takes. */
export type CellValue = string | number | null;

/** The statement a kind of buffered row goes out in: `INSERT … VALUES` rows `tail`, or `DELETE … IN`. */
export interface RowKind {
  /** `INSERT INTO t (a, b) VALUES`: the rows follow it. */
  readonly head: string;
  /** Values a row carries. */
  readonly width: number;
  /** What follows the rows (an `ON CONFLICT` clause), or ''. */
  readonly tail: string;
  /** Whether the waiting rows' statement can change anything (asked inside the transaction, before it runs); absent: always. */
  readonly needed?: (db: Db, values: readonly CellValue[]) => boolean;
}

/** Parameters a statement carries at most: far below SQLite's 32,766, and past ~50 rows a larger statement saves nothing more. */
const MAX_PARAMS = 600;

/** One kind's rows waiting, in the order they were added. */
class Pending {
  values: CellValue[] = [];
  private readonly statements = new Map<number, Statement>();
  /** Rows a full statement carries. */
  private readonly perStatement: number;

  constructor(
    private readonly db: Db,
    readonly kind: RowKind,
  ) {
    this.perStatement = Math.max(1, Math.floor(MAX_PARAMS / kind.width));
  }

  /** Insert the waiting rows: full statements, then the rest in statements of 32, 16, … 1 rows (few statement texts to prepare). */
  flush(): void {
    const values = this.values;
    if (values.length === 0) return;
    this.values = [];
    if (this.kind.needed && !this.kind.needed(this.db, values)) return;
    const { width } = this.kind;
    const rows = values.length / width;
    let at = 0;
    while (at < rows) {
      const left = rows - at;
      let n = Math.min(this.perStatement, left);
      if (n < this.perStatement) n = 2 ** Math.floor(Math.log2(n));
      this.statement(n).run(...values.slice(at * width, (at + n) * width));
      at += n;
    }
  }

  /** The statement of `rows` rows, prepared once: its text is kilobytes, too long to build and look up per flush. */
  private statement(rows: number): Statement {
    let stmt = this.statements.get(rows);
    if (!stmt) {
      const row = `(${marks(this.kind.width)})`;
      stmt = cached(this.db, `${this.kind.head} ${Array.from({ length: rows }, () => row).join(', ')} ${this.kind.tail}`);
      this.statements.set(rows, stmt);
    }
    return stmt;
  }
}

/** The buffered rows of one state database, shared by its shops' views. */
export class WriteBuffer {
  private readonly pending: Pending[] = [];
  private readonly byKind = new Map<RowKind, Pending>();
  /** Writes running (nested ones count too): a row added outside every write would wait for a flush that may never come. */
  private depth = 0;

  constructor(private readonly db: Db) {}

  /** Run `fn` as a write's body: rows may be added while it runs. */
  within<T>(fn: () => T): T {
    this.depth++;
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }

  /** Add a row of `kind` (inside `write`): `values` in the kind's column order. */
  add(kind: RowKind, values: readonly CellValue[]): void {
    const p = this.pendingOf(kind);
    for (const v of values) p.values.push(v);
  }

  /** Add a row of `kind` given as separate values, with no array of its own (the per-record path). */
  add7(kind: RowKind, a: CellValue, b: CellValue, c: CellValue, d: CellValue, e: CellValue, f: CellValue, g: CellValue): void {
    this.pendingOf(kind).values.push(a, b, c, d, e, f, g);
  }

  /** Run every waiting row's statement, kind by kind in the order kinds first came. */
  flush(): void {
    for (const p of this.pending) p.flush();
  }

  /**
   * Forget every waiting row: their write threw, so its transaction or savepoint rolled back. A
   * write starts with the buffer empty (a nested one flushes its outer write's rows first), so
   * everything waiting is that write's own.
   */
  discard(): void {
    for (const p of this.pending) p.values = [];
  }

  private pendingOf(kind: RowKind): Pending {
    // Loud, not lost: a writer's method called outside `write(fn)` used to write at once.
    if (this.depth === 0) throw new StateError('STATE_WRITE_OUTSIDE', `a state row (${kind.head.slice(0, 40)}…) was added outside write(fn); record it inside state.write((tx) => …)`);
    let p = this.byKind.get(kind);
    if (!p) {
      p = new Pending(this.db, kind);
      this.byKind.set(kind, p);
      this.pending.push(p);
    }
    return p;
  }
}
