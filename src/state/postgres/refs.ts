/** References (ERP key ↔ shop id), sent hashes, create intents and pull hashes (PostgreSQL reads; writes go through `write`). */
import type pg from 'pg';
import { sentHashOf, toIntent, toRef, type IntentRow, type RefRow } from '../rows.js';
import type { IntentStore, ReferenceStore, SeenStore, SentHash, SentHashStore } from '../store.js';
import { readShopId, type Intent, type Reference, type ShopId } from '../types.js';
import { execute, one, query } from './db.js';

const unique = (keys: readonly string[]) => [...new Set(keys)];

/** ERP key ↔ shop id per resource, in one shop. */
export class PgReferences implements ReferenceStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly shop: string,
  ) {}

  async get(resource: string, erpKey: string): Promise<Reference | undefined> {
    const row = await one<RefRow>(this.pool, 'SELECT * FROM refs WHERE shop = $1 AND resource = $2 AND erp_key = $3', [this.shop, resource, erpKey]);
    return row ? toRef(row) : undefined;
  }

  async getMany(resource: string, erpKeys: readonly string[]): Promise<Map<string, ShopId>> {
    const out = new Map<string, ShopId>();
    if (erpKeys.length === 0) return out;
    const rows = await query<{ erp_key: string; shop_id: string }>(this.pool, 'SELECT erp_key, shop_id FROM refs WHERE shop = $1 AND resource = $2 AND erp_key = ANY($3::text[])', [this.shop, resource, unique(erpKeys)]);
    for (const r of rows) out.set(r.erp_key, readShopId(r.shop_id));
    return out;
  }

  async byShopId(resource: string, shopId: ShopId): Promise<Reference[]> {
    return (await query<RefRow>(this.pool, 'SELECT * FROM refs WHERE shop = $1 AND resource = $2 AND shop_id = $3 ORDER BY updated_at DESC', [this.shop, resource, String(shopId)])).map(toRef);
  }

  async numbers(resource: string, erpKeys: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (erpKeys.length === 0) return out;
    const rows = await query<{ erp_key: string; number: string }>(this.pool, 'SELECT erp_key, number FROM refs WHERE shop = $1 AND resource = $2 AND number IS NOT NULL AND erp_key = ANY($3::text[])', [this.shop, resource, unique(erpKeys)]);
    for (const r of rows) out.set(r.erp_key, r.number);
    return out;
  }

  async byNumber(resource: string, number: string): Promise<Reference[]> {
    return (await query<RefRow>(this.pool, 'SELECT * FROM refs WHERE shop = $1 AND resource = $2 AND number = $3 ORDER BY updated_at DESC', [this.shop, resource, number])).map(toRef);
  }

  async list(resource: string, options: { limit?: number; offset?: number } = {}): Promise<Reference[]> {
    // Byte order, as SQLite sorts: the same page whatever the database's collation.
    const sql = 'SELECT * FROM refs WHERE shop = $1 AND resource = $2 ORDER BY erp_key COLLATE "C" LIMIT $3 OFFSET $4';
    return (await query<RefRow>(this.pool, sql, [this.shop, resource, options.limit ?? 100, options.offset ?? 0])).map(toRef);
  }

  async count(resource: string): Promise<number> {
    return (await one<{ n: number }>(this.pool, 'SELECT COUNT(*) AS n FROM refs WHERE shop = $1 AND resource = $2', [this.shop, resource]))?.n ?? 0;
  }
}

/** Hash of the last payload the shop accepted, per pipeline and record. */
export class PgSentHashes implements SentHashStore {
  constructor(private readonly pool: pg.Pool) {}

  async get(pipeline: string, resource: string, erpKey: string): Promise<string | undefined> {
    return (await one<{ hash: string }>(this.pool, 'SELECT hash FROM sent_hashes WHERE pipeline = $1 AND resource = $2 AND erp_key = $3', [pipeline, resource, erpKey]))?.hash;
  }

  async getMany(pipeline: string, resource: string, erpKeys: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (erpKeys.length === 0) return out;
    const rows = await query<{ erp_key: string; hash: string }>(this.pool, 'SELECT erp_key, hash FROM sent_hashes WHERE pipeline = $1 AND resource = $2 AND erp_key = ANY($3::text[])', [pipeline, resource, unique(erpKeys)]);
    for (const r of rows) out.set(r.erp_key, r.hash);
    return out;
  }

  async getManyWithSource(pipeline: string, resource: string, erpKeys: readonly string[]): Promise<Map<string, SentHash>> {
    const out = new Map<string, SentHash>();
    if (erpKeys.length === 0) return out;
    const rows = await query<{ erp_key: string; hash: string; source_hash: string | null; changed_at: string | null }>(
      this.pool,
      'SELECT erp_key, hash, source_hash, changed_at FROM sent_hashes WHERE pipeline = $1 AND resource = $2 AND erp_key = ANY($3::text[])',
      [pipeline, resource, unique(erpKeys)],
    );
    for (const r of rows) out.set(r.erp_key, sentHashOf(r.hash, r.source_hash, r.changed_at));
    return out;
  }

  async clear(pipeline: string): Promise<void> {
    await execute(this.pool, 'DELETE FROM sent_hashes WHERE pipeline = $1', [pipeline]);
  }
}

/** Creates that were about to be sent, in one shop. */
export class PgIntents implements IntentStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly shop: string,
  ) {}

  async get(resource: string, erpKey: string): Promise<Intent | undefined> {
    const row = await one<IntentRow>(this.pool, 'SELECT * FROM intents WHERE shop = $1 AND resource = $2 AND erp_key = $3', [this.shop, resource, erpKey]);
    return row ? toIntent(row) : undefined;
  }

  async getMany(resource: string, erpKeys: readonly string[]): Promise<Set<string>> {
    if (erpKeys.length === 0) return new Set();
    const rows = await query<{ erp_key: string }>(this.pool, 'SELECT erp_key FROM intents WHERE shop = $1 AND resource = $2 AND erp_key = ANY($3::text[])', [this.shop, resource, unique(erpKeys)]);
    return new Set(rows.map((r) => r.erp_key));
  }

  async list(pipeline: string): Promise<Intent[]> {
    return (await query<IntentRow>(this.pool, 'SELECT * FROM intents WHERE shop = $1 AND pipeline = $2 ORDER BY created_at', [this.shop, pipeline])).map(toIntent);
  }
}

/** Pulls: the hash of what was last delivered to the ERP, per record key. */
export class PgSeen implements SeenStore {
  constructor(private readonly pool: pg.Pool) {}

  async get(pipeline: string, key: string): Promise<string | undefined> {
    return (await one<{ hash: string }>(this.pool, 'SELECT hash FROM seen WHERE pipeline = $1 AND record_key = $2', [pipeline, key]))?.hash;
  }

  async getMany(pipeline: string, keys: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (keys.length === 0) return out;
    const rows = await query<{ record_key: string; hash: string }>(this.pool, 'SELECT record_key, hash FROM seen WHERE pipeline = $1 AND record_key = ANY($2::text[])', [pipeline, unique(keys)]);
    for (const r of rows) out.set(r.record_key, r.hash);
    return out;
  }

  async clear(pipeline: string): Promise<void> {
    await execute(this.pool, 'DELETE FROM seen WHERE pipeline = $1', [pipeline]);
  }
}
