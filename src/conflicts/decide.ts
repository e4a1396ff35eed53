/**
 * The rule of a guarded field (issue 46), one function for the push's guard and for reconcile: the
 * ERP's value, what shopsync last sent (and the ERP's value that stood for, after "keep shop") and
 * the shop's current record decide whether the field goes out.
 */
import { payloadDiff } from '../pipeline/diff.js';
import { clearedAlike, type ResourceDef } from '../shop/registry/index.js';
import type { SentValue, StateStore } from '../state/index.js';
import { isRecord } from '../util/guards.js';
import { setPath, valueAtPath } from './paths.js';

/** What shopsync knows it last sent of a field: unknown, or the value (and the ERP's it stood for, when another). */
export type LastSent = { readonly known: false } | { readonly known: true; readonly value: unknown; readonly erp?: { readonly value: unknown } };

/**
 * - `agreed`: the shop holds the ERP's value already;
 * - `send`: the shop holds what was last sent, so the ERP's change goes out;
 * - `kept`: a person kept the shop's value over the ERP's, and neither side changed it since: left out;
 * - `conflict`: the shop holds something else (or shopsync cannot tell what it last sent): left as the shop has it, reported.
 */
export type FieldDecision = 'agreed' | 'send' | 'kept' | 'conflict';

/** Decide one guarded field of a record the shop holds. */
export function decide(resource: ResourceDef, shopRecord: Readonly<Record<string, unknown>>, field: string, erp: unknown, last: LastSent): FieldDecision {
  if (holds(resource, shopRecord, field, erp)) return 'agreed';
  if (last.known && holds(resource, shopRecord, field, last.value)) {
    return last.erp !== undefined && holds(resource, one(field, last.erp.value), field, erp) ? 'kept' : 'send';
  }
  return 'conflict';
}

/** Whether a record holds this value at the field: decimals by value (`'12.50'` and 12.5), a cleared text as cleared. */
export function holds(resource: ResourceDef, record: Readonly<Record<string, unknown>>, field: string, value: unknown): boolean {
  return Object.keys(payloadDiff(record as Record<string, unknown>, one(field, value), {}, '', (path, shop, next) => clearedAlike(resource, path, shop, next))).length === 0;
}

/** An object holding just this value at the field. */
function one(field: string, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  setPath(out, field, value);
  return out;
}

/** What the state's sent value says was last sent. */
export function fromStored(s: SentValue): LastSent {
  return { known: true, value: s.value, ...('erp' in s ? { erp: { value: s.erp } } : {}) };
}

/** The value the newest of these payloads sent at the field, if any did. */
export function lastIn(payloads: readonly Record<string, unknown>[], field: string): LastSent {
  for (const p of payloads) {
    const value = valueAtPath(p, field);
    if (value !== undefined) return { known: true, value };
  }
  return { known: false };
}

/** A record's newest events looked at for what was last sent, when the state has no sent value yet. */
const EVENTS_LOOKED_AT = 20;

/**
 * The payloads a pipeline's newest stored events sent to a record, newest first: what was last sent
 * of a field that became guarded after the record was last written (the events keep the payloads).
 */
export async function sentPayloads(state: StateStore, resource: string, pipeline: string, erpKey: string): Promise<Record<string, unknown>[]> {
  const events = await state.events.history(resource, { erpKey }, EVENTS_LOOKED_AT);
  return events.flatMap((e) => (e.pipeline === pipeline && (e.outcome === 'created' || e.outcome === 'updated') && isRecord(e.payload) ? [e.payload] : []));
}
