/**
 * Batch writes: split the caller's records into requests, send them through the transport, and
 * map every `data[]`, `warnings[]` and `errors[]` entry back to the record that caused it, first
 * inside its batch (entry `index`, or `record` in claims style), then to the caller's full array.
 */
import { AbortedError } from '../../errors.js';
import { shopError, ShopApiError } from '../errors.js';
import type { OperationDef, ResourceDef } from '../registry/index.js';
import type { MessageEntry, WriteResponse } from '../schema/envelopes.js';
import { answerError, isSuccess, readWriteAnswer } from './answers.js';
import { BatchRejectedError, invalidResponse, NotSentError } from './errors.js';
import type { Answer, Transport } from './http.js';
import { writeRepeatSafe } from './safety.js';
import type { RecordOutcome, WriteResult } from './types.js';

/** One batch write as the client assembles it. */
export interface BatchWrite {
  readonly resource: ResourceDef;
  readonly op: OperationDef & { readonly method: 'POST' | 'PUT' };
  readonly records: readonly Record<string, unknown>[];
  readonly batchSize: number;
  readonly signal?: AbortSignal;
}

/** Split `items` into consecutive chunks of at most `size`, each with the offset of its first item. */
export function splitBatches<T>(items: readonly T[], size: number): { readonly offset: number; readonly items: readonly T[] }[] {
  const out: { offset: number; items: readonly T[] }[] = [];
  for (let offset = 0; offset < items.length; offset += size) out.push({ offset, items: items.slice(offset, offset + size) });
  return out;
}

/** Send the records in batches; resolves with one outcome per record, in the caller's order. */
export async function writeInBatches(transport: Transport, write: BatchWrite): Promise<WriteResult> {
  const counter = { requests: 0 };
  const batches = splitBatches(write.records, write.batchSize);
  const results = await Promise.all(batches.map((batch) => sendBatch(transport, write, batch.items, batch.offset, counter)));
  return { outcomes: results.flat(), requests: counter.requests };
}

async function sendBatch(transport: Transport, write: BatchWrite, records: readonly Record<string, unknown>[], offset: number, counter: { requests: number }): Promise<RecordOutcome[]> {
  const { resource, op } = write;
  const what = `${op.method} ${op.path} (records ${offset}..${offset + records.length - 1})`;
  const allFail = (error: ShopApiError): RecordOutcome[] => records.map((record, i) => failed(offset + i, error.withRecord(refOf(resource, record, offset + i))));
  let answer: Answer;
  try {
    answer = await transport.send({
      resource: resource.name,
      method: op.method,
      path: op.path,
      body: { type: resource.writeType ?? resource.name, data: records },
      repeatSafe: writeRepeatSafe(resource, op.method, records),
      signal: write.signal,
      counter,
    });
  } catch (err) {
    if (err instanceof ShopApiError) return allFail(err);
    if (err instanceof AbortedError) return allFail(new NotSentError(`the write was stopped before this record was sent: ${err.message}`));
    throw err;
  }
  if (!isSuccess(answer)) {
    // A refusal that still carries per-record errors (every record failed, e.g. 409 LOCKED for
    // each) is mapped record by record, so no record is blamed for another's failure.
    const perRecord = readWriteAnswer(answer.data);
    if (perRecord.success && perRecord.data.errors.length > 0) {
      return mapEntries(resource, records, offset, perRecord.data, answer.afterLostAnswer, (t) => transport.scrub(t), answer.status);
    }
    return rejected(transport, resource, records, offset, answer, what);
  }
  const parsed = readWriteAnswer(answer.data);
  if (!parsed.success) return allFail(invalidResponse(what, parsed.error));
  return mapEntries(resource, records, offset, parsed.data, answer.afterLostAnswer, (t) => transport.scrub(t));
}

/** A request rejected as a whole: the record named by `details.index` gets the error, the others BATCH_REJECTED. */
function rejected(transport: Transport, resource: ResourceDef, records: readonly Record<string, unknown>[], offset: number, answer: Answer, what: string): RecordOutcome[] {
  const error = answerError(answer, what, (t) => transport.scrub(t));
  const marked = answer.afterLostAnswer ? withDetails(error, { afterLostAnswer: true }) : error;
  const culprit = typeof error.details?.index === 'number' && error.details.index >= 0 && error.details.index < records.length ? error.details.index : undefined;
  return records.map((record, i) => {
    const ref = refOf(resource, record, offset + i);
    if (culprit === undefined || culprit === i) return failed(offset + i, marked.withRecord(ref));
    return failed(
      offset + i,
      new BatchRejectedError(`not written because record ${offset + culprit} of the same request failed (${error.code}); send it again in a smaller batch`, {
        status: error.status,
        details: { rejectedBy: offset + culprit, cause: error.code },
        record: ref,
      }),
    );
  });
}

function mapEntries(
  resource: ResourceDef,
  records: readonly Record<string, unknown>[],
  offset: number,
  response: WriteResponse,
  afterLostAnswer: boolean,
  scrub: (text: string) => string,
  status?: number,
): RecordOutcome[] {
  const n = records.length;
  const inRange = (i: number | undefined): i is number => i !== undefined && Number.isInteger(i) && i >= 0 && i < n;
  const data: (Record<string, unknown> | undefined)[] = new Array(n).fill(undefined);
  const positional = response.data.every((entry) => entry.index === undefined);
  response.data.forEach((entry, position) => {
    const i = positional ? position : entry.index;
    if (inRange(i)) data[i] = entry;
  });
  // A list per record only where the shop warned (most answers warn about none): one shared empty list for the rest.
  const everyone = response.warnings.some((entry) => !inRange(entryIndex(entry)));
  const warnings: (MessageEntry[] | undefined)[] = everyone ? records.map(() => []) : new Array<undefined>(n);
  for (const entry of response.warnings) {
    const i = entryIndex(entry);
    if (inRange(i)) (warnings[i] ??= []).push(entry);
    else for (const list of warnings) list!.push(entry);
  }
  const errors: (ShopApiError | undefined)[] = new Array(n).fill(undefined);
  const unindexed: ShopApiError[] = [];
  for (const entry of response.errors) {
    const i = entryIndex(entry);
    const error = entryError(entry, afterLostAnswer, scrub, status);
    if (inRange(i)) errors[i] ??= error;
    else unindexed.push(error);
  }
  if (response.error && response.errors.length === 0) {
    unindexed.push(shopError(status, response.error.code, scrub(response.error.message ?? response.error.code), { details: response.error.details ?? undefined }));
  }
  if (unindexed.length > 0) {
    // An error that names no record falls on the records the shop did not confirm (all, if it confirmed every one).
    const unconfirmed = data.some((d) => d === undefined) ? data.map((d) => d === undefined) : data.map(() => true);
    unconfirmed.forEach((hit, i) => {
      if (hit) errors[i] ??= unindexed[0];
    });
  }
  return records.map((record, i) => {
    const index = offset + i;
    const error = errors[i];
    if (error) {
      const shopId = idOf(resource, data[i]) ?? idOf(resource, record);
      return { index, ok: false, data: data[i], warnings: warnings[i] ?? NO_WARNINGS, error: error.withRecord({ ...refOf(resource, record, index), shopId }) };
    }
    return { index, ok: true, data: data[i], warnings: warnings[i] ?? NO_WARNINGS };
  });
}

function entryIndex(entry: MessageEntry): number | undefined {
  return entry.index ?? entry.record;
}

function entryError(entry: MessageEntry, afterLostAnswer: boolean, scrub: (text: string) => string, status?: number): ShopApiError {
  const code = entry.code ?? entry.error;
  const message = entry.message ?? entry.error ?? entry.code ?? 'the shop refused this record';
  const details: Record<string, unknown> = { ...entry.details };
  if (entry.field !== undefined) details.field = entry.field;
  if (afterLostAnswer) details.afterLostAnswer = true;
  return shopError(status, code, scrub(entry.field ? `${message} (field ${entry.field})` : message), { details });
}

/** The warnings of a record the shop warned nothing about: shared, so it is frozen. */
const NO_WARNINGS: readonly MessageEntry[] = Object.freeze([]);

function failed(index: number, error: ShopApiError): RecordOutcome {
  return { index, ok: false, warnings: NO_WARNINGS, error };
}

function refOf(resource: ResourceDef, record: Record<string, unknown>, index: number): { index: number; resource: string; shopId?: string | number } {
  const shopId = idOf(resource, record);
  return shopId === undefined ? { index, resource: resource.name } : { index, resource: resource.name, shopId };
}

function idOf(resource: ResourceDef, record: Record<string, unknown> | undefined): string | number | undefined {
  const value = record?.[resource.key.id];
  return typeof value === 'number' || (typeof value === 'string' && value !== '') ? value : undefined;
}

function withDetails(error: ShopApiError, extra: Record<string, unknown>): ShopApiError {
  const copy = error.withRecord({});
  Object.assign(copy, { details: { ...error.details, ...extra } });
  return copy;
}
