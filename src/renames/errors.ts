/**
 * Why a renamed record is refused or its old URL not yet redirected: stable codes, each message
 * naming both sides and how to fix it. A rename never merges two ERP records into one shop record.
 */
import { SyncError } from '../errors.js';
import type { ShopId, StoredIssue } from '../state/index.js';

/** The codes of src/renames. */
export const RENAME_CODES = {
  /** The new number already belongs to another shop record. */
  numberTaken: 'RENAME_NUMBER_TAKEN',
  /** A shop record another ERP id already holds was claimed by this one. */
  claimed: 'RENAME_SHOP_RECORD_CLAIMED',
  /** A new record's number still belongs to a shop record that this same run renames away from it: the create waits for that rename. */
  handover: 'RENAME_NUMBER_HANDOVER',
  /** The record was renamed, but its old URL could not be written to the SEO history (yet). */
  seoFailed: 'RENAME_SEO_FAILED',
  /** The source keys its rows by another column than the mapping's surrogate. */
  keyNotSurrogate: 'RENAME_KEY_NOT_SURROGATE',
  /** A warning on a record renamed: old and new number, and what became of its old URL. */
  renamed: 'RECORD_RENAMED',
} as const;

/** A refusal or failure of a rename, carrying the record it concerns. */
export class RenameError extends SyncError {}

/** The stored form of a rename error. */
function issue(code: string, message: string, details: Record<string, unknown>): StoredIssue {
  const err = new RenameError(code, message, { details });
  return { code: err.code, message: err.message, details: { ...err.details } };
}

/** The new number belongs to another shop record (`owner`: its shop id, `erpKey`: the ERP key holding it, when known). */
export function numberTaken(resource: string, field: string, erpKey: string, shopId: ShopId, from: string | undefined, to: string, owner: { shopId?: ShopId; erpKey?: string }): StoredIssue {
  const whose = owner.erpKey !== undefined ? `ERP key ${owner.erpKey}${owner.shopId !== undefined ? ` (shop ${resource} ${owner.shopId})` : ''}` : `shop ${resource} ${owner.shopId ?? '(unknown id)'}`;
  return issue(
    RENAME_CODES.numberTaken,
    `ERP key ${erpKey} (shop ${resource} ${shopId}) is renamed from ${field} ${from ?? '(unknown)'} to ${to}, but ${to} belongs to ${whose}; neither is changed, never merged. Give one of them another number in the ERP, or, if the ERP really merged the two articles, delete the one that is gone from the shop first`,
    { erpKey, shopId, from, to, owner },
  );
}

/** A shop record another ERP key holds was claimed by this record's create (the shop named it as existing). */
export function claimed(resource: string, field: string, erpKey: string, number: string | undefined, shopId: ShopId, holders: readonly string[]): StoredIssue {
  return issue(
    RENAME_CODES.claimed,
    `ERP key ${erpKey} would create ${resource} ${field} ${number ?? '(none)'}, which is shop ${resource} ${shopId}, already the record of ERP key ${holders.join(', ')}; two ERP records never share one shop record. Give one of them another ${field} in the ERP, or, if they are one article under two ids, remove the duplicate row from the source`,
    { erpKey, shopId, number, holders: [...holders] },
  );
}

/** A create whose number another record of this run is renamed away from: it waits for that rename, then goes out again. */
export function handover(resource: string, field: string, erpKey: string, number: string | undefined, shopId: ShopId, holders: readonly string[]): StoredIssue {
  return issue(
    RENAME_CODES.handover,
    `ERP key ${erpKey} would create ${resource} ${field} ${number ?? '(none)'}, which is still shop ${resource} ${shopId} of ERP key ${holders.join(', ')}, renamed away from it in this same run; it is created once that rename has landed. If this stays, that rename failed: see its record`,
    { erpKey, shopId, number, holders: [...holders] },
  );
}

/** The rename landed, its SEO history entry did not (yet). */
export function seoFailed(resource: string, field: string, erpKey: string, shopId: ShopId, from: string, to: string, cause: StoredIssue): StoredIssue {
  return issue(
    RENAME_CODES.seoFailed,
    `shop ${resource} ${shopId} (ERP key ${erpKey}) was renamed from ${field} ${from} to ${to}, but its old URL could not be written to the SEO history: [${cause.code}] ${cause.message}. Until it is, the old URL does not redirect; the next run (or \`shopsync dlq retry\`) writes it once (the token needs seohistory:read and seohistory:write)`,
    { erpKey, shopId, from, to, cause },
  );
}

/** The source's key is not the mapping's surrogate: references would be kept by the wrong value. */
export function keyNotSurrogate(surrogate: string, erpKey: string, value: string | undefined): StoredIssue {
  return issue(
    RENAME_CODES.keyNotSurrogate,
    `the mapping keeps records by the ERP's stable id \`${surrogate}\` (key.surrogate), but the source keys its rows by another column (row ${erpKey} has ${surrogate} ${value ?? '(none)'}); set the pipeline source's \`key: ${surrogate}\`, so references follow the id and a changed number is a rename`,
    { surrogate, erpKey, value },
  );
}
