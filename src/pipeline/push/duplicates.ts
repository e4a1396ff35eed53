/**
 * Two different source records that claim one shop record are an error, not two versions of it.
 * An ERP that lets a new article reuse a discontinued one's number (Tryton: `EXCLUDE … WHERE
 * active`) returns both rows; pushed one after the other, the shop ends on whichever came last,
 * an inactive old article as likely as its successor. So both are refused together with
 * SOURCE_DUPLICATE_KEY, naming both rows and what differs, and the shop record is left alone.
 *
 * Two checks, both off when the mapping says its rows are versions (`duplicates: latest`: stock
 * movements, where the later row wins):
 * - one ERP key, two different rows (not with `row_key`, whose rows are parts of a record). A source
 *   that can look rows up by key (`Source.rowsOf`, SQL) is asked which rows it holds now: that sees a
 *   live twin outside this read's window too, and tells one row read twice because it changed
 *   while it was read (one live row: versions) from two live rows. Other sources are judged on what
 *   one read brought (within one file: two files are two deliveries, versions).
 * - several ERP keys whose records map to one `shop_key` (two templates with one article number).
 * Records of one chunk (up to 1000) are screened before any of them is sent, so both sides of a
 * conflict are refused; a twin read in an earlier chunk of a source that cannot look rows up has
 * already gone on, and only the later record is refused (its letter names the earlier one).
 */
import type { ErpRecord, Source } from '../../erp/types.js';
import type { CompiledMapping } from '../../mapping/types.js';
import type { ResourceDef } from '../../shop/registry/index.js';
import type { StoredIssue } from '../../state/index.js';
import { contentHash } from '../hash.js';
import { withReferences, type ReferenceCache } from '../references.js';
import type { PushInput } from './keys.js';
import { ShopKeyClaims } from './claims.js';

/** The code of a record refused because another source record claims the same shop record. */
export const DUPLICATE_KEY = 'SOURCE_DUPLICATE_KEY';

/** What the guard needs. */
export interface DuplicateGuardDeps {
  readonly mapping: CompiledMapping;
  readonly resource: ResourceDef;
  readonly references: ReferenceCache;
  readonly source?: Pick<Source, 'rowsOf'>;
}

/** A refused input and why. */
export interface DuplicateRefusal {
  readonly input: PushInput;
  readonly error: StoredIssue;
}

/** Values shown per differing field, and fields shown per message. */
const VALUE_CHARS = 40;
const FIELDS_SHOWN = 6;

/** Screens the chunks of one read (one guard per run). */
export class DuplicateGuard {
  /** Shop key value → the ERP key that claimed it earlier in this read (bounded memory: claims.ts). */
  private readonly shopKeys = new ShopKeyClaims();
  /** Without `rowsOf`: (file, ERP key) → hash of the row read earlier in this read. */
  private readonly rowHashes = new Map<string, string>();

  constructor(private readonly deps: DuplicateGuardDeps) {}

  /** Whether each screen asks the source which rows of a key are alive now, so a twin outside the read is seen too. */
  get seesLiveTwins(): boolean {
    return this.active && !this.deps.mapping.recordKey && this.deps.source?.rowsOf !== undefined;
  }

  /** Whether the mapping treats records of one key as an error (the default) rather than versions. */
  get active(): boolean {
    return this.deps.mapping.duplicates !== 'latest';
  }

  /** Screen a chunk: the inputs to take on (a letter retried may carry the source's current row) and the refusals. */
  async screen(chunk: readonly PushInput[]): Promise<{ pass: PushInput[]; refused: DuplicateRefusal[] }> {
    if (!this.active) return { pass: [...chunk], refused: [] };
    const inputs = [...chunk];
    const errors = new Map<number, StoredIssue>();
    if (!this.deps.mapping.recordKey) await this.sameKey(inputs, errors);
    if (this.deps.mapping.shopKey !== undefined && this.deps.mapping.shopKey !== this.deps.resource.key.id) await this.sameShopKey(inputs, errors);
    const pass: PushInput[] = [];
    const refused: DuplicateRefusal[] = [];
    inputs.forEach((input, i) => {
      const error = errors.get(i);
      if (error) refused.push({ input, error });
      else pass.push(input);
    });
    return { pass, refused };
  }

  private async sameKey(inputs: PushInput[], errors: Map<number, StoredIssue>): Promise<void> {
    const readable = inputs.map((input, i) => ({ input, i })).filter(({ input }) => input.refused === undefined);
    if (readable.length === 0) return;
    const source = this.deps.source;
    if (source?.rowsOf) {
      const keys = [...new Set(readable.map(({ input }) => input.erpKey))];
      // A retried letter (no position) is pushed as the source holds it now: the letter may hold the row that lost.
      // A read needs only the keys with more than one live row: the source counts them, and no other row is fetched again.
      const retried = readable.some(({ input }) => input.position === undefined);
      const live = await source.rowsOf(keys, retried ? { whole: true } : { twinsOnly: true });
      for (const { input, i } of readable) {
        const rows = distinct(live.get(input.erpKey) ?? []);
        if (rows.length >= 2) errors.set(i, sameKeyIssue(input.erpKey, rows, 'the source holds'));
        else if (rows.length === 1 && input.position === undefined && contentHash(rows[0]!) !== contentHash(input.record)) inputs[i] = { ...input, record: rows[0]! };
      }
      return;
    }
    const groups = new Map<string, { i: number; record: ErpRecord }[]>();
    for (const { input, i } of readable) {
      // Within one delivery: a file's position names its claimed arrival, so the same name delivered again is a newer version of its records.
      const delivery = input.origin?.file !== undefined ? `${input.origin.file}\u0000${typeof input.position?.value === 'string' ? input.position.value : ''}` : '';
      const at = `${delivery}\u0000${input.erpKey}`;
      const group = groups.get(at);
      if (group) group.push({ i, record: input.record });
      else groups.set(at, [{ i, record: input.record }]);
    }
    for (const [at, group] of groups) {
      const rows = distinct(group.map((g) => g.record));
      const erpKey = inputs[group[0]!.i]!.erpKey;
      if (rows.length >= 2) for (const g of group) errors.set(g.i, sameKeyIssue(erpKey, rows, 'this read brought'));
      const earlier = this.rowHashes.get(at);
      if (earlier !== undefined && rows.length === 1 && contentHash(rows[0]!) !== earlier) {
        for (const g of group) errors.set(g.i, { code: DUPLICATE_KEY, message: `ERP key ${erpKey} came twice in this read with different values (another row of it was read earlier and went on); refused. ${SAME_KEY_FIX}`, details: { erpKey } });
      }
      if (earlier === undefined && rows.length === 1) this.rowHashes.set(at, contentHash(rows[0]!));
    }
  }

  private async sameShopKey(inputs: PushInput[], errors: Map<number, StoredIssue>): Promise<void> {
    const field = this.deps.mapping.shopKey!;
    const byValue = new Map<string, { i: number; erpKey: string; record: ErpRecord }[]>();
    for (let i = 0; i < inputs.length; i++) {
      const input = inputs[i]!;
      if (input.refused) continue;
      const key = this.shopKeyOf(input.record, field);
      const value = key instanceof Promise ? await key : key;
      if (value === undefined) continue;
      const group = byValue.get(value);
      if (group) group.push({ i, erpKey: input.erpKey, record: input.record });
      else byValue.set(value, [{ i, erpKey: input.erpKey, record: input.record }]);
    }
    for (const [value, group] of byValue) {
      // One record a shop key is every read's common case: no set and no arrays of its keys (a tenth of a push's allocations).
      const only = group[0]!.erpKey;
      const erpKeys = group.length === 1 || group.every((g) => g.erpKey === only) ? [only] : [...new Set(group.map((g) => g.erpKey))];
      const earlier = erpKeys.length === 1 ? this.shopKeys.other(value, erpKeys[0]!) : undefined;
      if (erpKeys.length >= 2) {
        const rows = erpKeys.map((k) => group.find((g) => g.erpKey === k)!.record);
        const issue: StoredIssue = { code: DUPLICATE_KEY, field, message: `ERP keys ${erpKeys.join(' and ')} both map to ${field} ${value}${differences(rows)}; neither is sent and the shop record is left as it is. ${SHOP_KEY_FIX(field)}`, details: { [field]: value, erpKeys, rows: rows.map(excerpt) } };
        for (const g of group) if (!errors.has(g.i)) errors.set(g.i, issue);
      } else if (earlier !== undefined) {
        const other = earlier ?? 'another ERP key';
        const issue: StoredIssue = { code: DUPLICATE_KEY, field, message: `ERP keys ${other} and ${erpKeys[0]!} both map to ${field} ${value} (${other} was read earlier in this read and went on); ${erpKeys[0]!} is refused. ${SHOP_KEY_FIX(field)}`, details: { [field]: value, erpKeys: earlier === null ? [erpKeys[0]] : [earlier, erpKeys[0]] } };
        for (const g of group) if (!errors.has(g.i)) errors.set(g.i, issue);
      }
      this.shopKeys.claim(value, erpKeys[0]!);
    }
  }

  /** The shop key a record maps to; undefined when the mapping fails for it (the push refuses it with its own reason). */
  private shopKeyOf(record: ErpRecord, field: string): string | undefined | Promise<string | undefined> {
    const { mapping, references } = this.deps;
    // Synchronous where the mapping is (no promise per record), awaited only where it is one.
    try {
      const rule = mapping.shopKeyOf;
      if (rule) {
        const keyed = withReferences(references, (ctx) => rule(record, ctx));
        return keyed instanceof Promise ? keyed.then((k) => k.result, () => undefined) : keyed.result;
      }
      const mapped = withReferences(references, (ctx) => (mapping.applySync ? mapping.applySync(record, ctx) : mapping.apply(record, ctx)));
      const keyOf = ({ result }: { result: Awaited<ReturnType<typeof mapping.apply>> }): string | undefined => {
        const v = result.ok ? result.payload[field] : undefined;
        return v === undefined || v === null || v === '' ? undefined : String(v);
      };
      return mapped instanceof Promise ? mapped.then(keyOf, () => undefined) : keyOf(mapped);
    } catch {
      return undefined;
    }
  }
}

const SAME_KEY_FIX = 'Make the source return one row per key (e.g. only active rows), or, if its rows are versions of one record (stock movements), declare `duplicates: latest` in the mapping (the later row wins)';
const SHOP_KEY_FIX = (field: string) => `Give each its own ${field} in the ERP or leave one out of the source; \`duplicates: latest\` in the mapping lets the later one win`;

function sameKeyIssue(erpKey: string, rows: readonly ErpRecord[], where: string): StoredIssue {
  return { code: DUPLICATE_KEY, message: `ERP key ${erpKey}: ${where} ${rows.length} different rows${differences(rows)}; neither is sent and the shop record is left as it is. ${SAME_KEY_FIX}`, details: { erpKey, rows: rows.map(excerpt) } };
}

/** The rows without repeats (one row returned twice by a join is one row). */
function distinct(rows: readonly ErpRecord[]): ErpRecord[] {
  // One row a key is every read's common case: nothing to compare, no hash to take (a tenth of a push's own time hashed them).
  if (rows.length < 2) return [...rows];
  const seen = new Set<string>();
  return rows.filter((r) => {
    const h = contentHash(r);
    if (seen.has(h)) return false;
    seen.add(h);
    return true;
  });
}

function shown(v: unknown): string {
  const text = v === undefined ? '(none)' : JSON.stringify(v);
  return text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS)}…` : text;
}

/** `(row 1: name "Old", active 0; row 2: name "New", active 1)`: the fields whose values differ. */
function differences(rows: readonly ErpRecord[]): string {
  const fields = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((f) => new Set(rows.map((r) => JSON.stringify(r[f]))).size > 1);
  if (fields.length === 0) return '';
  const cut = fields.slice(0, FIELDS_SHOWN);
  const more = fields.length > cut.length ? ` and ${fields.length - cut.length} more field(s)` : '';
  return ` (${rows.map((r, n) => `row ${n + 1}: ${cut.map((f) => `${f} ${shown(r[f])}`).join(', ')}`).join('; ')}${more})`;
}

/** A row as a letter's details keep it: its scalar fields, cut. */
function excerpt(row: ErpRecord): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).filter(([, v]) => v === null || typeof v !== 'object').slice(0, 20));
}
