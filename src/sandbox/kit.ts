/**
 * Helpers for handlers: envelopes, paging from the registry, the per-record write loop, and the
 * shop's way of reading loosely typed values (PHP-like: '50,5' reads as 50). List exports with
 * the registry's filters are in `exports.ts`.
 */
import { z } from 'zod';
import type { ResourceDef } from '../shop/registry/index.js';
import { isRecord } from '../util/guards.js';
import { SandboxHttpError, type SandboxContext, type SandboxReply, type SandboxRequest } from './handler.js';

/** The api_version every answer carries. */
export const API_VERSION = '2.122.2';

// The handlers take the JSON-object guard from here, with the rest of their kit.
export { isRecord };

/** 200 with a body. */
export function ok(body: unknown): SandboxReply {
  return { status: 200, body };
}

/** The request-level error envelope. */
export function errorBody(code: string, message: string, details?: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return { success: false, api_version: API_VERSION, error: { code, message, ...(details ? { details } : {}) } };
}

/** Throw a request-level error (rolls the transaction back). */
export function fail(status: number, code: string, message: string, details?: Readonly<Record<string, unknown>>): never {
  throw new SandboxHttpError(status, code, message, details);
}

/** The `type` of export and delete answers: the resource's name (`sliders`). */
export function typeName(def: ResourceDef): string {
  return def.name;
}

/** The `type` of write answers: what the write request itself names (`slider`; docs/spec-gaps.md). */
export function writeTypeName(def: ResourceDef): string {
  return def.writeType ?? def.name;
}

/** limit/offset from the query, defaulted and clamped to the resource's paging (400 on garbage). */
export function pageParams(def: ResourceDef, query: Readonly<Record<string, string>>): { limit: number; offset: number } {
  const paging = def.ops.export?.paging ?? { kind: 'limit-offset', defaultLimit: 100, maxLimit: 250 };
  const limitRaw = query.limit;
  const offsetRaw = query.offset;
  let limit = paging.defaultLimit;
  let offset = 0;
  if (limitRaw !== undefined && limitRaw !== '') {
    if (!/^\d+$/.test(limitRaw)) fail(400, 'INVALID_PAYLOAD', `limit must be a non-negative integer, got \`${limitRaw}\``);
    limit = Number(limitRaw);
    if (limit === 0) limit = paging.defaultLimit;
  }
  if (offsetRaw !== undefined && offsetRaw !== '') {
    if (!/^\d+$/.test(offsetRaw)) fail(400, 'INVALID_PAYLOAD', `offset must be a non-negative integer, got \`${offsetRaw}\``);
    offset = Number(offsetRaw);
  }
  return { limit: Math.min(limit, paging.maxLimit), offset };
}

/** The list export answer. */
export function listReply(def: ResourceDef, records: readonly unknown[], page: { total: number; limit: number; offset: number }): SandboxReply {
  return ok({ success: true, api_version: API_VERSION, type: typeName(def), pagination: { total: page.total, limit: page.limit, offset: page.offset }, data: records });
}

/** The single-record export answer. */
export function oneReply(def: ResourceDef, record: unknown): SandboxReply {
  return ok({ success: true, api_version: API_VERSION, type: typeName(def), data: [record] });
}

/** The delete answer `{success, api_version, type, deleted:[ids]}`. */
export function deleteReply(def: ResourceDef, ids: readonly (number | string)[]): SandboxReply {
  return ok({ success: true, api_version: API_VERSION, type: typeName(def), deleted: ids });
}

/**
 * The id a delete takes from the query (the body, or the path, as a courtesy), read like PHP's
 * (int) cast; 400 INVALID_PAYLOAD when none is given. `raw` is kept for messages.
 */
export function phpDeleteId(req: SandboxRequest, field: string, options: { path?: boolean } = {}): { id: number; raw: unknown } {
  const body = isRecord(req.body) ? req.body : {};
  const raw = req.query[field] ?? (options.path ? req.params.id : undefined) ?? body[field];
  if (raw === undefined || raw === '') fail(400, 'INVALID_PAYLOAD', `Delete needs ${field}`);
  return { id: phpInt(raw), raw };
}

/** Parse an integer path/query value (400 INVALID_PAYLOAD otherwise). */
export function intParam(value: string | undefined, name: string): number {
  if (value === undefined || !/^-?\d+$/.test(value.trim())) fail(400, 'INVALID_PAYLOAD', `${name} must be an integer, got \`${value ?? ''}\``);
  return Number(value.trim());
}

/** The records of a write body `{type, data:[...]}` (400 INVALID_PAYLOAD when it is no envelope). */
export function writeRecords(req: SandboxRequest, options: { typeOptional?: boolean } = {}): unknown[] {
  const body = req.body;
  if (!isRecord(body)) fail(400, 'INVALID_PAYLOAD', 'The body must be a JSON object {type, data:[...]}');
  const expected = [req.resource.name, req.resource.writeType].filter((t): t is string => typeof t === 'string');
  if (body.type === undefined) {
    if (!options.typeOptional) fail(400, 'INVALID_PAYLOAD', `The body needs \`type\`: "${expected[0]}"`);
  } else if (typeof body.type !== 'string' || !expected.includes(body.type)) {
    fail(400, 'INVALID_PAYLOAD', `The body's type must be "${expected.join('" or "')}", got ${JSON.stringify(body.type)}`);
  }
  if (!Array.isArray(body.data)) fail(400, 'INVALID_PAYLOAD', 'The body needs `data`: an array of records');
  return body.data;
}

/**
 * A per-record failure: the record's changes are rolled back and it lands in errors[].
 * `status` is the HTTP status the spec's errors table names for this code (409 LOCKED, 409
 * `Already exists` of sliders, projects and tasks, 400 MISSING_ID of sliders); the request answers
 * it when every record failed with that code (see `writeEach`).
 */
export class RecordError extends Error {
  readonly code: string;
  readonly field?: string;
  readonly details?: Readonly<Record<string, unknown>>;
  readonly status?: number;

  constructor(code: string, message: string, field?: string, details?: Readonly<Record<string, unknown>>, status?: number) {
    super(message);
    this.name = 'RecordError';
    this.code = code;
    this.field = field;
    this.details = details;
    this.status = status;
  }
}

/** A warning or error entry of a write answer. */
export interface MessageOut {
  index: number;
  code: string;
  message: string;
  field?: string;
  details?: Readonly<Record<string, unknown>>;
}

/** An error entry with the status its code carries, if the spec names one. */
interface ErrorOut extends MessageOut {
  status?: number;
}

/** What a per-record write function reports besides its result. */
export interface RecordScope {
  readonly index: number;
  /** Add a warning for this record. */
  warn(code: string, message: string, field?: string, details?: Readonly<Record<string, unknown>>): void;
}

/**
 * The write loop: each record runs in its own savepoint; a thrown `RecordError` rolls back that
 * record only and lands in errors[]; the others go on. `fn` returns the record's `data[]` fields
 * (its id at least). Any other thrown error aborts the whole request.
 */
export function writeEach(
  ctx: SandboxContext,
  req: SandboxRequest,
  operation: 'create' | 'update',
  fn: (record: Record<string, unknown>, scope: RecordScope) => Record<string, unknown>,
): SandboxReply {
  const records = writeRecords(req);
  const data: Record<string, unknown>[] = [];
  const warnings: MessageOut[] = [];
  const errors: ErrorOut[] = [];
  records.forEach((record, index) => {
    const scope: RecordScope = {
      index,
      warn: (code, message, field, details) => warnings.push({ index, code, message, ...(field ? { field } : {}), ...(details ? { details } : {}) }),
    };
    if (!isRecord(record)) {
      errors.push({ index, code: 'INVALID_PAYLOAD', message: 'A record must be a JSON object' });
      return;
    }
    try {
      const result = ctx.db.transaction(() => fn(record, scope))();
      data.push({ index, ...result });
    } catch (err) {
      if (!(err instanceof RecordError)) throw err;
      errors.push({ index, code: err.code, message: err.message, ...(err.field ? { field: err.field } : {}), ...(err.details ? { details: err.details } : {}), status: err.status });
    }
  });
  const body = { success: errors.length === 0, api_version: API_VERSION, type: writeTypeName(req.resource), operation, data, warnings, errors: errors.map(({ status: _s, ...e }) => e) };
  const whole = wholeRequestError(records.length, errors);
  if (!whole) return ok(body);
  return { status: whole.status, body: { ...body, error: { code: whole.code, message: whole.message, details: { index: whole.index, ...(whole.field ? { field: whole.field } : {}), ...whole.details } } } };
}

/**
 * The spec's status for a write that failed as a whole: every record failed with the same code
 * and that code names a status. A mixed request (some written, or different reasons) answers 200
 * with per-record errors, so the records that were fine are not hidden (docs/spec-gaps.md).
 */
function wholeRequestError(total: number, errors: readonly ErrorOut[]): (ErrorOut & { status: number }) | undefined {
  const first = errors[0];
  if (total === 0 || errors.length !== total || first?.status === undefined) return undefined;
  return errors.every((e) => e.code === first.code && e.status === first.status) ? { ...first, status: first.status } : undefined;
}

/** The field names of a resource's write schema (its interface); other fields are ignored. */
export function writableFields(def: ResourceDef): ReadonlySet<string> {
  const schema = def.schemas.write as unknown;
  if (schema instanceof z.ZodObject) return new Set(Object.keys(schema.shape));
  return new Set();
}

/** Read a number the way PHP's floatval does: leading numeric part, '50,5' -> 50, garbage -> 0. */
export function phpFloat(value: unknown): number {
  if (typeof value === 'number') return Number.isFinite(value) ? value : 0;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value !== 'string') return 0;
  const m = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(value);
  return m ? Number(m[0]) : 0;
}

/** Read an integer like PHP's (int) cast: '12abc' -> 12, '1.9' -> 1. */
export function phpInt(value: unknown): number {
  return Math.trunc(phpFloat(value));
}

/** Whether a value is a number or a numeric string (in either decimal notation the shop reads). */
export function isNumeric(value: unknown): boolean {
  return (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && /^\s*[+-]?(\d+([.,]\d*)?|[.,]\d+)\s*$/.test(value));
}

/** Require an integer field (number or integer string); throws INVALID_PAYLOAD naming the field. */
export function requireInt(record: Record<string, unknown>, field: string): number {
  const v = record[field];
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) return Number(v);
  throw new RecordError('INVALID_PAYLOAD', v === undefined ? `${field} is required` : `${field} must be an integer, got ${JSON.stringify(v)}`, field);
}

/** An optional integer field: undefined when absent, INVALID_PAYLOAD when not an integer. */
export function optionalInt(record: Record<string, unknown>, field: string): number | undefined {
  return record[field] === undefined || record[field] === null ? undefined : requireInt(record, field);
}

/** An optional string field (numbers are taken as their text). */
export function optionalString(record: Record<string, unknown>, field: string): string | undefined {
  const v = record[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  throw new RecordError('INVALID_PAYLOAD', `${field} must be a string, got ${JSON.stringify(v)}`, field);
}

/** Round to 4 decimals (prices), avoiding float noise in answers. */
export function round4(n: number): number {
  return Math.round(n * 10000) / 10000;
}

/** Round to 2 decimals (money). */
export function round2(n: number): number {
  return Math.round((n + Number.EPSILON) * 100) / 100;
}
