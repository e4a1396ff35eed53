/**
 * What a run knows of the state, read a batch at a time. The mapping engine looks references up
 * synchronously (`ctx.lookupReference`), so lookups are answered from a cache: a lookup that
 * misses is noted, the misses are read from the state in one query per resource, and the record is
 * mapped once more. References the run itself records are added as they settle, so a parent
 * created earlier in the run is known to its children without another query.
 */
import type { MappingContext } from '../mapping/types.js';
import type { DeadLetter, SentHash, ShopId, StateStore } from '../state/index.js';

/** A reference the mapping asked for. */
export interface ReferenceAsk {
  readonly resource: string;
  readonly erpKey: string;
}

/** References known to one run (only positive answers are kept: a missing parent may appear later). */
export class ReferenceCache {
  // One Map per resource: a joined `resource\0key` string per lookup was a tenth of a no-change re-read's own time.
  private readonly known = new Map<string, Map<string, ShopId>>();
  private size = 0;

  /** @param limit entries kept before the least recently used are dropped (bounded memory on million-record runs) */
  constructor(
    private readonly state: StateStore,
    private readonly limit = 200_000,
  ) {}

  /** The cached shop id, if known. */
  lookup(resource: string, erpKey: string): ShopId | undefined {
    return this.known.get(resource)?.get(erpKey);
  }

  /**
   * A reference the run recorded (or read). At the limit the least recently remembered tenth is
   * dropped, never everything: BatchState answers "no reference" for a key of its batch that is
   * not cached, so clearing the whole cache between a batch's read and its records (a run past
   * `limit` references) made records with a reference look new, and they were sent as creates.
   */
  remember(resource: string, erpKey: string, shopId: ShopId): void {
    let keys = this.known.get(resource);
    if (!keys) this.known.set(resource, (keys = new Map()));
    // Re-inserted so the Map's order is the order of last use.
    if (keys.delete(erpKey)) this.size--;
    if (this.size >= this.limit) this.evict();
    keys.set(erpKey, shopId);
    this.size++;
  }

  /** A reference the run removed (the shop record was gone). */
  forget(resource: string, erpKey: string): void {
    if (this.known.get(resource)?.delete(erpKey)) this.size--;
  }

  /** Drop the least recently used tenth of the limit, from the resource holding the most. */
  private evict(): void {
    let largest: Map<string, ShopId> | undefined;
    for (const keys of this.known.values()) if (!largest || keys.size > largest.size) largest = keys;
    if (!largest) return;
    let drop = Math.max(1, Math.floor(this.limit / 10));
    for (const old of largest.keys()) {
      if (drop-- <= 0) break;
      largest.delete(old);
      this.size--;
    }
  }

  /** Read asked references from the state, one query per resource; returns how many were found. */
  async load(asks: readonly ReferenceAsk[]): Promise<number> {
    const byResource = new Map<string, string[]>();
    for (const a of asks) {
      const known = this.lookup(a.resource, a.erpKey);
      // A hit is remembered again: the keys of the batch being read are the last an eviction drops.
      if (known !== undefined) this.remember(a.resource, a.erpKey, known);
      else (byResource.get(a.resource) ?? byResource.set(a.resource, []).get(a.resource)!).push(a.erpKey);
    }
    let found = 0;
    for (const [resource, keys] of byResource) {
      for (const [key, shopId] of await this.state.refs.getMany(resource, keys)) {
        this.remember(resource, key, shopId);
        found++;
      }
    }
    return found;
  }

  /** A mapping context answering from the cache and noting misses in `missing` (and every lookup in `asked.n`). */
  context(missing: ReferenceAsk[], asked?: { n: number }): MappingContext {
    return {
      lookupReference: (resource, erpKey) => {
        if (asked) asked.n++;
        const shopId = this.lookup(resource, erpKey);
        if (shopId === undefined) missing.push({ resource, erpKey });
        return shopId;
      },
    };
  }
}

/** What `withReferences` gives: the mapping's result, the references still missing, how many were asked. */
export interface Referenced<T> {
  readonly result: T;
  readonly missing: ReferenceAsk[];
  readonly lookups: number;
}

/**
 * Map with references from the state: misses are loaded in one go and the record mapped again; `lookups` says whether any was asked.
 * A synchronous mapping whose lookups all hit answers synchronously (no promise per record: awaits were a tenth of a push's allocations).
 */
export function withReferences<T>(cache: ReferenceCache, map: (ctx: MappingContext) => T | Promise<T>): Referenced<Awaited<T>> | Promise<Referenced<Awaited<T>>> {
  const missing: ReferenceAsk[] = [];
  const asked = { n: 0 };
  const first = map(cache.context(missing, asked));
  if (first instanceof Promise || missing.length > 0) return mapAgain(cache, map, first, missing, asked);
  return { result: first as Awaited<T>, missing, lookups: asked.n };
}

async function mapAgain<T>(cache: ReferenceCache, map: (ctx: MappingContext) => T | Promise<T>, first: T | Promise<T>, missing: ReferenceAsk[], asked: { n: number }): Promise<Referenced<Awaited<T>>> {
  let result = await first;
  if (missing.length > 0 && (await cache.load(missing)) > 0) {
    missing = [];
    result = await map(cache.context(missing, asked));
  }
  return { result, missing, lookups: asked.n };
}

/** The state of a batch of records of one resource, read in one query per table before they are prepared. */
export class BatchState {
  private hashes = new Map<string, SentHash>();
  private intents = new Set<string>();
  private letters = new Map<string, DeadLetter>();
  private readonly loaded = new Set<string>();

  constructor(
    private readonly state: StateStore,
    private readonly cache: ReferenceCache,
    private readonly pipeline: string,
    private readonly resource: string,
  ) {}

  /** Read references, sent hashes and intents of these records (ERP keys and their hash keys), and the letters of those read again (`letterKeys`). */
  async load(erpKeys: readonly string[], hashKeys: readonly string[], letterKeys: readonly string[] = []): Promise<void> {
    this.loaded.clear();
    // The reads are independent: on PostgreSQL they go out on several connections at once (one round trip of waiting, not two).
    [, this.hashes, this.intents, this.letters] = await Promise.all([
      this.cache.load(erpKeys.map((erpKey) => ({ resource: this.resource, erpKey }))),
      this.state.hashes.getManyWithSource(this.pipeline, this.resource, hashKeys),
      this.state.intents.getMany(this.resource, erpKeys),
      letterKeys.length > 0 ? this.state.deadLetters.getManyByKey(this.pipeline, letterKeys) : Promise.resolve(new Map<string, DeadLetter>()),
    ]);
    for (const k of erpKeys) this.loaded.add(k);
  }

  /**
   * A version of this key settled: what the batch read of it is out of date. A later version of the
   * same key (5 → 10 → 5 in one read) is compared with the state as it is now, not with the 5 the
   * batch read before the 10 was sent (that compared equal and left 10 in the shop).
   */
  settled(erpKey: string): void {
    this.loaded.delete(erpKey);
  }

  /** The record's reference (from the batch read, synchronously, or one query when it was not in the batch). */
  reference(erpKey: string): ShopId | undefined | Promise<ShopId | undefined> {
    const cached = this.cache.lookup(this.resource, erpKey);
    if (cached !== undefined || this.loaded.has(erpKey)) return cached;
    return this.cache.load([{ resource: this.resource, erpKey }]).then(() => this.cache.lookup(this.resource, erpKey));
  }

  /** The record's last accepted hash (synchronously when the batch read it). */
  hash(erpKey: string, hashKey: string): string | undefined | Promise<string | undefined> {
    return this.loaded.has(erpKey) ? this.hashes.get(hashKey)?.hash : this.state.hashes.get(this.pipeline, this.resource, hashKey);
  }

  /** The record's last accepted hash with its source hash, when the batch read it (a record outside the batch is simply mapped). */
  sent(erpKey: string, hashKey: string): SentHash | undefined {
    return this.loaded.has(erpKey) ? this.hashes.get(hashKey) : undefined;
  }

  /** The record's dead letter, when the batch read it (records read again by the lookback only). */
  letter(recordKey: string): DeadLetter | undefined {
    return this.letters.get(recordKey);
  }

  /** Whether an earlier run left an open create intent for the record (synchronously when the batch read it). */
  hasIntent(erpKey: string): boolean | Promise<boolean> {
    return this.loaded.has(erpKey) ? this.intents.has(erpKey) : this.state.intents.get(this.resource, erpKey).then((intent) => intent !== undefined);
  }
}
