/**
 * Table rows as both backends store them (epoch-ms times, JSON as text, ids as integers; the pg
 * driver hands BIGINT back as text, hence the `Number()`s) and their conversion to the domain
 * types of `types.ts`. One place, so SQLite and PostgreSQL can never disagree on what a row means.
 */
import type { CursorValue } from '../erp/types.js';
import { boundedJson, clipText, MiB, STORED_TEXT_MAX } from '../util/bytes.js';
import type { HistoryEntry, HistoryState, LockInfo, SentHash } from './store.js';
import {
  iso,
  parseJson,
  readShopId,
  type DeadLetter,
  type DeadLetterOrigin,
  type EventOutcome,
  type Intent,
  type NewDeadLetter,
  type NewRecordEvent,
  type RecordEvent,
  type Reference,
  type RunMode,
  type RunRecord,
  type RunStatus,
  type StoredCursor,
  type StoredIssue,
} from './types.js';

type Int = number | string;

export interface CursorRow {
  pipeline: string;
  name: string;
  value: string | null;
  record_key: string | null;
  boundary: string | null;
  updated_at: Int;
}

export interface RefRow {
  shop: string;
  resource: string;
  erp_key: string;
  shop_id: string;
  created_at: Int;
  updated_at: Int;
  /** The record's number when last written (issue 46), for references kept by a stable ERP id. */
  number?: string | null;
}

export interface IntentRow {
  shop: string;
  resource: string;
  erp_key: string;
  pipeline: string;
  hash: string;
  natural_key: string | null;
  run_id: Int | null;
  created_at: Int;
}

export interface RunRow {
  id: Int;
  pipeline: string;
  shop: string;
  mode: string;
  lane: string;
  status: string;
  started_at: Int;
  finished_at: Int | null;
  pid: Int | null;
  host: string | null;
  /** Migration 0011; absent in a row of an older dump. */
  owner?: string | null;
  range_json: string | null;
  read: Int;
  created: Int;
  updated: Int;
  unchanged: Int;
  failed: Int;
  dead_lettered: Int;
  unreadable: Int;
  warnings: Int;
  requests: Int;
  /** Migration 0018; absent in a row of an older dump. */
  conflicts?: Int;
  error: string | null;
}

export interface EventRow {
  id: Int;
  run_id: Int;
  pipeline: string;
  shop: string;
  resource: string | null;
  erp_key: string | null;
  shop_id: string | null;
  outcome: string;
  codes: string | null;
  warnings: string | null;
  error: string | null;
  payload_hash: string | null;
  payload: string | null;
  diff: string | null;
  at: Int;
}

export interface DeadLetterRow {
  id: Int;
  pipeline: string;
  shop: string;
  resource: string | null;
  erp_key: string;
  record: string;
  payload: string | null;
  code: string;
  reason: string;
  attempts: Int;
  run_id: Int | null;
  first_failed_at: Int;
  last_failed_at: Int;
  origin: string | null;
}

export interface HistoryRow {
  shop: string;
  resource: string;
  shop_id: string;
  identity: string;
  state: string;
  entry: string;
  run_id: Int | null;
}

export interface LockRow {
  name: string;
  owner: string;
  pid: Int;
  host: string;
  acquired_at: Int;
  heartbeat_at: Int;
}

/** A cursor row in its domain form. */
export function toCursor(row: CursorRow): StoredCursor {
  const boundary = parseJson<Record<string, unknown>>(row.boundary);
  return { pipeline: row.pipeline, name: row.name, value: parseJson<CursorValue>(row.value) ?? null, key: row.record_key, ...(boundary ? { boundary } : {}), updatedAt: iso(Number(row.updated_at)) };
}

/** A reference row in its domain form. */
/** A sent_hashes row's hash, source hash and delivered change time (BIGINT arrives as text from pg). */
export function sentHashOf(hash: string, source: string | null, changedAt: Int | null): SentHash {
  const changed = changedAt === null ? undefined : Number(changedAt);
  return { hash, ...(source !== null ? { source } : {}), ...(changed !== undefined ? { changedAt: changed } : {}) };
}

export const toRef = (r: RefRow): Reference => ({
  shop: r.shop,
  resource: r.resource,
  erpKey: r.erp_key,
  shopId: readShopId(r.shop_id),
  ...(r.number !== undefined && r.number !== null ? { number: r.number } : {}),
  createdAt: iso(Number(r.created_at)),
  updatedAt: iso(Number(r.updated_at)),
});

/** An intent row in its domain form. */
export function toIntent(r: IntentRow): Intent {
  const naturalKey = parseJson<Record<string, unknown>>(r.natural_key);
  return {
    shop: r.shop,
    resource: r.resource,
    erpKey: r.erp_key,
    pipeline: r.pipeline,
    hash: r.hash,
    ...(naturalKey ? { naturalKey } : {}),
    ...(r.run_id !== null ? { runId: Number(r.run_id) } : {}),
    createdAt: iso(Number(r.created_at)),
  };
}

/** A run row in its domain form. */
export function toRun(r: RunRow): RunRecord {
  const range = parseJson<Record<string, unknown>>(r.range_json);
  const error = parseJson<Record<string, unknown>>(r.error);
  return {
    id: Number(r.id),
    pipeline: r.pipeline,
    shop: r.shop,
    mode: r.mode as RunMode,
    lane: r.lane,
    status: r.status as RunStatus,
    startedAt: iso(Number(r.started_at)),
    ...(r.finished_at !== null ? { finishedAt: iso(Number(r.finished_at)) } : {}),
    ...(r.pid !== null ? { pid: Number(r.pid) } : {}),
    ...(r.host !== null ? { host: r.host } : {}),
    ...(r.owner !== undefined && r.owner !== null ? { owner: r.owner } : {}),
    ...(range ? { range } : {}),
    counts: {
      read: Number(r.read),
      created: Number(r.created),
      updated: Number(r.updated),
      unchanged: Number(r.unchanged),
      failed: Number(r.failed),
      deadLettered: Number(r.dead_lettered),
      unreadable: Number(r.unreadable),
      warnings: Number(r.warnings),
      requests: Number(r.requests),
      // Only when the run held any: the counts of every other run read as they did before issue 46.
      ...(Number(r.conflicts ?? 0) > 0 ? { conflicts: Number(r.conflicts) } : {}),
    },
    ...(error ? { error } : {}),
  };
}

/** An event row in its domain form. */
export function toEvent(r: EventRow): RecordEvent {
  const error = parseJson<StoredIssue>(r.error);
  const payload = parseJson<unknown>(r.payload);
  const diff = parseJson<unknown>(r.diff);
  return {
    id: Number(r.id),
    runId: Number(r.run_id),
    pipeline: r.pipeline,
    shop: r.shop,
    ...(r.resource !== null ? { resource: r.resource } : {}),
    ...(r.erp_key !== null ? { erpKey: r.erp_key } : {}),
    ...(r.shop_id !== null ? { shopId: readShopId(r.shop_id) } : {}),
    outcome: r.outcome as EventOutcome,
    warnings: parseJson<StoredIssue[]>(r.warnings) ?? [],
    ...(error ? { error } : {}),
    ...(r.payload_hash !== null ? { payloadHash: r.payload_hash } : {}),
    ...(payload !== undefined ? { payload } : {}),
    ...(diff !== undefined ? { diff } : {}),
    at: iso(Number(r.at)),
  };
}

/** A dead-letter row in its domain form. */
export function toDeadLetter(r: DeadLetterRow): DeadLetter {
  const payload = parseJson<unknown>(r.payload);
  const origin = parseJson<DeadLetterOrigin>(r.origin);
  return {
    id: Number(r.id),
    pipeline: r.pipeline,
    shop: r.shop,
    ...(r.resource !== null ? { resource: r.resource } : {}),
    erpKey: r.erp_key,
    record: JSON.parse(r.record) as Record<string, unknown>,
    ...(payload !== undefined ? { payload } : {}),
    code: r.code,
    reason: r.reason,
    attempts: Number(r.attempts),
    ...(r.run_id !== null ? { runId: Number(r.run_id) } : {}),
    firstFailedAt: iso(Number(r.first_failed_at)),
    lastFailedAt: iso(Number(r.last_failed_at)),
    ...(origin !== undefined ? { origin } : {}),
  };
}

/** A history row in its domain form. */
export const toHistoryEntry = (r: HistoryRow): HistoryEntry => ({
  resource: r.resource,
  shopId: r.shop_id,
  identity: r.identity,
  state: r.state as HistoryState,
  entry: JSON.parse(r.entry) as Record<string, unknown>,
  ...(r.run_id !== null ? { runId: Number(r.run_id) } : {}),
});

/** A lock row in its domain form. */
export const toLock = (r: LockRow): LockInfo => ({ name: r.name, owner: r.owner, pid: Number(r.pid), host: r.host, acquiredAt: iso(Number(r.acquired_at)), heartbeatAt: iso(Number(r.heartbeat_at)) });

/** The column values of a new event, in `EVENT_COLUMNS` order. */
export function eventValues(shop: string, e: NewRecordEvent): (string | number | null)[] {
  const warnings = e.warnings ?? [];
  // Most events carry neither: no arrays are built for them (one of these a delivered record).
  const codes = warnings.length === 0 && !e.error ? [] : [...warnings.map((w) => w.code), ...(e.error ? [e.error.code] : [])];
  return [
    e.runId,
    e.pipeline,
    shop,
    e.resource ?? null,
    e.erpKey ?? null,
    e.shopId === undefined ? null : String(e.shopId),
    e.outcome,
    // Space-delimited so a code filter can match ` CODE ` without hitting a longer code.
    codes.length ? ` ${codes.join(' ')} ` : null,
    // Bounded (util/bytes.ts): a hostile 50 MB value is kept as its start and its size, not as 50 MB per event.
    warnings.length ? boundedJson(warnings) : null,
    e.error ? boundedJson(e.error) : null,
    e.payloadHash ?? null,
    e.payload === undefined ? null : e.payloadText !== undefined && e.payloadText.length <= STORED_TEXT_MAX ? e.payloadText : boundedJson(e.payload, true),
    e.diff === undefined ? null : boundedJson(e.diff, true),
    e.atMs ?? Date.now(),
  ];
}

/** The columns `eventValues` fills. */
export const EVENT_COLUMNS = ['run_id', 'pipeline', 'shop', 'resource', 'erp_key', 'shop_id', 'outcome', 'codes', 'warnings', 'error', 'payload_hash', 'payload', 'diff', 'at'] as const;

/**
 * Largest record a dead letter keeps whole (its JSON, issue 42 item 9): a 300 MB record must not
 * grow the state by 300 MB. A larger one keeps only its start and size, under `TRUNCATED_RECORD`,
 * and a retry refuses it (`truncatedBytes`).
 */
export const LETTER_RECORD_MAX = MiB;
/** The one field of a record a letter kept only the start of. */
export const TRUNCATED_RECORD = '$truncated';

function letterRecord(record: Readonly<Record<string, unknown>>): string {
  const text = JSON.stringify(record);
  if (text.length <= LETTER_RECORD_MAX) return text;
  return JSON.stringify({ [TRUNCATED_RECORD]: { bytes: Buffer.byteLength(text, 'utf8'), start: text.slice(0, STORED_TEXT_MAX) } });
}

/** The size of the record a letter kept only the start of; undefined for a letter that holds its record whole. */
export function truncatedBytes(record: Readonly<Record<string, unknown>>): number | undefined {
  const marker = record[TRUNCATED_RECORD];
  if (Object.keys(record).length !== 1 || marker === null || typeof marker !== 'object') return undefined;
  const bytes = (marker as { bytes?: unknown }).bytes;
  return typeof bytes === 'number' ? bytes : undefined;
}

/** The column values of a new dead letter, in `LETTER_COLUMNS` order (attempts start at 1). */
export function letterValues(shop: string, l: NewDeadLetter, now: number): (string | number | null)[] {
  return [
    l.pipeline,
    shop,
    l.resource ?? null,
    l.erpKey,
    // The record stays whole up to LETTER_RECORD_MAX: a retry maps it again. The payload is only shown, the reason only read.
    letterRecord(l.record),
    l.payload === undefined ? null : boundedJson(l.payload, true),
    l.code,
    clipText(l.reason, STORED_TEXT_MAX),
    l.runId ?? null,
    now,
    now,
    l.origin === undefined ? null : JSON.stringify(l.origin),
  ];
}

/** The columns `letterValues` fills. */
export const LETTER_COLUMNS = ['pipeline', 'shop', 'resource', 'erp_key', 'record', 'payload', 'code', 'reason', 'run_id', 'first_failed_at', 'last_failed_at', 'origin'] as const;

/** The error stored with runs a dead process left `running`. */
export const CRASHED_ERROR = JSON.stringify({ code: 'RUN_CRASHED', message: 'the process running this run stopped without finishing it' });
