import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSink, type Sink, type SinkResult } from '../../../src/erp/index.js';
import { silentLogger } from '../../../src/log.js';
import { startFakeTryton, type FakeTryton } from './trytonServer.js';

let tryton: FakeTryton;
const sinks: Sink[] = [];

function order(id: string, extra: Record<string, unknown> = {}) {
  return { shop_order: id, party: 3, description: `shop order ${id}`, lines: [{ product: 11, quantity: 2, unit_price: '9.90' }], ...extra };
}

async function open(sink: Record<string, unknown> = {}, conn: Record<string, unknown> = {}): Promise<Sink> {
  const s = await createSink(
    { kind: 'jsonrpc', dialect: 'tryton', url: tryton.url, database: tryton.database, login: 'admin', password: 'tryton-s3cret', retries: 2, backoffMs: 1, ...conn },
    { model: 'sale.sale', reference: { field: 'reference', from: 'shop_order' }, one2many: ['lines'], ...sink },
    { logger: silentLogger, baseDir: '.' },
  );
  sinks.push(s);
  return s;
}

const sales = () => tryton.records.get('sale.sale')!;
const creates = () => tryton.requests.filter((r) => r.method === 'model.sale.sale.create').length;

beforeEach(async () => {
  tryton = await startFakeTryton();
});
afterEach(async () => {
  for (const s of sinks.splice(0)) await s.close();
  await tryton.close();
});

describe('the jsonrpc sink (Tryton)', () => {
  it('creates each record once, the reference written into its field and the lines as Tryton\'s one2many create action', async () => {
    const sink = await open();
    const result = (await sink.write({ id: 'b1', records: [order('1001'), order('1002')] })) as SinkResult;
    expect(result.outcomes).toEqual([{ kind: 'created' }, { kind: 'created' }]);
    expect(sales().map((s) => s.reference)).toEqual(['1001', '1002']);
    expect(sales()[0]).not.toHaveProperty('shop_order');
    const create = tryton.requests.find((r) => r.method === 'model.sale.sale.create')!;
    expect((create.params[0] as Record<string, unknown>[])[0]!.lines).toEqual([['create', [{ product: 11, quantity: 2, unit_price: '9.90' }]]]);
    expect(tryton.records.get('sale.line')).toHaveLength(2);
    // One search for the batch's references, one create for the batch.
    expect(tryton.requests.filter((r) => r.method === 'model.sale.sale.search_read')).toHaveLength(1);
    expect(creates()).toBe(1);
  });

  it("creates the sale in the user's company (its preferences are the context), or the company the connection's context names", async () => {
    await (await open()).write({ id: 'c1', records: [order('1001')] });
    await (await open({}, { context: { company: 2 } })).write({ id: 'c2', records: [order('1002')] });
    expect(sales().map((s) => [s.reference, s.company])).toEqual([['1001', 1], ['1002', 2]]);
  });

  it('does not create or write a record the ERP holds already under its reference: it counts as updated (already there)', async () => {
    tryton.records.get('sale.sale')!.push({ id: 500, reference: '1001', party: 9, description: 'confirmed and shipped in Tryton' });
    const sink = await open();
    const result = (await sink.write({ id: 'b2', records: [order('1001'), order('1003')] })) as SinkResult;
    expect(result.outcomes).toEqual([{ kind: 'updated' }, { kind: 'created' }]);
    expect(sales().filter((s) => s.reference === '1001')).toEqual([{ id: 500, reference: '1001', party: 9, description: 'confirmed and shipped in Tryton' }]);
    expect(tryton.requests.some((r) => r.method === 'model.sale.sale.write')).toBe(false);
  });

  it('after a lost answer (created, then the connection dropped) finds the record by its reference and does not create a second', async () => {
    const sink = await open({ perRecord: true });
    tryton.dropNextCreateAnswer();
    const result = (await sink.write({ id: 'b3', records: [order('1001'), order('1002')] })) as SinkResult;
    expect(result.outcomes).toEqual([{ kind: 'created' }, { kind: 'created' }]);
    expect(sales().map((s) => s.reference)).toEqual(['1001', '1002']);
    expect(creates()).toBe(2);
  });

  it('after a lost answer to a batch create finds the whole batch by reference and creates none of it again', async () => {
    const sink = await open();
    tryton.dropNextCreateAnswer();
    const result = (await sink.write({ id: 'b4', records: [order('1001'), order('1002'), order('1003')] })) as SinkResult;
    expect(result.outcomes).toEqual([{ kind: 'created' }, { kind: 'created' }, { kind: 'created' }]);
    expect(sales().map((s) => s.reference)).toEqual(['1001', '1002', '1003']);
    expect(creates()).toBe(1);
  });

  it('sends a create again when the request was lost before Tryton saw it, and still makes one record', async () => {
    const sink = await open({ perRecord: true });
    tryton.dropRequests(1, 'model.sale.sale.create');
    const result = (await sink.write({ id: 'b5', records: [order('1001')] })) as SinkResult;
    expect(result.outcomes).toEqual([{ kind: 'created' }]);
    expect(sales().map((s) => s.reference)).toEqual(['1001']);
    expect(creates()).toBe(2);
  });

  it("refuses the one record Tryton refuses (UserError) with Tryton's message, and creates the others of the batch", async () => {
    const sink = await open();
    const result = (await sink.write({ id: 'b6', records: [order('1001'), order('1002', { party: null }), order('1003')] })) as SinkResult;
    expect(result.outcomes).toEqual([
      { kind: 'created' },
      { kind: 'refused', code: 'JSONRPC_RECORD_REFUSED', message: 'the ERP refused the record (UserError): A value is required for field "Party" in "Sale".', details: { errorType: 'UserError' } },
      { kind: 'created' },
    ]);
    expect(sales().map((s) => s.reference)).toEqual(['1001', '1003']);
  });

  it('refuses a record without a reference: it could not be created idempotently', async () => {
    const sink = await open();
    const result = (await sink.write({ id: 'b7', records: [order(''), order('1002')] })) as SinkResult;
    expect(result.outcomes[0]).toMatchObject({ kind: 'refused', code: 'JSONRPC_REFERENCE_MISSING' });
    expect(result.outcomes[1]).toEqual({ kind: 'created' });
  });

  it('refuses the second of two records of a batch carrying the same reference', async () => {
    const sink = await open();
    const result = (await sink.write({ id: 'b8', records: [order('1001'), order('1001', { description: 'twin' })] })) as SinkResult;
    expect(result.outcomes[0]).toEqual({ kind: 'created' });
    expect(result.outcomes[1]).toMatchObject({ kind: 'refused', code: 'JSONRPC_RECORD_REFUSED' });
    expect(sales()).toHaveLength(1);
  });

  it('survives an expired session in the middle of a run: logs in again and creates once', async () => {
    const sink = await open();
    await sink.write({ id: 'b9', records: [order('1001')] });
    tryton.expireSessions();
    const result = (await sink.write({ id: 'b10', records: [order('1002')] })) as SinkResult;
    expect(result.outcomes).toEqual([{ kind: 'created' }]);
    expect(tryton.logins).toBe(2);
    expect(sales().map((s) => s.reference)).toEqual(['1001', '1002']);
  });

  it('fails the run, writing nothing, when Tryton cannot be reached for the reference search', async () => {
    const sink = await open({}, { retries: 0 });
    tryton.dropRequests(1);
    await expect(sink.write({ id: 'b11', records: [order('1001')] })).rejects.toMatchObject({ code: 'JSONRPC_UNREACHABLE' });
    expect(sales()).toEqual([]);
  });

  it('does not open on a model Tryton does not have, or a field the model lacks', async () => {
    await expect(open({ model: 'sale.order' })).rejects.toMatchObject({ code: 'JSONRPC_MODEL_MISMATCH', message: expect.stringContaining('sale.order does not answer fields_get') });
    await expect(open({ reference: { field: 'client_order_ref' } })).rejects.toMatchObject({ code: 'JSONRPC_MODEL_MISMATCH', message: expect.stringContaining('has no field client_order_ref') });
    await expect(open({ one2many: ['description'] })).rejects.toMatchObject({ code: 'JSONRPC_MODEL_MISMATCH', message: expect.stringContaining('is not a one2many field') });
  });
});
