/**
 * Renamed records in a push (issue 46, docs/catalog.md "Renamed articles"). A mapping with
 * `key: { surrogate, natural }` keeps references by the ERP's stable id, and the state holds the
 * number (products_model) each record had when last written. A record whose number differs is a
 * rename of the same shop record: the shop record is read first (its number and SEO paths, the
 * truth after a crash), the update changes the number under the same shop id, and the old SEO
 * paths go into the SEO history once (./seo.ts). Exactly once: the old paths are committed as an
 * intent of the `seohistory` create before the update leaves, the history is read before an
 * entry is written, and the intent goes only when the entry is there (or needs none); a failure
 * dead-letters the record (RENAME_SEO_FAILED) and the next push writes it.
 *
 * The first run after a mapping gains its surrogate adopts the references kept by the number
 * (the old ERP key): matched by the record's `natural` value, and confirmed by the hash last sent
 * for it or by the shop record's number, so no product is made twice and none is taken from
 * another record whose id looks like a number.
 */
import { z } from 'zod';
import type { CompiledMapping, SurrogateKey } from '../mapping/types.js';
import type { ShopClient } from '../shop/client/types.js';
import type { ResourceDef, ResourceName } from '../shop/registry/index.js';
import type { ShopId, StateStore, StateWriter, StoredIssue } from '../state/index.js';
import type { PushInput } from '../pipeline/push/keys.js';
import type { Verdict } from '../pipeline/push/outcomes.js';
import type { Settlement, WorkItem } from '../pipeline/push/work.js';
import { claimed, handover, keyNotSurrogate, numberTaken, RENAME_CODES, seoFailed } from './errors.js';
import { mergePaths, redirectOldPaths, SEO_HISTORY, seoPathsOf, type OldPaths, type SeoResult } from './seo.js';

/** What a renaming record carries from preparing to settling. */
export interface RenamePlan {
  /** The number the shop record had (or had before an interrupted rename). */
  readonly from: string;
  readonly to: string;
  /** Its SEO paths before the rename, per language. */
  readonly paths: OldPaths;
}

/** What a tracker needs. */
export interface RenameDeps {
  readonly mapping: CompiledMapping;
  readonly resource: ResourceDef;
  readonly state: StateStore;
  readonly shop: ShopClient;
  readonly pipeline: string;
  readonly runId: number;
}

/** A reference kept by the number (the ERP key before the surrogate), with the hash last sent for it. */
interface Candidate {
  readonly shopId: ShopId;
  readonly hash: string | undefined;
}

/** The pending SEO write, as its intent keeps it. */
const pendingSchema = z.object({ from: z.string(), to: z.string(), paths: z.record(z.string(), z.array(z.string())) });

function text(v: unknown): string | undefined {
  return typeof v === 'string' ? (v === '' ? undefined : v) : typeof v === 'number' ? String(v) : undefined;
}

/** One push run's renames. */
export class RenameTracker {
  /** Numbers stored with the references of records not yet settled. */
  private readonly numbers = new Map<string, string>();
  /** Records with a pending SEO write (an intent of an earlier attempt). */
  private readonly pending = new Set<string>();
  /** References kept by the number, by that number. */
  private readonly candidates = new Map<string, Candidate>();
  /** Shop records adopted in this run: one is never given to a second record (a reference read again before the first adoption settled). */
  private readonly adoptedIds = new Map<string, string>();
  /** Records of this run renamed away from a number, by ERP key: until they settle, a create of that number waits (an article's code handed to its successor). */
  private readonly leaving = new Map<string, string>();
  private readonly surrogate: SurrogateKey;

  private constructor(private readonly deps: RenameDeps) {
    this.surrogate = deps.mapping.surrogate!;
  }

  /** A tracker for a mapping with a surrogate key; undefined for every other. */
  static open(deps: RenameDeps): RenameTracker | undefined {
    return deps.mapping.surrogate && deps.resource.renames ? new RenameTracker(deps) : undefined;
  }

  private intentKey(erpKey: string): string {
    return `${this.deps.resource.name}:${erpKey}`;
  }

  private numberOf(payload: Readonly<Record<string, unknown>>): string | undefined {
    return text(payload[this.surrogate.number]);
  }

  /** The first source row whose key is not its surrogate value, as the run's fatal error; undefined when all agree. */
  wrongKey(chunk: readonly PushInput[]): StoredIssue | undefined {
    for (const input of chunk) {
      if (input.refused || Object.keys(input.record).length === 0) continue;
      const value = this.deps.mapping.sourceKey(input.record);
      if (value !== input.erpKey) return keyNotSurrogate(this.surrogate.surrogate, input.erpKey, value);
    }
    return undefined;
  }

  /**
   * Read what a chunk's records need: stored numbers, pending SEO writes, and, for records without a
   * reference (`referenced` says which have one), references kept by their number.
   */
  async load(chunk: readonly PushInput[], referenced: (erpKey: string) => boolean): Promise<void> {
    const { state, resource, pipeline } = this.deps;
    const readable = chunk.filter((i) => !i.refused);
    const keys = readable.map((i) => i.erpKey);
    if (keys.length === 0) return;
    const naturals = [...new Set(readable.flatMap((i) => {
      const n = this.surrogate.naturalOf(i.record);
      return n !== undefined && n !== i.erpKey && !referenced(i.erpKey) ? [n] : [];
    }))];
    const [numbers, pending, old] = await Promise.all([
      state.refs.numbers(resource.name, keys),
      state.intents.getMany(SEO_HISTORY, keys.map((k) => this.intentKey(k))),
      naturals.length > 0 ? state.refs.getMany(resource.name, naturals) : Promise.resolve(new Map<string, ShopId>()),
    ]);
    for (const [k, n] of numbers) this.numbers.set(k, n);
    for (const k of keys) if (pending.has(this.intentKey(k))) this.pending.add(k);
    if (old.size === 0) return;
    // A reference written by this mapping carries a number: that is another record's id, never an old key to adopt.
    const ours = await state.refs.numbers(resource.name, [...old.keys()]);
    const open = [...old.keys()].filter((k) => !ours.has(k));
    const hashes = await state.hashes.getManyWithSource(pipeline, resource.name, open);
    for (const k of open) this.candidates.set(k, { shopId: old.get(k)!, hash: hashes.get(k)?.hash });
  }

  /**
   * The reference a record without one had under its number (the mapping's key before it named the
   * surrogate), when it is this record's: the hash last sent for it is this payload's, or the shop
   * record holds this number. `requests`: shop reads made to tell.
   */
  async adopt(erpKey: string, record: Record<string, unknown>, payload: Readonly<Record<string, unknown>>, hash: string): Promise<{ shopId: ShopId; from: string; hash?: string; requests: number } | undefined> {
    const natural = this.surrogate.naturalOf(record);
    if (natural === undefined || natural === erpKey) return undefined;
    const c = this.candidates.get(natural);
    if (!c || this.adoptedIds.has(String(c.shopId))) return undefined;
    this.candidates.delete(natural);
    if (c.hash !== undefined && c.hash === hash) {
      this.adoptedIds.set(String(c.shopId), erpKey);
      return { shopId: c.shopId, from: natural, hash: c.hash, requests: 0 };
    }
    const shopRecord = await this.deps.shop.exportOne(this.deps.resource.name as ResourceName, c.shopId);
    const held = text(shopRecord?.[this.surrogate.number]);
    if (held === undefined || (held !== natural && held !== this.numberOf(payload))) return undefined;
    this.adoptedIds.set(String(c.shopId), erpKey);
    return { shopId: c.shopId, from: natural, ...(c.hash !== undefined ? { hash: c.hash } : {}), requests: 1 };
  }

  /**
   * Before an update leaves: whether it renames its shop record. The stored number answers without
   * a request; an unknown or different one is checked against the shop record (which may already
   * hold the new number after a crash). Sets `item.rename`; a new number another record holds
   * refuses the record. `requests`: shop reads made.
   */
  async plan(item: WorkItem): Promise<{ requests: number; refused?: StoredIssue }> {
    if (item.op !== 'update' || item.shopId === undefined) return { requests: 0 };
    const to = this.numberOf(item.payload);
    if (to === undefined) return { requests: 0 };
    const known = this.numbers.get(item.erpKey) ?? item.adoptedFrom;
    const pending = this.pending.has(item.erpKey) ? await this.pendingOf(item.erpKey) : undefined;
    if (known === to && !pending) return { requests: 0 };
    const { shop, resource } = this.deps;
    const current = await shop.exportOne(resource.name as ResourceName, item.shopId);
    // The shop no longer has it: the update answers Not found and the record is created again, with nothing to redirect.
    if (!current) return { requests: 1 };
    const held = text(current[this.surrogate.number]);
    if (held === to && !pending) return { requests: 1 };
    const owner = await this.holderOf(to, item);
    if (owner) return { requests: 1, refused: numberTaken(resource.name, this.surrogate.number, item.erpKey, item.shopId, held ?? known, to, owner) };
    const seo = resource.renames?.seo;
    const paths = mergePaths(pending?.paths, seo && held !== to ? seoPathsOf(seo, current) : {});
    item.rename = { from: pending?.from ?? held ?? known ?? '(unknown)', to, paths };
    if (held !== undefined) this.leaving.set(item.erpKey, held);
    return { requests: 1 };
  }

  /** Another record that holds `to`: by its stored number, or a reference kept by the number itself. */
  private async holderOf(to: string, item: WorkItem): Promise<{ shopId?: ShopId; erpKey?: string } | undefined> {
    const { state, resource } = this.deps;
    const other = (r: { erpKey: string; shopId: ShopId }) => r.erpKey !== item.erpKey && String(r.shopId) !== String(item.shopId);
    const byNumber = (await state.refs.byNumber(resource.name, to)).find(other);
    if (byNumber) return { shopId: byNumber.shopId, erpKey: byNumber.erpKey };
    const byKey = await state.refs.get(resource.name, to);
    return byKey && byKey.number === undefined && other(byKey) ? { shopId: byKey.shopId, erpKey: byKey.erpKey } : undefined;
  }

  private async pendingOf(erpKey: string): Promise<RenamePlan | undefined> {
    const intent = await this.deps.state.intents.get(SEO_HISTORY, this.intentKey(erpKey));
    const parsed = pendingSchema.safeParse(intent?.naturalKey);
    return parsed.success ? parsed.data : undefined;
  }

  /** Before an update batch leaves: the old paths of its renames, committed as intents of their SEO history entries. */
  async beforeSend(items: readonly WorkItem[]): Promise<void> {
    const renaming = items.filter((i) => i.rename !== undefined && Object.keys(i.rename.paths).length > 0);
    if (renaming.length === 0) return;
    const { pipeline, runId } = this.deps;
    await this.deps.state.write((tx) => {
      for (const item of renaming) {
        const r = item.rename!;
        tx.intents.put({ resource: SEO_HISTORY, erpKey: this.intentKey(item.erpKey), pipeline, hash: item.hash, runId, naturalKey: { from: r.from, to: r.to, paths: r.paths, shopId: item.shopId } });
        this.pending.add(item.erpKey);
      }
    });
  }

  /**
   * The shop's answers to a batch, read for renames: a create the shop says exists as another ERP
   * record's shop record is refused (never merged); an update refused because its new number is
   * taken says so; a rename that landed gets its old URL redirected, or is retried / dead-lettered
   * when that failed. Returns the verdicts to judge and the requests made.
   */
  async review(op: 'create' | 'update', items: readonly WorkItem[], verdicts: readonly Verdict[]): Promise<{ verdicts: Verdict[]; requests: number }> {
    const out = [...verdicts];
    let requests = 0;
    const { resource, shop } = this.deps;
    const field = this.surrogate.number;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const v = out[i]!;
      if (op === 'create' && v.kind === 'exists' && v.shopId !== undefined) {
        const refused = await this.claim(item, v.shopId);
        // A number handed over by a rename of this same run waits for it; any other claim is refused.
        if (refused) out[i] = { kind: refused.code === RENAME_CODES.handover ? 'wait' : 'reject', error: refused };
      } else if (op === 'update' && item.rename && v.kind === 'reject' && v.error.code === 'ALREADY_EXISTS') {
        const owner = v.error.details?.[resource.key.id];
        out[i] = { kind: 'reject', error: numberTaken(resource.name, field, item.erpKey, item.shopId!, item.rename.from, item.rename.to, { ...(typeof owner === 'number' || typeof owner === 'string' ? { shopId: owner } : {}) }) };
      } else if (op === 'update' && item.rename && v.kind === 'ok' && item.shopId !== undefined) {
        const seo = await redirectOldPaths(shop, resource, item.shopId, item.rename.paths);
        requests += seo.requests;
        if (seo.kind === 'failed') {
          const error = seoFailed(resource.name, field, item.erpKey, item.shopId, item.rename.from, item.rename.to, seo.error);
          out[i] = seo.retryable ? { kind: 'retry', error, countsAttempt: true } : { kind: 'reject', error };
        } else out[i] = { ...v, warnings: [...v.warnings, this.renamedWarning(item, seo)] };
      }
    }
    return { verdicts: out, requests };
  }

  /** A create answered "exists" as `shopId`: refused when another ERP record holds it; an old reference of this record's number is adopted. */
  private async claim(item: WorkItem, shopId: ShopId): Promise<StoredIssue | undefined> {
    const { state, resource } = this.deps;
    const number = this.numberOf(item.payload);
    // This record's own reference from before its surrogate: kept by its number, without a stored number (one written under a surrogate has one).
    const names = new Set([this.surrogate.naturalOf(item.record), number]);
    const ownOld = (r: { erpKey: string; number?: string }) => r.number === undefined && names.has(r.erpKey);
    const refs = (await state.refs.byShopId(resource.name, shopId)).filter((r) => r.erpKey !== item.erpKey);
    const holders = refs.filter((r) => !ownOld(r)).map((r) => r.erpKey);
    const taker = this.adoptedIds.get(String(shopId));
    if (taker !== undefined && taker !== item.erpKey) holders.push(taker);
    // Every holder is being renamed away from this number in this run: the number is handed over once those renames land.
    if (holders.length > 0 && number !== undefined && holders.every((h) => this.leaving.get(h) === number)) return handover(resource.name, this.surrogate.number, item.erpKey, number, shopId, holders);
    if (holders.length > 0) return claimed(resource.name, this.surrogate.number, item.erpKey, number, shopId, holders);
    const old = refs.find(ownOld);
    if (old) {
      this.adoptedIds.set(String(shopId), item.erpKey);
      item.adoptedFrom = old.erpKey;
    }
    return undefined;
  }

  private renamedWarning(item: WorkItem, seo: SeoResult): StoredIssue {
    const { resource } = this.deps;
    const r = item.rename!;
    const paths = (l: Readonly<Record<string, readonly string[]>>) => Object.entries(l).map(([code, p]) => `${code}: ${p.join(', ')}`).join('; ');
    const base = `${this.surrogate.number} ${r.from} → ${r.to}: shop ${resource.name} ${item.shopId} kept its id`;
    const what =
      seo.kind === 'written' ? `; SEO history entry ${seo.ids.join(', ')} redirects its old URL (${paths(seo.languages)})`
        : seo.kind === 'held' ? `; the SEO history already redirects its old URL (${paths(seo.languages)})`
          : resource.renames?.seo ? '; its URL did not change, so nothing needed redirecting' : '';
    return { code: RENAME_CODES.renamed, message: `${base}${what}`, details: { from: r.from, to: r.to, shopId: item.shopId, seo: seo.kind, ...(seo.kind === 'written' ? { entries: [...seo.ids] } : {}) } };
  }

  /**
   * Inside a settlement's commit: the number the record has now, a finished rename's intent gone,
   * and an adopted reference moved from the number to the surrogate (with the hash last sent).
   */
  settled(tx: StateWriter, s: Settlement, recordKey: string): void {
    const { resource, pipeline } = this.deps;
    const erpKey = s.item.erpKey;
    const known = this.numbers.get(erpKey);
    this.numbers.delete(erpKey);
    this.leaving.delete(erpKey);
    // The shop holds the new number while the hash is the old payload's: forgotten, so the next read sends the record (and its SEO entry) again.
    if (s.kind === 'dead' && s.error.code === RENAME_CODES.seoFailed) tx.hashes.delete(pipeline, resource.name, recordKey);
    if (s.kind !== 'done' || s.shopId === undefined) return;
    const item = s.item;
    const number = this.numberOf(item.payload);
    if (item.adoptedFrom !== undefined) {
      tx.refs.delete(resource.name, item.adoptedFrom);
      tx.hashes.delete(pipeline, resource.name, item.adoptedFrom);
      tx.refs.put(resource.name, erpKey, s.shopId, number ?? item.adoptedFrom);
      if (!s.storeHash || s.quiet === true) tx.hashes.put(pipeline, resource.name, recordKey, item.hash, item.sourceHash);
    } else if (number !== undefined && number !== known) tx.refs.put(resource.name, erpKey, s.shopId, number);
    if (s.outcome !== 'unchanged' && this.pending.delete(erpKey)) tx.intents.delete(SEO_HISTORY, this.intentKey(erpKey));
  }
}
