/** `createShopClient`: assembles options, auth, queue, transport and the operations. */
import { z } from 'zod';
import { resolveOptions } from './options.js';
import { createTokenSource } from './auth.js';
import { RequestQueue } from './queue.js';
import { createHttp, Transport } from './http.js';
import { CircuitBreaker } from './breaker.js';
import { writeInBatches } from './batches.js';
import { readList, readPages } from './exports.js';
import { checkFilters } from './filters.js';
import { opOf, extraOf, resourceOf } from './lookup.js';
import { fillPath, placeholders } from './paths.js';
import { bulkDelete, claimTickets, deleteOne, downloadTicketAttachment, listTicketAttachments, setContractStatus } from './operations.js';
import { MethodNotFoundError, ValidationError } from '../errors.js';
import { uploadMedia } from './media.js';
import type { ResourceDef } from '../registry/index.js';
import type { ExportOptions, ExportPageResult, ShopClient, ShopClientOptions, WriteOptions, WriteResult } from './types.js';

/** Productlist entries: category with its products; the shape beyond that is not shown in the spec. */
const productListEntry = z.looseObject({});

/** Create a Shop API client; call `close()` when done. Throws ConfigError on invalid options. */
export function createShopClient(options: ShopClientOptions): ShopClient {
  const resolved = resolveOptions(options);
  const logger = resolved.logger.child({ component: 'shop-client' });
  const settings = { ...resolved, logger };
  const http = createHttp();
  const tokens = createTokenSource(settings.auth, { http, baseUrl: settings.baseUrl, timeoutMs: settings.timeoutMs, maxResponseBytes: settings.maxResponseBytes, retries: settings.retries, baseDelayMs: settings.baseDelayMs, maxDelayMs: settings.maxDelayMs });
  const queue = new RequestQueue({ mode: settings.mode, concurrency: settings.concurrency, intervalCap: settings.intervalCap, intervalMs: settings.intervalMs, onEvent: settings.onEvent, shared: settings.sharedLimiter });
  const transport = new Transport(http, tokens, queue, settings);
  const breaker = new CircuitBreaker(settings.breaker, () => transport.probe(), (change) => {
    const { state: _state, ...snapshot } = change.snapshot;
    if (change.state === 'open') logger.warn({ circuit: change.snapshot }, `shop circuit breaker open: ${change.reason}; runs of this shop fail fast (SHOP_CIRCUIT_OPEN) until a probe at ${snapshot.probeAt} is answered`);
    else logger.info({ circuit: change.snapshot }, 'shop circuit breaker closed: the probe was answered; requests go out again');
    settings.onEvent({ type: 'circuit', reason: change.reason, ...change.snapshot });
  });
  transport.useBreaker(breaker);

  const exportPages = (name: string, opts: ExportOptions = {}): AsyncIterable<ExportPageResult> => {
    const resource = resourceOf(name);
    const op = opOf(resource, 'export');
    const params = checkFilters(resource.name, op, opts.filters);
    checkPaging(opts);
    return readPages(transport, { resource, op, paging: op.paging, params, record: resource.schemas.record, pageSize: opts.pageSize, offset: opts.offset, signal: opts.signal });
  };

  const write = async (name: string, kind: 'create' | 'update', records: readonly Record<string, unknown>[], opts: WriteOptions = {}): Promise<WriteResult> => {
    const resource = resourceOf(name);
    const op = opOf(resource, kind);
    if (op.method !== 'POST' && op.method !== 'PUT') throw new MethodNotFoundError('METHOD_NOT_FOUND', `${resource.name} ${kind} uses ${op.method}; batch writes need POST or PUT`);
    const batchSize = opts.batchSize ?? settings.batchSize;
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new ValidationError('INVALID_ARGUMENT', `Expected \`batchSize\` to be a whole number from 1 and up, got \`${batchSize}\``);
    return writeInBatches(transport, { resource, op: { ...op, method: op.method }, records, batchSize, signal: opts.signal });
  };

  return {
    exportPages,
    async *exportAll(name, opts) {
      for await (const page of exportPages(name, opts)) yield* page.records;
    },
    async exportOne(name, id) {
      const resource = resourceOf(name);
      if (resource.ops.exportOne) return (await readList(transport, resource, resource.ops.exportOne, { id }, undefined, true))?.[0];
      const op = opOf(resource, 'export');
      if (!op.filters[resource.key.id]) throw noSingle(resource);
      for await (const page of exportPages(name, { filters: { [resource.key.id]: id }, pageSize: 1 })) return page.records.find((r) => String(r[resource.key.id]) === String(id));
      return undefined;
    },
    async exportRange(name, start, end) {
      const resource = resourceOf(name);
      const op = opOf(resource, 'range');
      const names = placeholders(op.path);
      const bounded = names.includes('start') && names.includes('end');
      // "From this id on" routes (`/newsdesks/{id}`) take only the start; ids above `end` are dropped here.
      const path = fillPath(op.path, bounded ? { start, end } : Object.fromEntries(names.map((n) => [n, start])));
      const paging = resource.ops.export?.paging ?? { kind: 'none' as const, defaultLimit: 0, maxLimit: 1 };
      const seen = new Set<string>();
      const out: Record<string, unknown>[] = [];
      for await (const page of readPages(transport, { resource, op: { ...op, path }, paging, params: {}, record: resource.schemas.record })) {
        // A shop that ignores limit/offset on range routes repeats the same list: stop at the first page with nothing new.
        const fresh = page.records.filter((r) => !seen.has(String(r[resource.key.id])));
        if (fresh.length === 0) break;
        for (const r of fresh) seen.add(String(r[resource.key.id]));
        out.push(...fresh);
      }
      return bounded ? out : out.filter((r) => Number(r[resource.key.id]) <= end);
    },
    create: (name, records, opts) => write(name, 'create', records, opts),
    update: (name, records, opts) => write(name, 'update', records, opts),
    delete: (name, id) => deleteOne(transport, name, id),
    bulkDelete: (name, selector) => bulkDelete(transport, name, selector),
    setContractStatus: (contractId, status, comment) => setContractStatus(transport, contractId, status, comment),
    claimTickets: (claims) => claimTickets(transport, claims),
    listTicketAttachments: (ticketId) => listTicketAttachments(transport, ticketId),
    downloadTicketAttachment: (ticketId, fileName) => downloadTicketAttachment(transport, ticketId, fileName),
    uploadMedia: (entityType, files) => uploadMedia(transport, entityType, files),
    async *exportExtra(name, operation, opts = {}) {
      const { resource, op } = extraOf(name, operation);
      if (op.method !== 'GET') throw new MethodNotFoundError('METHOD_NOT_FOUND', `${resource.name} \`${operation}\` is ${op.method}, not a list export`);
      checkPaging(opts);
      const paging = resource.ops.export?.paging ?? { kind: 'none' as const, defaultLimit: 0, maxLimit: 1 };
      const params = withoutPaging(opts.filters ?? {});
      for await (const page of readPages(transport, { resource, op, paging, params, record: resource.schemas.record, pageSize: opts.pageSize, offset: opts.offset, signal: opts.signal })) yield* page.records;
    },
    async *categoryProductList(params = {}) {
      const { resource, op } = extraOf('categories', 'productlist');
      const paging = resource.ops.export?.paging ?? { kind: 'limit-offset' as const, defaultLimit: 100, maxLimit: 100 };
      for await (const page of readPages(transport, { resource, op, paging, params: withoutPaging(params), record: productListEntry })) yield* page.records;
    },
    queueDepth: () => queue.depth(),
    rate: () => queue.rate(),
    circuit: () => breaker.snapshot(),
    async close() {
      tokens.close();
      await queue.close();
    },
  };
}

/** Query parameters without limit/offset, which the pager sets. */
function withoutPaging(params: Readonly<Record<string, string | number>>): Record<string, string | number> {
  return Object.fromEntries(Object.entries(params).filter(([k]) => k !== 'limit' && k !== 'offset'));
}

function checkPaging(opts: ExportOptions): void {
  if (opts.pageSize !== undefined && (!Number.isInteger(opts.pageSize) || opts.pageSize < 1)) {
    throw new ValidationError('INVALID_ARGUMENT', `Expected \`pageSize\` to be a whole number from 1 and up, got \`${opts.pageSize}\``);
  }
  if (opts.offset !== undefined && (!Number.isInteger(opts.offset) || opts.offset < 0)) {
    throw new ValidationError('INVALID_ARGUMENT', `Expected \`offset\` to be a whole number from 0 and up, got \`${opts.offset}\``);
  }
}

function noSingle(resource: ResourceDef): MethodNotFoundError {
  return new MethodNotFoundError('METHOD_NOT_FOUND', `${resource.name} has neither a single-record route nor an export filter on ${resource.key.id}`, { record: { resource: resource.name } });
}
