/**
 * Contracts: filters (status 1..7), the status endpoint with comment and history, text labels for
 * status and interval, attributes and domains (replaced when sent), prices as decimal strings,
 * cascade delete and bulk delete.
 */
import type { OperationHandler, ResourceHandler, SandboxContext } from '../handler.js';
import { API_VERSION, deleteReply, fail, isRecord, ok, oneReply, optionalInt, RecordError, requireInt, typeName, writeEach } from '../kit.js';
import { exportFromStore } from '../exports.js';
import type { StoredRecord } from '../store.js';
import { seedContracts } from '../seed/contracts.js';
import { addDays, addMonths } from '../dates.js';
import { dateOrNull, decimalString, pathId, recordFromPath, recordToUpdate, requireDecimal } from './content/values.js';

export const CONTRACTS = 'contracts';

/** Text labels of contracts_status (4 to 7 exist, their meaning is not shown). */
export const STATUS_TEXT: Readonly<Record<number, string>> = { 1: 'active', 2: 'paused', 3: 'cancelled', 4: 'status 4', 5: 'status 5', 6: 'status 6', 7: 'status 7' };
/** Text labels of contracts_interval (payments per year). */
export const INTERVAL_TEXT: Readonly<Record<number, string>> = { 1: 'yearly', 2: 'half-yearly', 4: 'quarterly', 12: 'monthly' };

interface HistoryEntry {
  id: number;
  contracts_status: number;
  contracts_status_text: string;
  previous_status: number | null;
  comment: string;
  date_added: string;
}

/** A stored contract. */
export interface Contract {
  contracts_id: number;
  customers_id: number;
  products_id: number;
  contracts_status: number;
  contracts_interval: number;
  contracts_price: number;
  contracts_date_added: string;
  contracts_date_start: string;
  contracts_date_end: string | null;
  current_period_date_begin: string;
  current_period_date_end: string;
  attributes: { id: number; key: string; value: string }[];
  domains: { id: number; domain: string; active: 0 | 1 }[];
  status_history: HistoryEntry[];
  orders: { orders_id: number; date_added: string }[];
}

function status(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 7) throw new RecordError('INVALID_PAYLOAD', `${field} must be 1 to 7, got ${JSON.stringify(value)}`, field);
  return value;
}

function interval(value: unknown): number {
  if (value !== 1 && value !== 2 && value !== 4 && value !== 12) throw new RecordError('INVALID_PAYLOAD', `contracts_interval must be 1, 2, 4 or 12, got ${JSON.stringify(value)}`, 'contracts_interval');
  return value;
}

function existing(ctx: SandboxContext, record: Record<string, unknown>, field: 'customers_id' | 'products_id', resource: string): number {
  const id = requireInt(record, field);
  if (!ctx.store.has(resource, id)) throw new RecordError('INVALID_PAYLOAD', `${field} ${id}: no such ${resource === 'customers' ? 'customer' : 'product'}`, field);
  return id;
}

function attributes(record: Record<string, unknown>): Contract['attributes'] {
  const v = record.attributes;
  if (!Array.isArray(v)) throw new RecordError('INVALID_PAYLOAD', 'attributes must be an array of {key, value}', 'attributes');
  return v.map((a, i) => {
    if (!isRecord(a) || typeof a.key !== 'string' || a.key === '' || (a.value !== null && a.value !== undefined && typeof a.value !== 'string' && typeof a.value !== 'number')) {
      throw new RecordError('INVALID_PAYLOAD', `attributes[${i}] needs key (string) and value (string)`, `attributes[${i}]`);
    }
    return { id: i + 1, key: a.key, value: a.value === null || a.value === undefined ? '' : String(a.value) };
  });
}

function domains(record: Record<string, unknown>): Contract['domains'] {
  const v = record.domains;
  if (!Array.isArray(v)) throw new RecordError('INVALID_PAYLOAD', 'domains must be an array of {domain, active?}', 'domains');
  return v.map((d, i) => {
    if (!isRecord(d) || typeof d.domain !== 'string' || d.domain.trim() === '') throw new RecordError('INVALID_PAYLOAD', `domains[${i}] needs domain (string)`, `domains[${i}]`);
    const active = d.active === undefined ? 1 : d.active === 1 || d.active === '1' || d.active === true ? 1 : d.active === 0 || d.active === '0' || d.active === false ? 0 : undefined;
    if (active === undefined) throw new RecordError('INVALID_PAYLOAD', `domains[${i}].active must be 0 or 1`, `domains[${i}].active`);
    return { id: i + 1, domain: d.domain.trim().toLowerCase(), active };
  });
}

/** The current billing period from the start date and the interval (payments per year). */
function period(start: string, intervalPerYear: number, today: string): { begin: string; end: string } {
  const months = 12 / intervalPerYear;
  let begin = start;
  while (addMonths(begin, months) <= today) begin = addMonths(begin, months);
  return { begin, end: addDays(addMonths(begin, months), -1) };
}

function addHistory(ctx: SandboxContext, contract: Contract, previous: number | null, comment: string): void {
  contract.status_history.push({
    id: contract.status_history.reduce((m, h) => Math.max(m, h.id), 0) + 1,
    contracts_status: contract.contracts_status,
    contracts_status_text: STATUS_TEXT[contract.contracts_status],
    previous_status: previous,
    comment,
    date_added: ctx.timestamp(),
  });
}

function applyFields(ctx: SandboxContext, record: Record<string, unknown>, contract: Contract): void {
  if (record.customers_id !== undefined) contract.customers_id = existing(ctx, record, 'customers_id', 'customers');
  if (record.products_id !== undefined) contract.products_id = existing(ctx, record, 'products_id', 'products');
  if (record.contracts_interval !== undefined) contract.contracts_interval = interval(record.contracts_interval);
  if (record.contracts_price !== undefined) contract.contracts_price = requireDecimal(record, 'contracts_price');
  if (record.contracts_date_start !== undefined) contract.contracts_date_start = dateOrNull(record, 'contracts_date_start') ?? contract.contracts_date_start;
  if ('contracts_date_end' in record) contract.contracts_date_end = dateOrNull(record, 'contracts_date_end');
  if (record.attributes !== undefined) contract.attributes = attributes(record);
  if (record.domains !== undefined) contract.domains = domains(record);
  // The billing period follows start and interval unless it is sent explicitly.
  const recompute = record.contracts_interval !== undefined || record.contracts_date_start !== undefined || contract.current_period_date_begin === '';
  if (recompute) {
    const computed = period(contract.contracts_date_start, contract.contracts_interval, ctx.timestamp().slice(0, 10));
    contract.current_period_date_begin = computed.begin;
    contract.current_period_date_end = computed.end;
  }
  if (record.current_period_date_begin !== undefined) contract.current_period_date_begin = dateOrNull(record, 'current_period_date_begin') ?? contract.current_period_date_begin;
  if (record.current_period_date_end !== undefined) contract.current_period_date_end = dateOrNull(record, 'current_period_date_end') ?? contract.current_period_date_end;
}

const create: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'create', (record) => {
    const given = optionalInt(record, 'contracts_id');
    if (given !== undefined && ctx.store.has(CONTRACTS, given)) throw new RecordError('Already exists', `Contract ${given} already exists (use PUT)`, 'contracts_id', { contracts_id: given });
    for (const field of ['customers_id', 'products_id', 'contracts_interval', 'contracts_price']) {
      if (record[field] === undefined) throw new RecordError('INVALID_PAYLOAD', `${field} is required`, field);
    }
    const now = ctx.timestamp();
    const id = given ?? ctx.store.nextId(CONTRACTS);
    const contract: Contract = {
      contracts_id: id, customers_id: 0, products_id: 0, contracts_status: record.contracts_status === undefined ? 1 : status(record.contracts_status, 'contracts_status'),
      contracts_interval: 12, contracts_price: 0, contracts_date_added: now, contracts_date_start: now.slice(0, 10), contracts_date_end: null,
      current_period_date_begin: '', current_period_date_end: '', attributes: [], domains: [], status_history: [], orders: [],
    };
    applyFields(ctx, record, contract);
    addHistory(ctx, contract, null, 'created');
    ctx.store.put(CONTRACTS, id, contract as unknown as StoredRecord);
    return { contracts_id: id, contracts_status: contract.contracts_status, contracts_price: decimalString(contract.contracts_price) };
  });

const update: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'update', (record) => {
    const { id, stored: contract } = recordToUpdate<Contract>(ctx, record, CONTRACTS, 'contracts_id', 'Contract');
    applyFields(ctx, record, contract);
    if (record.contracts_status !== undefined) {
      const next = status(record.contracts_status, 'contracts_status');
      if (next !== contract.contracts_status) {
        const previous = contract.contracts_status;
        contract.contracts_status = next;
        addHistory(ctx, contract, previous, '');
      }
    }
    ctx.store.put(CONTRACTS, id, contract as unknown as StoredRecord);
    return { contracts_id: id, contracts_status: contract.contracts_status };
  });

/** A contract as exported: price as decimal string, text labels. */
export function contractView(contract: Contract): Record<string, unknown> {
  return {
    ...contract,
    contracts_price: decimalString(contract.contracts_price),
    contracts_status_text: STATUS_TEXT[contract.contracts_status] ?? '',
    contracts_interval_text: INTERVAL_TEXT[contract.contracts_interval] ?? '',
  };
}

// Every filter (status 1..7, interval 1/2/4/12 as a number, dates) comes from the registry.
const exportList: OperationHandler = (ctx, req) => exportFromStore(ctx, req, { view: (r) => contractView(r as unknown as Contract) });

const exportOne: OperationHandler = (ctx, req) => {
  const contract = recordFromPath<Contract>(ctx, req, CONTRACTS, 'Contract');
  return oneReply(req.resource, contractView(contract));
};

/** PUT /import/json/contracts/{id}/status: body {contracts_status, comment}. */
const setStatus: OperationHandler = (ctx, req) => {
  const id = pathId(req);
  const contract = ctx.store.get(CONTRACTS, id) as Contract | undefined;
  if (!contract) fail(404, 'Not found', `Contract ${id} does not exist`);
  const body = isRecord(req.body) ? req.body : fail(400, 'INVALID_PAYLOAD', 'The body must be {contracts_status, comment?}');
  const next = body.contracts_status;
  if (typeof next !== 'number' || !Number.isInteger(next) || next < 1 || next > 7) fail(400, 'INVALID_PAYLOAD', `contracts_status must be 1 to 7, got ${JSON.stringify(next)}`, { field: 'contracts_status' });
  if (body.comment !== undefined && body.comment !== null && typeof body.comment !== 'string') fail(400, 'INVALID_PAYLOAD', 'comment must be a string', { field: 'comment' });
  const previous = contract.contracts_status;
  contract.contracts_status = next;
  addHistory(ctx, contract, previous, typeof body.comment === 'string' ? body.comment : '');
  ctx.store.put(CONTRACTS, id, contract as unknown as StoredRecord);
  return ok({
    success: true,
    api_version: API_VERSION,
    type: typeName(req.resource),
    operation: 'status',
    contracts_id: id,
    previous_status: previous,
    contracts_status: next,
    contracts_status_text: STATUS_TEXT[next],
    data: [contractView(contract)],
  });
};

function cascade(contract: Contract): Record<string, number> {
  return { attributes: contract.attributes.length, domains: contract.domains.length, status_history: contract.status_history.length };
}

const deleteOne: OperationHandler = (ctx, req) => {
  const id = pathId(req);
  const contract = ctx.store.get(CONTRACTS, id) as Contract | undefined;
  if (!contract) fail(404, 'Not found', `Contract ${id} does not exist`);
  ctx.store.delete(CONTRACTS, id);
  return ok({ ...(deleteReply(req.resource, [id]).body as object), cascade: cascade(contract) });
};

/** DELETE /delete/json/contracts with body {ids:[...]}. */
const bulkDelete: OperationHandler = (ctx, req) => {
  const body = isRecord(req.body) ? req.body : {};
  if (!Array.isArray(body.ids) || body.ids.length === 0) fail(400, 'INVALID_PAYLOAD', 'The body must be {ids: [contract ids]}');
  const deleted: number[] = [];
  const notFound: unknown[] = [];
  for (const raw of body.ids) {
    const id = typeof raw === 'number' && Number.isInteger(raw) ? raw : undefined;
    if (id === undefined) fail(400, 'INVALID_PAYLOAD', `ids must hold integer ids, got ${JSON.stringify(raw)}`);
    if (ctx.store.delete(CONTRACTS, id)) deleted.push(id);
    else notFound.push(id);
  }
  return ok({ ...(deleteReply(req.resource, deleted).body as object), not_found: notFound });
};

/** The sandbox handler of contracts (registered in handlers/index.ts). */
export const contractsHandler: ResourceHandler = {
  seed(ctx, kind) {
    if (kind === 'demo') seedContracts(ctx);
  },
  export: exportList,
  exportOne,
  create,
  update,
  delete: deleteOne,
  bulkDelete,
  extra: { status: setStatus },
};
