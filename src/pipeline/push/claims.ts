/**
 * Which ERP key claimed each shop key value (products_model…) in one read, in bounded memory. A
 * map of value → ERP key held two strings a record: a read of a million products kept a million of
 * each, and a push with a 160 MB heap ran out of memory. The claims are kept as 64-bit hashes of
 * value and key in one typed array (16 bytes a record, no object per record); the last
 * `NAMED_CLAIMS` also by name, so a refusal names the other ERP key whenever it was read recently.
 * Two different values with one 64-bit hash (about one pair in 30 million reads of a million
 * records) would refuse a record as a duplicate it is not: loudly, with its dead letter.
 */

/** Claims remembered by name (the other ERP key named in a refusal). */
const NAMED_CLAIMS = 100_000;

/** Two 32-bit FNV-1a hashes of a text (different offsets): one 64-bit hash, never 0. */
function hash64(text: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return [a >>> 0, (b | 1) >>> 0];
}

/** The ERP key that claimed a shop key value first in one read. */
export class ShopKeyClaims {
  /** Slots of four words: value hash (high, low), ERP key hash (high, low); an empty slot is all 0. */
  private table = new Uint32Array(4 * 1024);
  private size = 0;
  private readonly named = new Map<string, string>();
  /** The values `named` holds, oldest first from `ring` (a ring: dropping a Map's first key walks every key deleted before it). */
  private readonly ring: string[] = [];
  private next = 0;

  /**
   * Who else claimed `value`: undefined when nobody or `erpKey` itself did; the other ERP key; or
   * null when another key did whose name is no longer kept.
   */
  other(value: string, erpKey: string): string | null | undefined {
    const slot = this.find(hash64(value));
    if (this.table[slot + 1] === 0) return undefined;
    const [kh, kl] = hash64(erpKey);
    if (this.table[slot + 2] === kh && this.table[slot + 3] === kl) return undefined;
    const named = this.named.get(value);
    return named !== undefined && named !== erpKey ? named : null;
  }

  /** Record that `erpKey` claimed `value`, unless someone claimed it before. */
  claim(value: string, erpKey: string): void {
    const vh = hash64(value);
    const slot = this.find(vh);
    if (this.table[slot + 1] !== 0) return;
    const [kh, kl] = hash64(erpKey);
    this.table[slot] = vh[0];
    this.table[slot + 1] = vh[1];
    this.table[slot + 2] = kh;
    this.table[slot + 3] = kl;
    if (++this.size * 2 > this.table.length / 4) this.grow();
    if (this.ring.length === NAMED_CLAIMS) this.named.delete(this.ring[this.next]!);
    this.ring[this.next] = value;
    this.next = (this.next + 1) % NAMED_CLAIMS;
    this.named.set(value, erpKey);
  }

  /** The slot holding this value hash, or the empty slot where it belongs (linear probing). */
  private find([vh, vl]: [number, number]): number {
    const mask = this.table.length / 4 - 1;
    for (let i = (vh ^ vl) & mask; ; i = (i + 1) & mask) {
      const slot = i * 4;
      if (this.table[slot + 1] === 0 || (this.table[slot] === vh && this.table[slot + 1] === vl)) return slot;
    }
  }

  private grow(): void {
    const old = this.table;
    this.table = new Uint32Array(old.length * 2);
    for (let slot = 0; slot < old.length; slot += 4) {
      if (old[slot + 1] === 0) continue;
      const to = this.find([old[slot]!, old[slot + 1]!]);
      for (let w = 0; w < 4; w++) this.table[to + w] = old[slot + w]!;
    }
  }
}
