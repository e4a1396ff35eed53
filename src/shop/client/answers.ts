/** Reading the shop's answers: zod validation and typed errors for non-2xx answers. */
import type { z } from 'zod';
import type { RecordRef } from '../../errors.js';
import { shopError, type ShopApiError } from '../errors.js';
import { compileCheck, type CompiledCheck } from '../schema/compiled.js';
import { errorEnvelope, writeResponse, type WriteResponse } from '../schema/envelopes.js';
import { invalidResponse } from './errors.js';
import type { Answer } from './http.js';
import { parseRetryAfter } from './retry.js';

/** Whether the answer is a 2xx. */
export function isSuccess(answer: Answer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

/** Parse an answer body with its schema; a mismatch is a ValidationError INVALID_RESPONSE naming the path. */
export function parseAnswer<T extends z.ZodType>(schema: T, data: unknown, what: string, record?: RecordRef): z.infer<T> {
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw invalidResponse(what, parsed.error, { record });
  return parsed.data;
}

let writeCheck: CompiledCheck | undefined;

/**
 * A batch write's answer read as `writeResponse` reads it. The compiled check decides first (zod's
 * verdict without zod copying every `data[]` entry: in a push of 200 batches zod's parse of each
 * answer never got hot and cost more than the request's JSON); zod itself reads an answer the check
 * refuses, so a malformed one is the same INVALID_RESPONSE naming the path as before. An answer is
 * JSON.parse's output (or text): the entries are taken as they are, which is what zod's copy holds.
 */
export function readWriteAnswer(data: unknown): { success: true; data: WriteResponse } | { success: false; error: z.ZodError } {
  writeCheck ??= compileCheck(writeResponse);
  if (!writeCheck(data)) return writeResponse.safeParse(data);
  const answer = data as Partial<WriteResponse>;
  return { success: true, data: { ...answer, data: answer.data ?? [], warnings: answer.warnings ?? [], errors: answer.errors ?? [] } as WriteResponse };
}

/** The body of an answer as JSON, also when it was fetched as bytes. */
export function jsonBody(data: unknown): unknown {
  if (data instanceof ArrayBuffer || Buffer.isBuffer(data)) {
    const text = Buffer.from(data as ArrayBuffer).toString('utf8');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return data;
}

/** The typed error for a non-2xx answer (error envelope when present, else the status alone). */
export function answerError(answer: Answer, what: string, scrub: (text: string) => string, record?: RecordRef): ShopApiError {
  const body = jsonBody(answer.data);
  const envelope = errorEnvelope.safeParse(body);
  const retryAfterMs = parseRetryAfter(answer.headers['retry-after']);
  if (envelope.success) {
    const { code, message, details } = envelope.data.error;
    return shopError(answer.status, code, scrub(`${what}: ${message ?? code}`), { details: details ?? undefined, retryAfterMs, record });
  }
  return shopError(answer.status, undefined, scrub(`${what}: the shop answered HTTP ${answer.status}`), { retryAfterMs, record });
}
