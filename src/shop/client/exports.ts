/**
 * Reads: list exports page by page, single records, id ranges and other paged lists (category
 * productlist). Every record is validated with its resource's record schema.
 */
import { z } from 'zod';
import { AbortedError } from '../../errors.js';
import type { OperationDef, PagingDef, ResourceDef } from '../registry/index.js';
import { exportPage } from '../schema/envelopes.js';
import { answerError, isSuccess, parseAnswer } from './answers.js';
import { invalidResponse } from './errors.js';
import { fillPath } from './paths.js';
import type { Transport } from './http.js';
import type { ExportPageResult } from './types.js';

/** One paged list to read. */
export interface PagedRead {
  readonly resource: ResourceDef;
  readonly op: OperationDef;
  readonly paging: PagingDef;
  readonly params: Readonly<Record<string, string | number>>;
  /** Schema each record must match. */
  readonly record: z.ZodType;
  readonly pageSize?: number;
  readonly offset?: number;
  readonly signal?: AbortSignal;
}

/** Read every page: stops at a page shorter than the limit, an empty page, or when offset reaches pagination.total. */
export async function* readPages(transport: Transport, read: PagedRead): AsyncGenerator<ExportPageResult> {
  const paged = read.paging.kind === 'limit-offset';
  const limit = Math.max(1, Math.min(read.pageSize ?? read.paging.maxLimit, read.paging.maxLimit));
  let offset = read.offset ?? 0;
  for (;;) {
    if (read.signal?.aborted) throw new AbortedError('export stopped');
    const params = paged ? { ...read.params, limit, offset } : read.params;
    const what = `${read.op.method} ${read.op.path}${paged ? ` (offset ${offset})` : ''}`;
    const answer = await transport.send({ resource: read.resource.name, method: 'GET', path: read.op.path, params, repeatSafe: true, signal: read.signal });
    if (!isSuccess(answer)) throw answerError(answer, what, (t) => transport.scrub(t), { resource: read.resource.name });
    const { records, total, pageLimit } = pageOf(answer.data, read.record, what, read.resource.name);
    yield { records, offset, total };
    if (!paged) return;
    // A shop that clamps harder than its documented maximum still pages correctly.
    const effective = pageLimit !== undefined && pageLimit > 0 && pageLimit < limit ? pageLimit : limit;
    offset += records.length;
    if (records.length === 0 || records.length < effective) return;
    if (total !== undefined && offset >= total) return;
  }
}

/** Validate one page and its records; a mismatch names the record's path (`data[3].products_id`). */
export function pageOf(data: unknown, record: z.ZodType, what: string, resource: string): { records: Record<string, unknown>[]; total?: number; pageLimit?: number } {
  const page = parseAnswer(exportPage, data, what, { resource });
  const rows = Array.isArray(page) ? page : page.data;
  const schema = z.array(record);
  const checked = schema.safeParse(rows);
  if (!checked.success) {
    const prefixed = new z.ZodError(checked.error.issues.map((issue) => ({ ...issue, path: Array.isArray(page) ? issue.path : ['data', ...issue.path] })));
    throw invalidResponse(what, prefixed, { record: { resource } });
  }
  const records = checked.data as Record<string, unknown>[];
  if (Array.isArray(page)) return { records };
  return { records, total: page.pagination?.total, pageLimit: page.pagination?.limit };
}

/** GET one answer holding a list of records (single record, id range). Undefined on 404 when `missingOk`. */
export async function readList(transport: Transport, resource: ResourceDef, op: OperationDef, values: Readonly<Record<string, string | number>>, params?: Readonly<Record<string, string | number>>, missingOk = false): Promise<Record<string, unknown>[] | undefined> {
  const path = fillPath(op.path, values);
  const what = `${op.method} ${path}`;
  const answer = await transport.send({ resource: resource.name, method: 'GET', path, params, repeatSafe: true });
  if (answer.status === 404 && missingOk) return undefined;
  if (!isSuccess(answer)) throw answerError(answer, what, (t) => transport.scrub(t), { resource: resource.name });
  // A single-record route may answer the bare record instead of an envelope.
  const data = answer.data !== null && typeof answer.data === 'object' && !Array.isArray(answer.data) && !('data' in answer.data) ? [answer.data] : answer.data;
  return pageOf(data, resource.schemas.record, what, resource.name).records;
}
