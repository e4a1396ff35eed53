/**
 * The reconciliation's working table: the ERP side, mapped, in a temporary SQLite file, so a
 * catalog of any size is compared with bounded memory. Shop records are streamed past it page by
 * page; what neither side paired is read back from it at the end. The file is deleted on close.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { RefusedRecord } from '../erp/types.js';
import type { ShopId } from '../state/index.js';
import type { FieldReservation } from './reserved.js';

/** An ERP record as the scratch table keeps it. */
export interface ErpRow {
  readonly match: string;
  readonly erpKey: string;
  readonly record: Record<string, unknown>;
  readonly payload: Record<string, unknown>;
  /** What reservations subtracted from the payload's stock fields (`stock: reserved`). */
  readonly reserved?: readonly FieldReservation[];
}

/** The temporary table of one reconciliation. */
export class Scratch {
  private readonly dir: string;
  private readonly db: Database.Database;
  private readonly insertErp;
  private readonly getErp;
  private readonly markSeen;
  private readonly insertShopOnly;
  private readonly insertRefused;

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'shopsync-reconcile-'));
    this.db = new Database(join(this.dir, 'scratch.sqlite'));
    // A scratch file: nothing here must survive a crash.
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.exec(`CREATE TABLE erp (match TEXT PRIMARY KEY, erp_key TEXT NOT NULL, record TEXT NOT NULL, payload TEXT NOT NULL, reserved TEXT, state INTEGER NOT NULL DEFAULT 0);
      CREATE TABLE shop_only (match TEXT NOT NULL, shop_id TEXT NOT NULL);
      CREATE TABLE refused (erp_key TEXT NOT NULL, record TEXT NOT NULL, source_refusal TEXT)`);
    this.insertErp = this.db.prepare('INSERT OR IGNORE INTO erp (match, erp_key, record, payload, reserved) VALUES (?, ?, ?, ?, ?)');
    this.getErp = this.db.prepare<[string], { erp_key: string; payload: string; reserved: string | null; state: number }>('SELECT erp_key, payload, reserved, state FROM erp WHERE match = ?');
    this.markSeen = this.db.prepare('UPDATE erp SET state = ? WHERE match = ?');
    this.insertShopOnly = this.db.prepare('INSERT INTO shop_only (match, shop_id) VALUES (?, ?)');
    this.insertRefused = this.db.prepare('INSERT INTO refused (erp_key, record, source_refusal) VALUES (?, ?, ?)');
  }

  /** Keep a record the mapping (or the source) refused: a repair turns it into a dead letter with its reason. */
  addRefused(erpKey: string, record: Record<string, unknown>, sourceRefusal?: RefusedRecord): void {
    this.insertRefused.run(erpKey, JSON.stringify(record), sourceRefusal ? JSON.stringify(sourceRefusal) : null);
  }

  /** Add a page of ERP rows; returns the rows whose match key another ERP record took already. */
  addErp(rows: readonly ErpRow[]): ErpRow[] {
    const duplicates: ErpRow[] = [];
    this.db.transaction(() => {
      for (const r of rows) if (this.insertErp.run(r.match, r.erpKey, JSON.stringify(r.record), JSON.stringify(r.payload), r.reserved ? JSON.stringify(r.reserved) : null).changes === 0) duplicates.push(r);
    })();
    return duplicates;
  }

  /** The ERP side of a match key and whether a shop record paired with it already. */
  erpOf(match: string): { erpKey: string; payload: Record<string, unknown>; reserved: readonly FieldReservation[]; paired: boolean } | undefined {
    const row = this.getErp.get(match);
    return row ? { erpKey: row.erp_key, payload: JSON.parse(row.payload) as Record<string, unknown>, reserved: row.reserved !== null ? (JSON.parse(row.reserved) as FieldReservation[]) : [], paired: row.state !== 0 } : undefined;
  }

  /** Record the comparison of a page of shop records: paired (1) or paired and different (2); shop-only records. */
  settlePage(paired: readonly { match: string; different: boolean }[], shopOnly: readonly { match: string; shopId: ShopId }[]): void {
    this.db.transaction(() => {
      for (const p of paired) this.markSeen.run(p.different ? 2 : 1, p.match);
      for (const s of shopOnly) this.insertShopOnly.run(s.match, String(s.shopId));
    })();
  }

  /** ERP records no shop record paired with. */
  *unpaired(): Generator<{ match: string; erpKey: string }> {
    for (const r of this.db.prepare<[], { match: string; erp_key: string }>('SELECT match, erp_key FROM erp WHERE state = 0 ORDER BY erp_key').iterate()) yield { match: r.match, erpKey: r.erp_key };
  }

  /** The source records to push again: unpaired or different, and those refused (which the push dead-letters with their reason). */
  *toRepair(): Generator<{ erpKey: string; record: Record<string, unknown>; refused?: RefusedRecord }> {
    for (const r of this.db.prepare<[], { erp_key: string; record: string }>('SELECT erp_key, record FROM erp WHERE state <> 1 ORDER BY erp_key').iterate()) yield { erpKey: r.erp_key, record: JSON.parse(r.record) as Record<string, unknown> };
    for (const r of this.db.prepare<[], { erp_key: string; record: string; source_refusal: string | null }>('SELECT erp_key, record, source_refusal FROM refused ORDER BY erp_key').iterate()) {
      yield { erpKey: r.erp_key, record: JSON.parse(r.record) as Record<string, unknown>, ...(r.source_refusal !== null ? { refused: JSON.parse(r.source_refusal) as RefusedRecord } : {}) };
    }
  }

  /** Shop records no ERP record maps to. */
  *shopOnly(): Generator<{ match: string; shopId: string }> {
    for (const r of this.db.prepare<[], { match: string; shop_id: string }>('SELECT match, shop_id FROM shop_only ORDER BY match').iterate()) yield { match: r.match, shopId: r.shop_id };
  }

  /** Delete the file. */
  close(): void {
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
