/**
 * The Odoo dialect, against a server of the test's own in Odoo's published JSON-RPC envelope
 * (./odooServer.ts): Odoo cannot be installed on the test machines.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSink, jsonrpcConnectionSchema, openRpcClient, type Sink, type SinkResult } from '../../../src/erp/index.js';
import { silentLogger } from '../../../src/log.js';
import { startFakeOdoo, type FakeOdoo } from './odooServer.js';

let odoo: FakeOdoo;
const connection = (overrides: Record<string, unknown> = {}) => ({ kind: 'jsonrpc' as const, dialect: 'odoo' as const, url: odoo.url, database: 'odoo', login: 'admin', password: 'odoo-s3cret', retries: 0, ...overrides });

beforeEach(async () => {
  odoo = await startFakeOdoo();
});
afterEach(async () => {
  await odoo.close();
});

describe('the JSON-RPC client and sink (Odoo dialect)', () => {
  it('logs in through common.login and calls execute_kw with database, uid and password', async () => {
    const client = await openRpcClient(jsonrpcConnectionSchema.parse(connection({ url: odoo.url.replace('/jsonrpc', '/') })), { logger: silentLogger });
    expect(await client.searchRead('sale.order', [['client_order_ref', 'in', ['1001']]], ['id'])).toEqual([]);
    expect(odoo.calls).toEqual([
      { service: 'common', method: 'login', args: ['odoo', 'admin', 'odoo-s3cret'] },
      { service: 'object', method: 'execute_kw', args: ['odoo', 2, 'odoo-s3cret', 'sale.order', 'search_read', [[['client_order_ref', 'in', ['1001']]]], { fields: ['id'] }] },
    ]);
    await client.close();
  });

  it('fails with JSONRPC_LOGIN_FAILED when Odoo answers the login with false', async () => {
    await expect(openRpcClient(jsonrpcConnectionSchema.parse(connection({ password: 'nope-nope' })), { logger: silentLogger })).rejects.toMatchObject({
      code: 'JSONRPC_LOGIN_FAILED',
      message: expect.stringContaining('was refused (the server answered false)'),
    });
  });

  it('logs in once more when Odoo denies a call (a changed password), and fails with JSONRPC_LOGIN_FAILED when that login is refused', async () => {
    const client = await openRpcClient(jsonrpcConnectionSchema.parse(connection()), { logger: silentLogger });
    odoo.password = 'rotated-key';
    await expect(client.search('sale.order', [])).rejects.toMatchObject({ code: 'JSONRPC_LOGIN_FAILED' });
    expect(odoo.calls.map((c) => `${c.service}.${c.method}`)).toEqual(['common.login', 'object.execute_kw', 'common.login']);
    await client.close();
  });

  it('creates sale orders once with their lines as [0, 0, {…}] commands, and refuses the one Odoo refuses with its message', async () => {
    const sink: Sink = await createSink(connection(), { model: 'sale.order', reference: { field: 'client_order_ref', from: 'shop_order' }, one2many: ['order_line'] }, { logger: silentLogger, baseDir: '.' });
    try {
      const records = [
        { shop_order: '1001', partner_id: 7, order_line: [{ product_id: 3, product_uom_qty: 2 }] },
        { shop_order: '1002', partner_id: false, order_line: [] },
      ];
      const first = (await sink.write({ id: 'o1', records })) as SinkResult;
      expect(first.outcomes).toEqual([
        { kind: 'created' },
        { kind: 'refused', code: 'JSONRPC_RECORD_REFUSED', message: 'the ERP refused the record (odoo.exceptions.ValidationError): The operation cannot be completed: Customer is required.', details: { errorType: 'odoo.exceptions.ValidationError' } },
      ]);
      expect(odoo.orders).toEqual([{ id: 40, client_order_ref: '1001', partner_id: 7 }]);
      expect(odoo.lines).toEqual([{ id: 41, order_id: 40, product_id: 3, product_uom_qty: 2 }]);
      // The same order again (a re-delivery): found by client_order_ref, not created twice.
      const again = (await sink.write({ id: 'o2', records: [records[0]!] })) as SinkResult;
      expect(again.outcomes).toEqual([{ kind: 'updated' }]);
      expect(odoo.orders).toHaveLength(1);
    } finally {
      await sink.close();
    }
  });
});
