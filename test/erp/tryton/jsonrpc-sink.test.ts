/**
 * The jsonrpc sink against a real Tryton 6.0 (Debian's packages; the database made by trytond-admin
 * and filled through proteus, test/support/tryton.ts): each record becomes exactly one draft sale in
 * the admin's company with its lines, counted in Tryton before and after; a sale Tryton refuses (no
 * party) is refused with Tryton's own message and created once when sent again fixed; a session
 * Tryton ended is renewed; a create whose answer is lost (a proxy of the test's own drops it after
 * Tryton committed) is found by its reference and not made twice.
 * Runs in `npm run test:erp` only (vitest.config.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSink, jsonrpcConnectionSchema, openRpcClient, type RpcClient, type Sink, type SinkResult } from '../../../src/erp/index.js';
import { silentLogger } from '../../../src/log.js';
import { requireService } from '../../support/services.js';
import { requireTryton, trytonDatabase, type TrytonDatabase, type TrytonServer } from '../../support/tryton.js';

const tryton = await requireTryton();
const pgService = await requireService('postgres');

/** A proxy in front of trytond that can drop the answer to the next create after Tryton answered it. */
async function answerDropper(upstream: string): Promise<{ url: string; dropNextCreate(): void; dropped(): number; close(): Promise<void> }> {
  let drop = false;
  let dropped = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString();
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (req.headers.authorization) headers.authorization = req.headers.authorization;
      const answer = await fetch(new URL(req.url ?? '/', upstream), { method: 'POST', headers, body });
      const text = await answer.text();
      if (drop && body.includes('"model.sale.sale.create"')) {
        drop = false;
        dropped++;
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    dropNextCreate: () => void (drop = true),
    dropped: () => dropped,
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  };
}

describe.skipIf(!tryton.available || !pgService.available)('the jsonrpc sink into a real Tryton 6.0', () => {
  let db: TrytonDatabase;
  let server: TrytonServer;
  let proxy: Awaited<ReturnType<typeof answerDropper>>;
  let client: RpcClient;
  let sink: Sink;
  let party: number;
  let product: { id: number; uom: number };
  let salesBefore: number;

  const connection = () => ({ kind: 'jsonrpc' as const, dialect: 'tryton' as const, url: proxy.url, database: db.name, login: 'admin', password: 'admin', retries: 2, backoffMs: 10 });
  const order = (ref: string, withParty = true) => ({ shop_order: ref, ...(withParty ? { party } : {}), description: `shop order ${ref}`, lines: [{ product: product.id, quantity: 2, unit: product.uom, unit_price: '12.50' }] });
  const salesOf = (ref: string) => client.searchRead('sale.sale', [['reference', '=', ref]], ['id', 'state', 'company', 'party', 'lines', 'total_amount']);

  beforeAll(async () => {
    db = await trytonDatabase(tryton);
    await db.data('setup');
    server = await db.startServer();
    proxy = await answerDropper(server.url.replace(/[^/]+\/$/, ''));
    client = await openRpcClient(jsonrpcConnectionSchema.parse(connection()), { logger: silentLogger });
    [{ id: party }] = (await client.searchRead('party.party', [['name', '=', 'Customer Erika']], ['id'])) as [{ id: number }];
    const [kettle] = await client.searchRead('product.product', [['code', '=', 'K-100']], ['id', 'default_uom']);
    product = { id: kettle!.id as number, uom: kettle!.default_uom as number };
    salesBefore = (await client.search('sale.sale', [])).length;
    sink = await createSink(connection(), { model: 'sale.sale', reference: { field: 'reference', from: 'shop_order' }, one2many: ['lines'] }, { logger: silentLogger, baseDir: '.' });
  }, 1_500_000);
  afterAll(async () => {
    await sink?.close();
    await client?.close();
    await proxy?.close();
    await db?.close();
  });

  it("creates one draft sale per record in the admin's company with its lines, and refuses the one without a party with Tryton's message", async () => {
    const result = (await sink.write({ id: 't1', records: [order('SHOP-1'), order('SHOP-2', false)] })) as SinkResult;
    expect(result.outcomes[0]).toEqual({ kind: 'created' });
    expect(result.outcomes[1]).toMatchObject({ kind: 'refused', code: 'JSONRPC_RECORD_REFUSED', message: expect.stringContaining('A value is required for field "Party" in "Sale".') });
    const [sale] = await salesOf('SHOP-1');
    expect(sale).toMatchObject({ state: 'draft', party, total_amount: '25.00' });
    expect(sale!.company).toEqual(expect.any(Number));
    expect(sale!.lines).toHaveLength(1);
    expect(await salesOf('SHOP-2')).toEqual([]);
    expect((await client.search('sale.sale', [])).length).toBe(salesBefore + 1);
  });

  it('creates the refused one once when it comes again fixed, and leaves the sale already there untouched', async () => {
    const result = (await sink.write({ id: 't2', records: [{ ...order('SHOP-1'), description: 'changed in the shop' }, order('SHOP-2')] })) as SinkResult;
    expect(result.outcomes).toEqual([{ kind: 'updated' }, { kind: 'created' }]);
    expect(await salesOf('SHOP-1')).toHaveLength(1);
    expect((await client.searchRead('sale.sale', [['reference', '=', 'SHOP-1']], ['description']))[0]!.description).toBe('shop order SHOP-1');
    expect(await salesOf('SHOP-2')).toHaveLength(1);
    expect((await client.search('sale.sale', [])).length).toBe(salesBefore + 2);
  });

  it('logs in again when Tryton ended the session, and creates once', async () => {
    const admin = new pg.Client({ host: pgService.host, port: pgService.port, user: pgService.user, database: db.name });
    await admin.connect();
    let sessions: number;
    try {
      await admin.query('DELETE FROM ir_session');
      const result = (await sink.write({ id: 't3', records: [order('SHOP-3')] })) as SinkResult;
      expect(result.outcomes).toEqual([{ kind: 'created' }]);
      // Every session was gone: the one there now is the sink's new login.
      sessions = Number((await admin.query('SELECT count(*) AS n FROM ir_session')).rows[0].n);
    } finally {
      await admin.end();
    }
    expect(sessions).toBe(1);
    expect(await salesOf('SHOP-3')).toHaveLength(1);
  });

  it('finds a sale whose create answer was lost by its reference, and does not make a second', async () => {
    proxy.dropNextCreate();
    const result = (await sink.write({ id: 't4', records: [order('SHOP-4'), order('SHOP-5')] })) as SinkResult;
    expect(proxy.dropped()).toBe(1);
    expect(result.outcomes).toEqual([{ kind: 'created' }, { kind: 'created' }]);
    expect(await salesOf('SHOP-4')).toHaveLength(1);
    expect(await salesOf('SHOP-5')).toHaveLength(1);
    expect((await client.search('sale.sale', [])).length).toBe(salesBefore + 5);
  });
});
