/**
 * Shop orders pulled from the sandbox into a Tryton of the test's own (./trytonServer.ts, trytond
 * 6.0's envelope) through a jsonrpc sink, end to end: each order becomes exactly one sale, also
 * after a lost answer and an expired session; the order Tryton refuses (a required field the
 * mapping left empty) is a dead letter with Tryton's message, and after the mapping is fixed the
 * retry creates it once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSink } from '../../../src/erp/index.js';
import { silentLogger } from '../../../src/log.js';
import type { CompiledMapping } from '../../../src/mapping/types.js';
import { retryDeadLetters, runPipeline } from '../../../src/pipeline/index.js';
import { mappingFile, pushFixture, type PushFixture } from '../../pipeline/support.js';
import { startFakeTryton, type FakeTryton } from './trytonServer.js';

const mappingYaml = (party: string) => `
name: orders-to-tryton
direction: shop-to-erp
source: { resource: orders }
target: { erp: sale.sale }
key: orders_id
fields:
  shop_order: { from: orders_id, type: string }
  party: ${party}
  description: { template: "Shop order {orders_id}" }
  lines:
    each: products
    fields:
      product: { from: products_model }
      quantity: { from: quantity, type: decimal, locale: point }
      unit_price: { from: products_price, type: decimal, locale: point }
`;

const def = { name: 'orders-to-tryton', direction: 'pull' as const, sink: { connection: 'tryton' }, mapping: 'orders-to-tryton.yaml', resource: 'orders', options: { overlapDays: 30 } };

function order(n: number, company: string | undefined): Record<string, unknown> {
  return {
    customers_id: 0,
    auto_stock: false,
    tax_flag: 0,
    date_purchased: `2025-03-0${1 + (n % 5)} 12:00:00`,
    billing: { firstname: 'Erika', lastname: `Muster ${n}`, ...(company ? { company } : {}), street_address: 'Hauptstr. 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE' },
    products: [{ products_model: `ART-${n}`, products_name: `Artikel ${n}`, quantity: 2, products_price: 10 }],
  };
}

let f: PushFixture;
let tryton: FakeTryton;
let ids: number[];

beforeEach(async () => {
  f = await pushFixture();
  tryton = await startFakeTryton();
  // The party is read from the billing company: order #3 has none, so Tryton refuses it (Party is required).
  const created = await f.shop.create('orders', Array.from({ length: 5 }, (_, i) => order(i, i === 3 ? undefined : `Firma ${i}`)));
  expect(created.outcomes.every((o) => o.ok)).toBe(true);
  ids = created.outcomes.map((o) => Number(o.data!.orders_id));
});
afterEach(async () => {
  await tryton.close();
  await f.close();
});

const deps = (mapping: CompiledMapping) => ({
  state: f.state,
  shop: f.shop,
  mapping,
  sink: () =>
    createSink(
      { kind: 'jsonrpc', dialect: 'tryton', url: tryton.url, database: tryton.database, login: 'admin', password: 'tryton-s3cret', retries: 2, backoffMs: 1 },
      { model: 'sale.sale', reference: { field: 'reference', from: 'shop_order' }, one2many: ['lines'] },
      { logger: silentLogger, baseDir: f.dir, env: {} },
    ),
});
const references = () => tryton.records.get('sale.sale')!.map((s) => s.reference).sort();

describe('a pull of shop orders into Tryton over JSON-RPC', () => {
  it('makes one sale per order with its lines, letters the order Tryton refuses with its message, and creates it once after the mapping is fixed', async () => {
    const broken = await mappingFile(f.dir, 'orders-to-tryton', mappingYaml('billing.company'));
    const summary = await runPipeline(def, deps(broken));
    expect(summary).toMatchObject({ status: 'partial', counts: { read: 5, created: 4, failed: 1, deadLettered: 1 } });
    expect(references()).toEqual(ids.filter((_, i) => i !== 3).map(String).sort());
    expect(tryton.records.get('sale.line')).toHaveLength(4);
    const [letter] = await f.state.deadLetters.list({ pipeline: def.name });
    expect(letter).toMatchObject({ erpKey: String(ids[3]), code: 'JSONRPC_RECORD_REFUSED' });
    expect(letter!.reason).toContain('A value is required for field "Party" in "Sale".');

    const fixed = await mappingFile(f.dir, 'orders-to-tryton', mappingYaml('{ from: billing.company, default: "walk-in" }'));
    const retry = await retryDeadLetters(def, deps(fixed));
    expect(retry).toMatchObject({ status: 'succeeded', counts: { created: 1, deadLettered: 0 } });
    expect(references()).toEqual(ids.map(String).sort());
    expect(await f.state.deadLetters.list({ pipeline: def.name })).toEqual([]);
  });

  it('makes exactly one sale per order under a lost answer and an expired session, and none on the next pull', async () => {
    const mapping = await mappingFile(f.dir, 'orders-to-tryton', mappingYaml('{ from: billing.company, default: "walk-in" }'));
    tryton.dropNextCreateAnswer();
    const first = await runPipeline(def, deps(mapping));
    expect(first).toMatchObject({ status: 'succeeded', counts: { read: 5, created: 5, deadLettered: 0 } });
    expect(references()).toEqual(ids.map(String).sort());
    // The batch's create was carried out and its answer lost: found by reference, not sent again.
    expect(tryton.requests.filter((r) => r.method === 'model.sale.sale.create')).toHaveLength(1);

    tryton.expireSessions();
    const next = await runPipeline(def, deps(mapping));
    expect(next).toMatchObject({ status: 'succeeded', counts: { created: 0, unchanged: 5 } });
    expect(tryton.records.get('sale.sale')).toHaveLength(5);
  });

  it('fails the run, counting nothing delivered, when the login is refused', async () => {
    const mapping = await mappingFile(f.dir, 'orders-to-tryton', mappingYaml('billing.company'));
    const summary = await runPipeline(def, {
      ...deps(mapping),
      sink: () => createSink({ kind: 'jsonrpc', dialect: 'tryton', url: tryton.url, database: tryton.database, login: 'admin', password: 'wrong-pass', retries: 0 }, { model: 'sale.sale', reference: { field: 'reference', from: 'shop_order' } }, { logger: silentLogger, baseDir: f.dir }),
    });
    expect(summary).toMatchObject({ status: 'failed', error: { code: 'JSONRPC_LOGIN_FAILED' }, counts: { created: 0 } });
    expect(tryton.records.get('sale.sale')).toEqual([]);
  });
});
