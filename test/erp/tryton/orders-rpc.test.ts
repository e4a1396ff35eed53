/**
 * Shop orders into a real Tryton 6.0 through JSON-RPC: an order placed in the sandbox shop becomes
 * exactly one Tryton `sale.sale` through the jsonrpc sink, its party found by the order's e-mail
 * (a party Tryton holds with an e-mail contact mechanism, or one created from the order where the
 * lookup says `create:`), each line's product by its code and unit by the product's default unit
 * (`lookups:` searching Tryton's models), quantities and unit prices as the shop sold them. Tryton's
 * sales are counted before and after: exactly one per order, also when the answer to a create is
 * lost (a proxy of the test's own forwards it to trytond and drops the answer) and when every
 * session was deleted (trytond's timeout). A sale Tryton refuses (a line without its unit) is a
 * dead letter carrying Tryton's message, and once the mapping is fixed the retry creates it once.
 * Runs in `npm run test:erp` only (vitest.config.ts).
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSink, type ConnectionInput } from '../../../src/erp/index.js';
import { silentLogger } from '../../../src/log.js';
import { loadMapping } from '../../../src/mapping/index.js';
import { lookupConnections } from '../../../src/pipeline/lookups/index.js';
import { retryDeadLetters, runPipeline, type PipelineDefinitionInput } from '../../../src/pipeline/index.js';
import { pushFixture, type PushFixture } from '../../pipeline/support.js';
import { requireService } from '../../support/services.js';
import { requireTryton, trytonDatabase, type TrytonDatabase, type TrytonServer } from '../../support/tryton.js';

const run = promisify(execFile);
const tryton = await requireTryton();
const pgService = await requireService('postgres');
const SCRIPT = resolve(import.meta.dirname, 'tryton_orders_rpc.py');

/** A sale as Tryton holds it (proteus). */
interface TrytonSale {
  id: number;
  reference: string | null;
  party: number | null;
  state: string;
  lines: { product: string | null; quantity: number; unit: string | null; unit_price: string | null }[];
}

const LINES = (unit: boolean) => `
  lines:
    each: products
    fields:
      product: { from: products_model, lookup: product_by_code }
${unit ? '      unit: { from: products_model, lookup: unit_by_code }\n' : ''}      quantity: { from: quantity, type: number }
      unit_price:
        fields:
          __class__: { value: Decimal }
          decimal: { from: products_price, type: decimal, locale: point }
`;
const MAPPING = (unit = true) => `
name: orders-into-tryton
direction: shop-to-erp
source: { resource: orders }
target: { erp: sale.sale }
key: orders_id
fields:
  reference: { from: orders_id, type: string }
  party: { from: customers_email_address, lookup: party_by_email }
  description: { template: "Shop order {orders_id}" }
${LINES(unit)}`;

/** A proxy between shopsync and trytond that can forward a create and then drop its answer. */
async function startProxy(target: string): Promise<{ url: string; dropNextCreateAnswer(): void; dropped: number; close(): Promise<void> }> {
  let drop = false;
  const state = { dropped: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        let method = '';
        try {
          method = String((JSON.parse(body.toString('utf8')) as { method?: unknown }).method ?? '');
        } catch {
          // Not JSON: forwarded as it is.
        }
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (req.headers.authorization) headers.authorization = req.headers.authorization;
        const upstream = await fetch(new URL(req.url ?? '/', target), { method: req.method ?? 'POST', headers, body: req.method === 'GET' ? undefined : body });
        const answer = Buffer.from(await upstream.arrayBuffer());
        if (drop && method === 'model.sale.sale.create') {
          // trytond committed the create; shopsync never hears of it.
          drop = false;
          state.dropped++;
          req.socket.destroy();
          return;
        }
        res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
        res.end(answer);
      })().catch((err: unknown) => {
        res.writeHead(502);
        res.end(String(err));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    dropNextCreateAnswer: () => void (drop = true),
    get dropped() {
      return state.dropped;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe.skipIf(!tryton.available || !pgService.available)('shop orders into Tryton 6.0 through JSON-RPC: one sale per order', { timeout: 600_000 }, () => {
  let db: TrytonDatabase;
  let server: TrytonServer;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let f: PushFixture;
  let erika: number;
  let connection: ConnectionInput;

  async function python<T>(action: string, ...args: string[]): Promise<T> {
    try {
      const { stdout } = await run('/usr/bin/python3', [SCRIPT, db.conf, db.name, action, ...args], { maxBuffer: 16 * 1024 * 1024 });
      return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as T;
    } catch (err) {
      const e = err as Error & { stderr?: string };
      throw new Error(`tryton_orders_rpc.py ${action} failed: ${e.message}\n${(e.stderr ?? '').slice(-3000)}`);
    }
  }
  const sales = async () => (await python<{ sales: TrytonSale[] }>('sales')).sales;
  // Counted by Tryton itself (proteus): the helper's own RPC session ends with the others when the sessions are deleted.
  const saleCount = async () => (await sales()).length;

  beforeAll(async () => {
    f = await pushFixture();
    db = await trytonDatabase(tryton);
    await db.data('setup');
    ({ party: erika } = await python<{ party: number }>('customer', 'erika@example.com', 'Erika Muster'));
    server = await db.startServer();
    proxy = await startProxy(new URL('/', server.url).toString());
    // No company in the connection: the client sends the user's preferences (their company) as every call's context.
    connection = { kind: 'jsonrpc', dialect: 'tryton', url: proxy.url, database: db.name, login: 'admin', password: 'admin', retries: 2, backoffMs: 50 };
  }, 1_800_000);
  afterAll(async () => {
    await proxy?.close();
    await db?.close();
    await f?.close();
  });

  const LOOKUPS = {
    party_by_email: { connection: 'tryton', model: 'party.party', field: 'contact_mechanisms.value' },
    product_by_code: { connection: 'tryton', model: 'product.product', field: 'code' },
    unit_by_code: { connection: 'tryton', model: 'product.product', field: 'code', returns: 'default_uom' },
  };
  const def = (lookups: PipelineDefinitionInput['lookups'] = LOOKUPS): PipelineDefinitionInput => ({ name: 'orders-into-tryton', direction: 'pull', sink: { connection: 'tryton' }, lookups, mapping: 'orders-into-tryton.yaml', resource: 'orders', options: { sinkBatchSize: 5 } });
  async function deps(unit = true) {
    writeFileSync(join(f.dir, 'orders-into-tryton.yaml'), MAPPING(unit));
    const ctx = { logger: silentLogger, baseDir: f.dir, env: {} };
    return {
      state: f.state,
      shop: f.shop,
      mapping: await loadMapping(join(f.dir, 'orders-into-tryton.yaml')),
      lookups: () => lookupConnections({ tryton: connection }, ctx),
      sink: () => createSink(connection, { model: 'sale.sale', reference: { field: 'reference' }, one2many: ['lines'] }, ctx),
    };
  }
  async function place(email: string, lines: readonly [code: string, quantity: number, price: number][]): Promise<number> {
    const created = await f.shop.create('orders', [
      {
        customers_id: 0,
        auto_stock: false,
        tax_flag: 0,
        billing: { firstname: 'Erika', lastname: 'Muster', street_address: 'Hauptstr. 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE', email_address: email },
        products: lines.map(([code, quantity, price]) => ({ products_model: code, products_name: code, quantity, products_price: price })),
      },
    ]);
    expect(created.outcomes[0]!.ok, JSON.stringify(created.outcomes[0]!.error)).toBe(true);
    return Number(created.outcomes[0]!.data!.orders_id);
  }
  /** Tryton's sales of a shop order (by `reference`). */
  const salesOf = async (order: number) => (await sales()).filter((s) => s.reference === String(order));

  it("makes exactly one sale of an order: the party found by e-mail, products by code, units by the product's default unit, quantities and prices as sold", async () => {
    const before = await saleCount();
    const order = await place('erika@example.com', [['K-100', 2, 24.9], ['MUG-1', 1, 7.5]]);
    const summary = await runPipeline(def(), await deps());
    expect(summary, JSON.stringify(summary.error)).toMatchObject({ status: 'succeeded', counts: { created: 1, deadLettered: 0 } });
    expect(await saleCount()).toBe(before + 1);
    const [sale, ...more] = await salesOf(order);
    expect(more).toEqual([]);
    expect(sale).toMatchObject({ party: erika, state: 'draft' });
    expect(sale!.lines.map((l) => ({ ...l, unit_price: Number(l.unit_price) }))).toEqual([
      { product: 'K-100', quantity: 2, unit: 'Unit', unit_price: 24.9 },
      { product: 'MUG-1', quantity: 1, unit: 'Unit', unit_price: 7.5 },
    ]);
    // Read again, nothing new: no second sale.
    expect(await runPipeline(def(), await deps())).toMatchObject({ status: 'succeeded', counts: { created: 0 } });
    expect(await saleCount()).toBe(before + 1);
  });

  it('makes one sale, not two, when the answer to the create was lost after trytond committed it', async () => {
    const before = await saleCount();
    const order = await place('erika@example.com', [['CB-1', 0.5, 12.49]]);
    proxy.dropNextCreateAnswer();
    const first = await runPipeline(def(), await deps());
    expect(proxy.dropped).toBe(1);
    // However the run took the lost answer, the next one finds the sale by its reference.
    const second = await runPipeline(def(), await deps());
    expect([first.status, second.status]).toContain('succeeded');
    expect(await saleCount()).toBe(before + 1);
    const found = await salesOf(order);
    expect(found).toHaveLength(1);
    expect(found[0]!.lines).toMatchObject([{ product: 'CB-1', quantity: 0.5, unit: 'Kilogram' }]);
  });

  it('makes one sale after trytond forgot every session (its timeout): shopsync logs in again', async () => {
    await runPipeline(def(), await deps());
    expect((await python<{ deleted: number }>('expire_sessions')).deleted).toBeGreaterThan(0);
    const before = await saleCount();
    const order = await place('erika@example.com', [['TS-M', 3, 15]]);
    expect(await runPipeline(def(), await deps())).toMatchObject({ status: 'succeeded', counts: { created: 1 } });
    expect(await saleCount()).toBe(before + 1);
    expect(await salesOf(order)).toHaveLength(1);
  });

  it("dead-letters a sale Tryton refuses with Tryton's message, and the retry after the mapping is fixed creates it once", async () => {
    const before = await saleCount();
    const order = await place('erika@example.com', [['K-100', 1, 24.9]]);
    const refused = await runPipeline(def(), await deps(false));
    expect(refused).toMatchObject({ status: 'partial', counts: { created: 0, deadLettered: 1 } });
    const letter = await f.state.deadLetters.getByKey('orders-into-tryton', String(order));
    expect(letter?.reason).toContain('A value is required for field "Unit" in "Sale Line"');
    expect(await saleCount()).toBe(before);

    const retried = await retryDeadLetters(def(), await deps(true));
    expect(retried).toMatchObject({ status: 'succeeded', counts: { created: 1, deadLettered: 0 } });
    expect(await saleCount()).toBe(before + 1);
    expect(await retryDeadLetters(def(), await deps(true))).toMatchObject({ counts: { read: 0 } });
    expect(await runPipeline(def(), await deps(true))).toMatchObject({ counts: { created: 0 } });
    expect(await salesOf(order)).toHaveLength(1);
  });

  it('creates the party of an unknown e-mail from the order where the lookup says create:, once for every order of that e-mail', async () => {
    const lookups = {
      ...LOOKUPS,
      party_by_email: {
        ...LOOKUPS.party_by_email,
        create: { values: { name: '{record.billing.firstname} {record.billing.lastname}', contact_mechanisms: [['create', [{ type: 'email', value: '{value}' }]]] } },
      },
    };
    const before = await saleCount();
    const first = await place('new.customer@example.com', [['MUG-1', 2, 7.5]]);
    expect(await runPipeline(def(lookups), await deps())).toMatchObject({ status: 'succeeded', counts: { created: 1 } });
    const second = await place('new.customer@example.com', [['MUG-1', 1, 7.5]]);
    expect(await runPipeline(def(lookups), await deps())).toMatchObject({ status: 'succeeded', counts: { created: 1 } });
    expect(await saleCount()).toBe(before + 2);
    const [a] = await salesOf(first);
    const [b] = await salesOf(second);
    expect(a!.party).not.toBe(erika);
    expect(b!.party).toBe(a!.party);
    expect((await python<{ parties: number[] }>('parties', 'new.customer@example.com')).parties).toEqual([a!.party]);
  });

  it('counts one sale per order placed, in the end', async () => {
    const all = await sales();
    const refs = all.map((s) => s.reference).filter((r): r is string => r !== null);
    expect(new Set(refs).size).toBe(refs.length);
  });
});
