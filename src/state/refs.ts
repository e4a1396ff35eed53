/** References (ERP key ↔ shop id), sent hashes, create intents and pull hashes. */
import type { Db } from './db.js';
import { iso, parseJson, readShopId, type Intent, type Reference, type ShopId } from './types.js';

interface RefRow {
  resource: string;
  erp_key: string;
  shop_id: string;
  created_at: number;
  updated_at: number;
}

interface IntentRow {
  resource: string;
  erp_key: string;
  pipeline: string;
  hash: string;
  natural_key: string | null;
  run_id: number | null;
  created_at: number;
}

const toRef = (r: RefRow): Reference => ({ resource: r.resource, erpKey: r.erp_key, shopId: readShopId(r.shop_id), createdAt: iso(r.created_at), updatedAt: iso(r.updated_at) });

const toIntent = (r: IntentRow): Intent => {
  const naturalKey = parseJson<Record<string, unknown>>(r.natural_key);
  return { resource: r.resource, erpKey: r.erp_key, pipeline: r.pipeline, hash: r.hash, ...(naturalKey ? { naturalKey } : {}), ...(r.run_id !== null ? { runId: r.run_id } : {}), createdAt: iso(r.created_at) };
};

/** ERP key ↔ shop id per resource. */
export class References {
  private readonly getStmt;
  private readonly byShopStmt;
  private readonly putStmt;
  private readonly delStmt;
  private readonly listStmt;
  private readonly countStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string, string], RefRow>('SELECT * FROM refs WHERE resource = ? AND erp_key = ?');
    this.byShopStmt = db.prepare<[string, string], RefRow>('SELECT * FROM refs WHERE resource = ? AND shop_id = ? ORDER BY updated_at DESC');
    this.putStmt = db.prepare(
      `INSERT INTO refs (resource, erp_key, shop_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (resource, erp_key) DO UPDATE SET shop_id = excluded.shop_id, updated_at = excluded.updated_at`,
    );
    this.delStmt = db.prepare('DELETE FROM refs WHERE resource = ? AND erp_key = ?');
    this.listStmt = db.prepare<[string, number, number], RefRow>('SELECT * FROM refs WHERE resource = ? ORDER BY erp_key LIMIT ? OFFSET ?');
    this.countStmt = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM refs WHERE resource = ?');
  }

  /** The shop record an ERP key is known as. */
  get(resource: string, erpKey: string): Reference | undefined {
    const row = this.getStmt.get(resource, erpKey);
    return row ? toRef(row) : undefined;
  }

  /** The ERP keys a shop id is known by (normally one). */
  byShopId(resource: string, shopId: ShopId): Reference[] {
    return this.byShopStmt.all(resource, String(shopId)).map(toRef);
  }

  /** Record (or move) a reference. */
  put(resource: string, erpKey: string, shopId: ShopId): void {
    const now = Date.now();
    this.putStmt.run(resource, erpKey, String(shopId), now, now);
  }

  /** Forget a reference (the shop record is gone). */
  delete(resource: string, erpKey: string): void {
    this.delStmt.run(resource, erpKey);
  }

  /** References of a resource in ERP key order. */
  list(resource: string, options: { limit?: number; offset?: number } = {}): Reference[] {
    return this.listStmt.all(resource, options.limit ?? 100, options.offset ?? 0).map(toRef);
  }

  /** How many references a resource has. */
  count(resource: string): number {
    return this.countStmt.get(resource)?.n ?? 0;
  }
}

/** Hash of the last payload the shop accepted, per pipeline and record. */
export class SentHashes {
  private readonly getStmt;
  private readonly putStmt;
  private readonly delStmt;
  private readonly clearStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string, string, string], { hash: string }>('SELECT hash FROM sent_hashes WHERE pipeline = ? AND resource = ? AND erp_key = ?');
    this.putStmt = db.prepare(
      `INSERT INTO sent_hashes (pipeline, resource, erp_key, hash, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (pipeline, resource, erp_key) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at`,
    );
    this.delStmt = db.prepare('DELETE FROM sent_hashes WHERE pipeline = ? AND resource = ? AND erp_key = ?');
    this.clearStmt = db.prepare('DELETE FROM sent_hashes WHERE pipeline = ?');
  }

  /** The last accepted hash, if any. */
  get(pipeline: string, resource: string, erpKey: string): string | undefined {
    return this.getStmt.get(pipeline, resource, erpKey)?.hash;
  }

  /** Remember the hash the shop just accepted. */
  put(pipeline: string, resource: string, erpKey: string, hash: string): void {
    this.putStmt.run(pipeline, resource, erpKey, hash, Date.now());
  }

  /** Forget one hash (the record must be re-sent). */
  delete(pipeline: string, resource: string, erpKey: string): void {
    this.delStmt.run(pipeline, resource, erpKey);
  }

  /** Forget every hash of a pipeline (`--full` resend). */
  clear(pipeline: string): void {
    this.clearStmt.run(pipeline);
  }
}

/** Creates that were about to be sent; a leftover intent means a crash and is reconciled first. */
export class Intents {
  private readonly getStmt;
  private readonly putStmt;
  private readonly delStmt;
  private readonly listStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string, string], IntentRow>('SELECT * FROM intents WHERE resource = ? AND erp_key = ?');
    this.putStmt = db.prepare(
      `INSERT INTO intents (resource, erp_key, pipeline, hash, natural_key, run_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (resource, erp_key) DO UPDATE SET pipeline = excluded.pipeline, hash = excluded.hash, natural_key = excluded.natural_key, run_id = excluded.run_id, created_at = excluded.created_at`,
    );
    this.delStmt = db.prepare('DELETE FROM intents WHERE resource = ? AND erp_key = ?');
    this.listStmt = db.prepare<[string], IntentRow>('SELECT * FROM intents WHERE pipeline = ? ORDER BY created_at');
  }

  /** The open intent of a record. */
  get(resource: string, erpKey: string): Intent | undefined {
    const row = this.getStmt.get(resource, erpKey);
    return row ? toIntent(row) : undefined;
  }

  /** Write an intent before sending a create. */
  put(intent: Omit<Intent, 'createdAt'>): void {
    this.putStmt.run(intent.resource, intent.erpKey, intent.pipeline, intent.hash, intent.naturalKey ? JSON.stringify(intent.naturalKey) : null, intent.runId ?? null, Date.now());
  }

  /** The create settled (or was reconciled). */
  delete(resource: string, erpKey: string): void {
    this.delStmt.run(resource, erpKey);
  }

  /** Open intents of a pipeline: creates whose answer was never recorded. */
  list(pipeline: string): Intent[] {
    return this.listStmt.all(pipeline).map(toIntent);
  }
}

/** Pulls: the hash of what was last delivered to the ERP, per record key. */
export class SeenHashes {
  private readonly getStmt;
  private readonly putStmt;
  private readonly clearStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string, string], { hash: string }>('SELECT hash FROM seen WHERE pipeline = ? AND record_key = ?');
    this.putStmt = db.prepare(
      `INSERT INTO seen (pipeline, record_key, hash, seen_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (pipeline, record_key) DO UPDATE SET hash = excluded.hash, seen_at = excluded.seen_at`,
    );
    this.clearStmt = db.prepare('DELETE FROM seen WHERE pipeline = ?');
  }

  /** Hash of the version last delivered. */
  get(pipeline: string, key: string): string | undefined {
    return this.getStmt.get(pipeline, key)?.hash;
  }

  /** Remember a delivered version. */
  put(pipeline: string, key: string, hash: string): void {
    this.putStmt.run(pipeline, key, hash, Date.now());
  }

  /** Forget a pipeline's delivered versions. */
  clear(pipeline: string): void {
    this.clearStmt.run(pipeline);
  }
}
