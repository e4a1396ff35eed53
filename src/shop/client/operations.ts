/**
 * Resource-specific operations: deletes (id in path, query or body), bulk deletes, the contract
 * status change, ticket claims, ticket attachments (listing and binary download).
 */
import { z } from 'zod';
import { ValidationError, NotFoundError, type ShopApiError } from '../errors.js';
import { attachmentListing, claimsResponse, deleteResponse, type AttachmentListing, type ClaimsResponse, type DeleteResponse } from '../schema/envelopes.js';
import { answerError, isSuccess, jsonBody, parseAnswer } from './answers.js';
import type { Transport } from './http.js';
import { extraOf, opOf, resourceOf } from './lookup.js';
import { formatPath } from '../../util/paths.js';
import { ticketClaimWrite } from '../resources/tickets.js';
import { fillPath, placeholders } from './paths.js';
import type { ClaimRequest, DownloadedFile } from './types.js';

type IdSelector = number | string | Readonly<Record<string, string | number>>;

/** Delete one record, passing its id where the registry says the resource takes it. */
export async function deleteOne(transport: Transport, name: string, id: IdSelector): Promise<DeleteResponse> {
  const resource = resourceOf(name);
  const op = opOf(resource, 'delete');
  const selector: Record<string, string | number> = typeof id === 'object' ? { ...id } : { [op.param]: id };
  const allowed = [op.param, ...(op.alternatives ?? [])];
  const keys = Object.keys(selector);
  if (keys.length === 0 || keys.some((k) => !allowed.includes(k))) {
    throw new ValidationError('INVALID_ARGUMENT', `${resource.name} records are deleted by ${allowed.join(' or ')}; got ${keys.join(', ') || 'nothing'}`, { record: { resource: resource.name } });
  }
  let path = op.path;
  let params: Record<string, string | number> | undefined;
  let body: Record<string, string | number> | undefined;
  if (op.idIn === 'path') {
    const value = selector[op.param];
    if (value === undefined) throw new ValidationError('INVALID_ARGUMENT', `${resource.name} records are deleted by ${op.param} in the path`, { record: { resource: resource.name } });
    path = fillPath(op.path, Object.fromEntries(placeholders(op.path).map((p) => [p, value])));
  } else if (op.idIn === 'query') params = selector;
  else body = selector;
  const shopId = selector[op.param];
  const answer = await transport.send({ resource: resource.name, method: 'DELETE', path, params, body, repeatSafe: true });
  const what = `DELETE ${path}`;
  if (!isSuccess(answer)) throw markLost(answerError(answer, what, (t) => transport.scrub(t), { resource: resource.name, shopId }), answer.afterLostAnswer);
  return parseAnswer(deleteResponse, answer.data, what, { resource: resource.name, shopId });
}

/** Bulk delete: the registry's `param` goes into the body (ids or envelope style); other selector keys become query parameters. */
export async function bulkDelete(transport: Transport, name: string, selector: Readonly<Record<string, unknown>>): Promise<DeleteResponse> {
  const resource = resourceOf(name);
  const op = opOf(resource, 'bulkDelete');
  let body: unknown;
  const params: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(selector)) {
    if (key === op.param || (op.style === 'envelope' && key === 'data')) continue;
    if (typeof value !== 'string' && typeof value !== 'number') {
      throw new ValidationError('INVALID_ARGUMENT', `bulk delete of ${resource.name}: \`${key}\` must be a string or number query selector; the list goes in \`${op.style === 'envelope' ? 'data' : op.param}\``, { record: { resource: resource.name } });
    }
    params[key] = value;
  }
  if (op.style === 'envelope') {
    const data = selector.data ?? selector[op.param];
    if (data !== undefined) body = { type: resource.writeType ?? resource.name, data };
  } else if (op.style === 'ids' && selector[op.param] !== undefined) {
    body = { [op.param]: selector[op.param] };
  }
  if (body === undefined && Object.keys(params).length === 0) {
    throw new ValidationError('INVALID_ARGUMENT', `bulk delete of ${resource.name} needs \`${op.param}\` or query selectors; refusing to send an empty selector`, { record: { resource: resource.name } });
  }
  const answer = await transport.send({ resource: resource.name, method: 'DELETE', path: op.path, params, body, repeatSafe: true });
  const what = `DELETE ${op.path}`;
  if (!isSuccess(answer)) throw markLost(answerError(answer, what, (t) => transport.scrub(t), { resource: resource.name }), answer.afterLostAnswer);
  return parseAnswer(deleteResponse, answer.data, what, { resource: resource.name });
}

const statusAnswer = z.looseObject({ success: z.boolean() });
/** Claims are checked before sending: a string 'true' for force would be ignored by the shop. */
const claimList = z.array(ticketClaimWrite).min(1, { message: 'expected at least one claim' });

/** Change only a contract's status (appends a status-history entry, so never repeated after a lost answer). */
export async function setContractStatus(transport: Transport, contractId: number, status: number, comment?: string): Promise<Record<string, unknown>> {
  const { resource, op } = extraOf('contracts', 'status');
  if (!Number.isInteger(status) || status < 1) throw new ValidationError('INVALID_ARGUMENT', `Expected a contract status id (a whole number from 1), got \`${status}\``, { record: { resource: resource.name, shopId: contractId } });
  const path = fillPath(op.path, { id: contractId });
  const body = comment === undefined ? { contracts_status: status } : { contracts_status: status, comment };
  const answer = await transport.send({ resource: resource.name, method: op.method, path, body, repeatSafe: false });
  const what = `${op.method} ${path}`;
  const record = { resource: resource.name, shopId: contractId };
  if (!isSuccess(answer)) throw answerError(answer, what, (t) => transport.scrub(t), record);
  const parsed = parseAnswer(statusAnswer, answer.data, what, record);
  if (!parsed.success) throw answerError({ ...answer, status: 400 }, what, (t) => transport.scrub(t), record);
  return parsed;
}

/** Set, extend, take over or release ticket claims; a conflict comes back in the response (HTTP 200), not as an error. */
export async function claimTickets(transport: Transport, claims: readonly ClaimRequest[]): Promise<ClaimsResponse> {
  const { resource, op } = extraOf('tickets', 'claims');
  const checked = claimList.safeParse(claims);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new ValidationError('INVALID_ARGUMENT', `ticket claims: ${formatPath(issue.path, '(root)')}: ${issue.message}`, { record: { resource: resource.name } });
  }
  const answer = await transport.send({ resource: resource.name, method: op.method, path: op.path, body: { type: 'ticket_claims', data: claims }, repeatSafe: true });
  const what = `${op.method} ${op.path}`;
  if (!isSuccess(answer)) throw answerError(answer, what, (t) => transport.scrub(t), { resource: resource.name });
  return parseAnswer(claimsResponse, answer.data, what, { resource: resource.name });
}

/** List the files attached to a ticket. */
export async function listTicketAttachments(transport: Transport, ticketId: number): Promise<AttachmentListing> {
  const { resource, op } = extraOf('tickets', 'attachments');
  const path = fillPath(op.path, { id: ticketId });
  const record = { resource: resource.name, shopId: ticketId };
  const answer = await transport.send({ resource: resource.name, method: 'GET', path, repeatSafe: true });
  if (!isSuccess(answer)) throw answerError(answer, `GET ${path}`, (t) => transport.scrub(t), record);
  return parseAnswer(attachmentListing, answer.data, `GET ${path}`, record);
}

/** Download one ticket attachment as bytes, with the Content-Type and the file name the shop gives. */
export async function downloadTicketAttachment(transport: Transport, ticketId: number, fileName: string): Promise<DownloadedFile> {
  const { resource, op } = extraOf('tickets', 'attachment');
  const path = fillPath(op.path, { id: ticketId });
  const record = { resource: resource.name, shopId: ticketId };
  const answer = await transport.send({ resource: resource.name, method: 'GET', path, params: { file: fileName }, binary: true, repeatSafe: true });
  if (!isSuccess(answer)) throw answerError(answer, `GET ${path}`, (t) => transport.scrub(t), record);
  const raw = answer.data;
  if (!(raw instanceof ArrayBuffer) && !Buffer.isBuffer(raw)) {
    throw new ValidationError('INVALID_RESPONSE', `The shop's answer to GET ${path} was not a file (got ${typeof jsonBody(raw)})`, { record });
  }
  return {
    contentType: answer.headers['content-type'] ?? 'application/octet-stream',
    fileName: fileNameFrom(answer.headers['content-disposition']) ?? fileName,
    data: Buffer.from(raw as ArrayBuffer),
  };
}

/** The file name of a Content-Disposition header (RFC 6266: `filename*` wins over `filename`); path parts are dropped. */
export function fileNameFrom(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  let name: string | undefined;
  if (extended) {
    try {
      name = decodeURIComponent(extended[2].trim());
    } catch {
      name = undefined;
    }
  }
  if (name === undefined) {
    const plain = /filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]+)/i.exec(header);
    if (plain) name = plain[2] !== undefined ? plain[2].replace(/\\(.)/g, '$1') : plain[1].trim();
  }
  if (name === undefined) return undefined;
  // Never let a header choose a directory.
  const base = name.split(/[\\/]/).pop() ?? '';
  return base === '' || base === '.' || base === '..' ? undefined : base;
}

function markLost(error: ShopApiError, afterLostAnswer: boolean): ShopApiError {
  if (!afterLostAnswer || !(error instanceof NotFoundError)) return error;
  const copy = error.withRecord({});
  Object.assign(copy, { details: { ...error.details, afterLostAnswer: true } });
  return copy;
}
