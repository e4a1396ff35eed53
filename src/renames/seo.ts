/**
 * The old URL of a renamed record, kept: after the rename landed, the record is read back, and every
 * language whose SEO path changed gets its old path into the shop's SEO history (`seohistory`, the
 * registry's entity type, base and item = the record), so the old URL redirects (301) to it. The
 * history is read first: an entry that already holds the path (the shop writes one itself when a
 * PUT changes `seo_name`; an earlier attempt of ours whose answer or settle was lost) is not written
 * again. A path that did not change is still the record's URL: it needs no redirect, and an entry for
 * it would send the record's own URL to itself.
 */
import { ShopApiError } from '../shop/errors.js';
import type { ShopClient } from '../shop/client/types.js';
import { resources, type RenameDef, type ResourceDef, type ResourceName } from '../shop/registry/index.js';
import type { ShopId, StoredIssue } from '../state/index.js';
import { issueOf } from '../pipeline/push/issues.js';
import { isRecord } from '../util/guards.js';

/** Old SEO paths per language: what the record's URL was before the rename (several when it was renamed again before its entry was written). */
export type OldPaths = Readonly<Record<string, readonly string[]>>;

/** The registry's SEO history resource. */
export const SEO_HISTORY = resources.seohistory.name;

/** What became of the old URL. */
export type SeoResult =
  | { readonly kind: 'written'; readonly ids: readonly (number | string)[]; readonly languages: Readonly<Record<string, readonly string[]>>; readonly requests: number }
  | { readonly kind: 'held'; readonly languages: Readonly<Record<string, readonly string[]>>; readonly requests: number }
  | { readonly kind: 'unchanged'; readonly requests: number }
  | { readonly kind: 'failed'; readonly error: StoredIssue; readonly retryable: boolean; readonly requests: number };

/** A path as the SEO history stores it: no leading slash, no surrounding blanks. */
function normal(path: string): string {
  return path.trim().replace(/^\/+/, '');
}

/** The SEO paths of a shop record per language (the registry's `renames.seo.field` of each language block); empty ones left out. */
export function seoPathsOf(seo: NonNullable<RenameDef['seo']>, record: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  const languages = isRecord(record.languages) ? record.languages : {};
  for (const [code, block] of Object.entries(languages)) {
    const v = isRecord(block) ? block[seo.field] : undefined;
    if (typeof v === 'string' && normal(v) !== '') out[code] = normal(v);
  }
  return out;
}

/** Old paths `a` and the paths `b` the record has now, per language, without repeats. */
export function mergePaths(a: OldPaths | undefined, b: Readonly<Record<string, string>>): OldPaths {
  const out: Record<string, string[]> = {};
  for (const [code, paths] of Object.entries(a ?? {})) out[code] = [...paths];
  for (const [code, path] of Object.entries(b)) if (!(out[code] ??= []).includes(path)) out[code]!.push(path);
  return out;
}

/** Write the old paths of a renamed record into the SEO history, once. */
export async function redirectOldPaths(shop: ShopClient, resource: ResourceDef, shopId: ShopId, old: OldPaths): Promise<SeoResult> {
  const seo = resource.renames?.seo;
  if (!seo) return { kind: 'unchanged', requests: 0 };
  let requests = 0;
  try {
    const current = await shop.exportOne(resource.name as ResourceName, shopId);
    requests++;
    const now = current ? seoPathsOf(seo, current) : {};
    const wanted: Record<string, string[]> = {};
    for (const [code, paths] of Object.entries(old)) {
      const moved = paths.map(normal).filter((p) => p !== '' && p !== now[code]);
      if (moved.length > 0) wanted[code] = [...new Set(moved)];
    }
    if (Object.keys(wanted).length === 0) return { kind: 'unchanged', requests };
    const held = new Map<string, Set<string>>();
    for await (const page of shop.exportPages(SEO_HISTORY, { filters: { type: seo.type, base_id: Number(shopId) } })) {
      requests++;
      for (const entry of page.records) {
        const languages = isRecord(entry.languages) ? entry.languages : {};
        for (const [code, block] of Object.entries(languages)) {
          const s = isRecord(block) ? block.sh_seo_string : undefined;
          if (typeof s === 'string') (held.get(code) ?? held.set(code, new Set()).get(code)!).add(normal(s));
        }
      }
    }
    const missing: Record<string, string[]> = {};
    for (const [code, paths] of Object.entries(wanted)) {
      const left = paths.filter((p) => !held.get(code)?.has(p));
      if (left.length > 0) missing[code] = left;
    }
    if (Object.keys(missing).length === 0) return { kind: 'held', languages: wanted, requests };
    // One entry per generation of paths: the n-th old path of every language together.
    const depth = Math.max(...Object.values(missing).map((p) => p.length));
    const entries = Array.from({ length: depth }, (_, n) => ({
      sh_base_id: Number(shopId),
      sh_base_type: seo.type,
      sh_item_id: Number(shopId),
      sh_item_type: seo.type,
      languages: Object.fromEntries(Object.entries(missing).filter(([, p]) => p[n] !== undefined).map(([code, p]) => [code, { sh_seo_string: p[n]! }])),
    }));
    const result = await shop.create(SEO_HISTORY, entries);
    requests += result.requests;
    const failed = result.outcomes.find((o) => !o.ok);
    if (failed) {
      const error = failed.error ?? new Error('the shop refused the SEO history entry without a reason');
      return { kind: 'failed', error: issueOf(error), retryable: error instanceof ShopApiError && error.retryable, requests };
    }
    const ids = result.outcomes.flatMap((o) => {
      const id = o.data?.sh_id;
      return typeof id === 'number' || typeof id === 'string' ? [id] : [];
    });
    return { kind: 'written', ids, languages: missing, requests };
  } catch (err) {
    return { kind: 'failed', error: issueOf(err), retryable: err instanceof ShopApiError && err.retryable, requests };
  }
}
