/** References (ERP key ↔ shop id), sent hashes, create intents and pull hashes (SQLite). */
import type { IntentStore, ReferenceStore, SeenStore, SentHash, SentHashStore } from '../store.js';
import { sentHashOf, toIntent, toRef, type IntentRow, type RefRow } from '../rows.js';
import { readShopId, type Intent, type Reference, type ShopId } from '../types.js';
import { cached, chunks, marks, type Db } from './db.js';
import type { RowKind, WriteBuffer } from './writeBuffer.js';

/** A reference as a buffered row (upserted by key; a null number keeps the stored one). */
const REF_ROW: RowKind = {
  head: 'INSERT INTO refs (shop, resource, erp_key, shop_id, created_at, updated_at, number) VALUES',
  width: 7,
  tail: 'ON CONFLICT (shop, resource, erp_key) DO UPDATE SET shop_id = excluded.shop_id, updated_at = excluded.updated_at, number = COALESCE(excluded.number, refs.number)',
};

/** A sent hash as a buffered row; changed_at only rises: MAX over both, each standing in for the other when NULL. */
const HASH_ROW: RowKind = {
  head: 'INSERT INTO sent_hashes (pipeline, resource, erp_key, hash, source_hash, changed_at, updated_at) VALUES',
  width: 7,
  tail: `ON CONFLICT (pipeline, resource, erp_key) DO UPDATE SET hash = excluded.hash, source_hash = excluded.source_hash,
    changed_at = MAX(COALESCE(sent_hashes.changed_at, excluded.changed_at), COALESCE(excluded.changed_at, sent_hashes.changed_at)), updated_at = excluded.updated_at`,
};

/** ERP key ↔ shop id per resource, in one shop. */
export class SqliteReferences implements ReferenceStore {
  private readonly getStmt;
  private readonly byShopStmt;
  private readonly byNumberStmt;
  private readonly delStmt;
  private readonly listStmt;
  private readonly countStmt;

  constructor(
    private readonly db: Db,
    private readonly shop: string,
    private readonly buffer: WriteBuffer,
  ) {
    this.getStmt = db.prepare<[string, string, string], RefRow>('SELECT * FROM refs WHERE shop = ? AND resource = ? AND erp_key = ?');
    this.byShopStmt = db.prepare<[string, string, string], RefRow>('SELECT * FROM refs WHERE shop = ? AND resource = ? AND shop_id = ? ORDER BY updated_at DESC');
    this.byNumberStmt = db.prepare<[string, string, string], RefRow>('SELECT * FROM refs WHERE shop = ? AND resource = ? AND number = ? ORDER BY updated_at DESC');
    this.delStmt = db.prepare('DELETE FROM refs WHERE shop = ? AND resource = ? AND erp_key = ?');
    this.listStmt = db.prepare<[string, string, number, number], RefRow>('SELECT * FROM refs WHERE shop = ? AND resource = ? ORDER BY erp_key LIMIT ? OFFSET ?');
    this.countStmt = db.prepare<[string, string], { n: number }>('SELECT COUNT(*) AS n FROM refs WHERE shop = ? AND resource = ?');
  }

  async get(resource: string, erpKey: string): Promise<Reference | undefined> {
    const row = this.getStmt.get(this.shop, resource, erpKey);
    return row ? toRef(row) : undefined;
  }

  async getMany(resource: string, erpKeys: readonly string[]): Promise<Map<string, ShopId>> {
    const out = new Map<string, ShopId>();
    for (const part of chunks([...new Set(erpKeys)])) {
      const rows = cached<string[], { erp_key: string; shop_id: string }>(this.db, `SELECT erp_key, shop_id FROM refs WHERE shop = ? AND resource = ? AND erp_key IN (${marks(part.length)})`).all(this.shop, resource, ...part);
      for (const r of rows) out.set(r.erp_key, readShopId(r.shop_id));
    }
    return out;
  }

  async byShopId(resource: string, shopId: ShopId): Promise<Reference[]> {
    return this.byShopStmt.all(this.shop, resource, String(shopId)).map(toRef);
  }

  async numbers(resource: string, erpKeys: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const part of chunks([...new Set(erpKeys)])) {
      const rows = cached<string[], { erp_key: string; number: string }>(this.db, `SELECT erp_key, number FROM refs WHERE shop = ? AND resource = ? AND number IS NOT NULL AND erp_key IN (${marks(part.length)})`).all(this.shop, resource, ...part);
      for (const r of rows) out.set(r.erp_key, r.number);
    }
    return out;
  }

  async byNumber(resource: string, number: string): Promise<Reference[]> {
    return this.byNumberStmt.all(this.shop, resource, number).map(toRef);
  }

  async list(resource: string, options: { limit?: number; offset?: number } = {}): Promise<Reference[]> {
    return this.listStmt.all(this.shop, resource, options.limit ?? 100, options.offset ?? 0).map(toRef);
  }

  async count(resource: string): Promise<number> {
    return this.countStmt.get(this.shop, resource)?.n ?? 0;
  }

  /** Record (or move) a reference (inside `write`; inserted when its writes end). */
  put(resource: string, erpKey: string, shopId: ShopId, number?: string): void {
    const now = Date.now();
    this.buffer.add7(REF_ROW, this.shop, resource, erpKey, String(shopId), now, now, number ?? null);
  }

  /** Forget a reference (inside `write`), after the references put before it. */
  delete(resource: string, erpKey: string): void {
    this.buffer.flush();
    this.delStmt.run(this.shop, resource, erpKey);
  }
}

/** Hash of the last payload the shop accepted, per pipeline and record. */
export class SqliteSentHashes implements SentHashStore {
  private readonly getStmt;
  private readonly delStmt;
  private readonly clearStmt;

  constructor(
    private readonly db: Db,
    private readonly buffer: WriteBuffer,
  ) {
    this.getStmt = db.prepare<[string, string, string], { hash: string }>('SELECT hash FROM sent_hashes WHERE pipeline = ? AND resource = ? AND erp_key = ?');
    this.delStmt = db.prepare('DELETE FROM sent_hashes WHERE pipeline = ? AND resource = ? AND erp_key = ?');
    this.clearStmt = db.prepare('DELETE FROM sent_hashes WHERE pipeline = ?');
  }

  async get(pipeline: string, resource: string, erpKey: string): Promise<string | undefined> {
    return this.getStmt.get(pipeline, resource, erpKey)?.hash;
  }

  async getMany(pipeline: string, resource: string, erpKeys: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const part of chunks([...new Set(erpKeys)])) {
      const rows = cached<string[], { erp_key: string; hash: string }>(this.db, `SELECT erp_key, hash FROM sent_hashes WHERE pipeline = ? AND resource = ? AND erp_key IN (${marks(part.length)})`).all(pipeline, resource, ...part);
      for (const r of rows) out.set(r.erp_key, r.hash);
    }
    return out;
  }

  async getManyWithSource(pipeline: string, resource: string, erpKeys: readonly string[]): Promise<Map<string, SentHash>> {
    const out = new Map<string, SentHash>();
    for (const part of chunks([...new Set(erpKeys)])) {
      const rows = cached<string[], { erp_key: string; hash: string; source_hash: string | null; changed_at: number | null }>(
        this.db,
        `SELECT erp_key, hash, source_hash, changed_at FROM sent_hashes WHERE pipeline = ? AND resource = ? AND erp_key IN (${marks(part.length)})`,
      ).all(pipeline, resource, ...part);
      for (const r of rows) out.set(r.erp_key, sentHashOf(r.hash, r.source_hash, r.changed_at));
    }
    return out;
  }

  async clear(pipeline: string): Promise<void> {
    this.buffer.flush();
    this.clearStmt.run(pipeline);
  }

  /** Remember the hash the shop just accepted, and the source hash it was mapped from if pure (inside `write`; inserted when its writes end). */
  put(pipeline: string, resource: string, erpKey: string, hash: string, sourceHash?: string, changedAt?: number): void {
    this.buffer.add7(HASH_ROW, pipeline, resource, erpKey, hash, sourceHash ?? null, changedAt ?? null, Date.now());
  }

  /** Forget one hash (inside `write`), after the hashes put before it. */
  delete(pipeline: string, resource: string, erpKey: string): void {
    this.buffer.flush();
    this.delStmt.run(pipeline, resource, erpKey);
  }
}

/** Creates that were about to be sent, in one shop. */
export class SqliteIntents implements IntentStore {
  private readonly getStmt;
  private readonly putStmt;
  private readonly delStmt;
  private readonly listStmt;

  constructor(
    private readonly db: Db,
    private readonly shop: string,
  ) {
    this.getStmt = db.prepare<[string, string, string], IntentRow>('SELECT * FROM intents WHERE shop = ? AND resource = ? AND erp_key = ?');
    this.putStmt = db.prepare(
      `INSERT INTO intents (shop, resource, erp_key, pipeline, hash, natural_key, run_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (shop, resource, erp_key) DO UPDATE SET pipeline = excluded.pipeline, hash = excluded.hash, natural_key = excluded.natural_key, run_id = excluded.run_id, created_at = excluded.created_at`,
    );
    this.delStmt = db.prepare('DELETE FROM intents WHERE shop = ? AND resource = ? AND erp_key = ?');
    this.listStmt = db.prepare<[string, string], IntentRow>('SELECT * FROM intents WHERE shop = ? AND pipeline = ? ORDER BY created_at');
  }

  async get(resource: string, erpKey: string): Promise<Intent | undefined> {
    const row = this.getStmt.get(this.shop, resource, erpKey);
    return row ? toIntent(row) : undefined;
  }

  async getMany(resource: string, erpKeys: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (const part of chunks([...new Set(erpKeys)])) {
      const rows = cached<string[], { erp_key: string }>(this.db, `SELECT erp_key FROM intents WHERE shop = ? AND resource = ? AND erp_key IN (${marks(part.length)})`).all(this.shop, resource, ...part);
      for (const r of rows) out.add(r.erp_key);
    }
    return out;
  }

  async list(pipeline: string): Promise<Intent[]> {
    return this.listStmt.all(this.shop, pipeline).map(toIntent);
  }

  /** Write an intent before sending a create (inside `write`). */
  put(intent: Omit<Intent, 'createdAt' | 'shop'>): void {
    this.putStmt.run(this.shop, intent.resource, intent.erpKey, intent.pipeline, intent.hash, intent.naturalKey ? JSON.stringify(intent.naturalKey) : null, intent.runId ?? null, Date.now());
  }

  /** The create settled (inside `write`). */
  delete(resource: string, erpKey: string): void {
    this.delStmt.run(this.shop, resource, erpKey);
  }
}

/** Pulls: the hash of what was last delivered to the ERP, per record key. */
export class SqliteSeen implements SeenStore {
  private readonly getStmt;
  private readonly putStmt;
  private readonly clearStmt;

  constructor(private readonly db: Db) {
    this.getStmt = db.prepare<[string, string], { hash: string }>('SELECT hash FROM seen WHERE pipeline = ? AND record_key = ?');
    this.putStmt = db.prepare(
      `INSERT INTO seen (pipeline, record_key, hash, seen_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (pipeline, record_key) DO UPDATE SET hash = excluded.hash, seen_at = excluded.seen_at`,
    );
    this.clearStmt = db.prepare('DELETE FROM seen WHERE pipeline = ?');
  }

  async get(pipeline: string, key: string): Promise<string | undefined> {
    return this.getStmt.get(pipeline, key)?.hash;
  }

  async getMany(pipeline: string, keys: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const part of chunks([...new Set(keys)])) {
      const rows = cached<string[], { record_key: string; hash: string }>(this.db, `SELECT record_key, hash FROM seen WHERE pipeline = ? AND record_key IN (${marks(part.length)})`).all(pipeline, ...part);
      for (const r of rows) out.set(r.record_key, r.hash);
    }
    return out;
  }

  async clear(pipeline: string): Promise<void> {
    this.clearStmt.run(pipeline);
  }

  /** Remember a delivered version (inside `write`). */
  put(pipeline: string, key: string, hash: string): void {
    this.putStmt.run(pipeline, key, hash, Date.now());
  }
}
