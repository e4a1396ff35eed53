/**
 * A real Tryton 6.0 answers its errors with HTTP 200 (`{"id":1,"error":["UserError",[…]]}`): a pull
 * of shop orders through the HTTP sink into `model.sale.sale.create` must never count such an answer
 * as delivered (issue 41). The order whose sale Tryton refuses is a dead letter with Tryton's message
 * and no sale exists; once the mapping is fixed, the retry creates exactly one sale. Tryton's sales
 * are counted through Tryton before and after. Runs in `npm run test:erp` only (vitest.config.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSink, type ConnectionInput } from '../../../src/erp/index.js';
import { silentLogger } from '../../../src/log.js';
import type { CompiledMapping } from '../../../src/mapping/types.js';
import { retryDeadLetters, runPipeline } from '../../../src/pipeline/index.js';
import { mappingFile, pushFixture, type PushFixture } from '../../pipeline/support.js';
import { requireService } from '../../support/services.js';
import { requireTryton, trytonDatabase, type TrytonDatabase, type TrytonServer } from '../../support/tryton.js';

const tryton = await requireTryton();
const pgService = await requireService('postgres');

/** The order as a Tryton sale, without the party Tryton requires. */
const WITHOUT_PARTY = `
name: orders-to-tryton
direction: shop-to-erp
source: { resource: orders }
target: { erp: sale.sale }
key: orders_id
fields:
  reference: { from: orders_id, type: string }
  description: { template: "shop order {orders_id}" }
`;
/** The same with the party, company and currency Tryton wants. */
const withParty = (party: number, company: number, currency: number) => `${WITHOUT_PARTY}
  party: { value: ${party} }
  company: { value: ${company} }
  currency: { value: ${currency} }
`;

const ORDER = {
  customers_id: 0,
  auto_stock: false,
  tax_flag: 0,
  date_purchased: '2025-03-01 12:00:00',
  billing: { firstname: 'Erika', lastname: 'Muster', street_address: 'Hauptstr. 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE' },
  products: [{ products_model: 'ART-1', products_name: 'Artikel 1', quantity: 1, products_price: 10 }],
};

describe.skipIf(!tryton.available || !pgService.available)('Tryton 6.0 behind the HTTP sink: a JSON-RPC error answered with 200 is never delivered', () => {
  let db: TrytonDatabase;
  let server: TrytonServer;
  let f: PushFixture;
  let session: string;
  let orderId: number;

  beforeAll(async () => {
    db = await trytonDatabase(tryton);
    await db.data('setup');
    server = await db.startServer();
    const login = (await (await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 1, method: 'common.db.login', params: ['admin', { password: 'admin' }] }) })).json()) as { result: [number, string] };
    session = Buffer.from(`admin:${login.result[0]}:${login.result[1]}`).toString('base64');
    f = await pushFixture();
    const created = await f.shop.create('orders', [ORDER]);
    expect(created.outcomes[0]!.ok, JSON.stringify(created.outcomes[0]!.error)).toBe(true);
    orderId = Number(created.outcomes[0]!.data!.orders_id);
  }, 1_500_000);
  afterAll(async () => {
    await f?.close();
    await server?.close();
    await db?.close();
  });

  const sales = async () => (await server.call('model.sale.sale.search', [[['reference', '=', String(orderId)]], 0, null, null, {}])) as number[];
  const conn = (): ConnectionInput => ({ kind: 'http', baseUrl: server.url, auth: { header: 'Authorization', value: `Session ${session}` }, retries: 0 });
  const def = { name: 'orders-to-tryton', direction: 'pull' as const, sink: { connection: 'tryton' }, mapping: 'orders-to-tryton.yaml', resource: 'orders' };
  const deps = (mapping: CompiledMapping) => ({
    state: f.state,
    shop: f.shop,
    mapping,
    sink: () => createSink(conn(), { path: './', body: { id: 1, method: 'model.sale.sale.create', params: ['$records', {}] }, protocol: 'jsonrpc', results: 'result' }, { logger: silentLogger, baseDir: f.dir }),
  });

  it("letters the order Tryton refused with Tryton's message, creates no sale, and after the fix the retry creates exactly one", async () => {
    const before = (await server.call('model.sale.sale.search_count', [[], {}])) as number;
    const summary = await runPipeline(def, deps(await mappingFile(f.dir, 'orders-to-tryton', WITHOUT_PARTY)));
    expect(summary).toMatchObject({ status: 'partial', counts: { read: 1, created: 0, deadLettered: 1 } });
    const [letter] = await f.state.deadLetters.list({ pipeline: def.name });
    expect(letter).toMatchObject({ erpKey: String(orderId), code: 'SINK_RECORD_REFUSED' });
    // Tryton names the first required field it misses (the company, which this session's context does not give).
    expect(letter!.reason).toMatch(/refused the record: UserError: A value is required for field "\w+" in "Sale"\. Fix the data or the mapping/);
    expect(await server.call('model.sale.sale.search_count', [[], {}])).toBe(before);
    expect(await f.state.events.list({ pipeline: def.name, outcome: 'delivered' })).toEqual([]);

    const [party] = (await server.call('model.party.party.search', [[], 0, 1, null, {}])) as number[];
    const [company] = (await server.call('model.company.company.search', [[], 0, 1, null, {}])) as number[];
    const [currency] = (await server.call('model.currency.currency.search', [[['code', '=', 'EUR']], 0, 1, null, {}])) as number[];
    const fixed = deps(await mappingFile(f.dir, 'orders-to-tryton', withParty(party!, company!, currency!)));
    const retry = await retryDeadLetters(def, fixed);
    expect(retry).toMatchObject({ status: 'succeeded', counts: { created: 1, deadLettered: 0 } });
    expect(await sales()).toHaveLength(1);
    expect(await server.call('model.sale.sale.search_count', [[], {}])).toBe(before + 1);
    // The next pull finds it delivered: still one sale.
    const next = await runPipeline(def, fixed);
    expect(next).toMatchObject({ status: 'succeeded', counts: { created: 0, unchanged: 1 } });
    expect(await sales()).toHaveLength(1);
  }, 300_000);
});
