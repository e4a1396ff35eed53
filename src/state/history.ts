/**
 * Append-only list entries (order status history) the shop holds or may hold.
 *
 * An entry is marked `pending` in its own committed transaction BEFORE the request goes out and
 * `sent` once the answer confirms it. A `pending` entry found later means the answer was lost:
 * the pipeline reads the order back and looks for the entry instead of resending it blindly.
 */
import type { Db } from './db.js';

export type HistoryState = 'pending' | 'sent';

/** A tracked entry. */
export interface HistoryEntry {
  readonly resource: string;
  readonly shopId: string;
  readonly identity: string;
  readonly state: HistoryState;
  readonly entry: Readonly<Record<string, unknown>>;
  readonly runId?: number;
}

interface Row {
  resource: string;
  shop_id: string;
  identity: string;
  state: string;
  entry: string;
  run_id: number | null;
}

const toEntry = (r: Row): HistoryEntry => ({
  resource: r.resource,
  shopId: r.shop_id,
  identity: r.identity,
  state: r.state as HistoryState,
  entry: JSON.parse(r.entry) as Record<string, unknown>,
  ...(r.run_id !== null ? { runId: r.run_id } : {}),
});

/** Append-only entry bookkeeping. */
export class HistoryEntries {
  private readonly getStmt;
  private readonly putStmt;
  private readonly delStmt;
  private readonly pendingStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string, string, string], Row>('SELECT * FROM history_entries WHERE resource = ? AND shop_id = ? AND identity = ?');
    this.putStmt = db.prepare(
      `INSERT INTO history_entries (resource, shop_id, identity, state, entry, run_id, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (resource, shop_id, identity) DO UPDATE SET state = excluded.state, entry = excluded.entry, run_id = excluded.run_id, updated_at = excluded.updated_at`,
    );
    this.delStmt = db.prepare('DELETE FROM history_entries WHERE resource = ? AND shop_id = ? AND identity = ?');
    this.pendingStmt = db.prepare<[string], Row>(`SELECT * FROM history_entries WHERE state = 'pending' AND resource = ?`);
  }

  /** The tracked state of one entry. */
  get(resource: string, shopId: string | number, identity: string): HistoryEntry | undefined {
    const row = this.getStmt.get(resource, String(shopId), identity);
    return row ? toEntry(row) : undefined;
  }

  /** Mark an entry as possibly sent (before the request) or sent (after the shop confirmed it). */
  mark(resource: string, shopId: string | number, identity: string, state: HistoryState, entry: Readonly<Record<string, unknown>>, runId?: number): void {
    this.putStmt.run(resource, String(shopId), identity, state, JSON.stringify(entry), runId ?? null, Date.now());
  }

  /** Forget a pending entry the shop turned out not to hold (it will be sent again). */
  forget(resource: string, shopId: string | number, identity: string): void {
    this.delStmt.run(resource, String(shopId), identity);
  }

  /** Entries whose request's answer was never recorded. */
  pending(resource: string): HistoryEntry[] {
    return this.pendingStmt.all(resource).map(toEntry);
  }
}
