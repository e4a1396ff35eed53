/**
 * A shop cancellation reaching a real Tryton 6.0 through the jsonrpc sink's `cancel:` (issue 44).
 *
 * An order pulled into Tryton as a draft (or quotation) sale, then cancelled in the sandbox shop
 * (PUT orders_status 4), reaches Tryton on the next pull run as a cancelled sale: Tryton's own
 * `sale.sale.cancel` button called once, one sale for the order (counted and read by proteus); a
 * further run calls nothing. A sale a person confirmed in Tryton meanwhile is not touched and the
 * order is a dead letter naming the sale, its number and its state. An order cancelled before its
 * first pull arrives once, as a cancelled sale (created and cancelled in the same batch). A cancel
 * whose answer is lost (a proxy of the test's own drops it after trytond committed) is read back and
 * not sent again; a sale confirmed by a person between the sink's search and its cancel call (Tryton's
 * button skips it silently) is read back and refused with its state. A later change of a cancelled
 * order (a comment) finds the sale cancelled and calls nothing. A letter's way out: a person cancels
 * the sale in Tryton, `dlq retry` finds it cancelled and resolves the letter without a call.
 *
 * The re-delivery here is the pull's normal delta re-read: the orders are placed today, so the next
 * run reads today again and sees their new hash. The follow pass (issue 44, src/follow/pass.ts)
 * delivers the same re-delivery for orders older than the delta window, through the same sink.
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
const SCRIPT = resolve(import.meta.dirname, 'tryton_follow.py');
const CANCELLED = 4;

/** A sale as Tryton holds it (proteus). */
interface TrytonSale {
  id: number;
  reference: string | null;
  number: string | null;
  state: string;
  lines: number;
}

const MAPPING = `
name: orders-into-tryton
direction: shop-to-erp
source: { resource: orders }
target: { erp: sale.sale }
key: orders_id
fields:
  reference: { from: orders_id, type: string }
  shop_status: { from: orders_status, type: integer }
  party: { from: customers_email_address, lookup: party_by_email }
  description: { template: "Shop order {orders_id}" }
  lines:
    each: products
    fields:
      product: { from: products_model, lookup: product_by_code }
      unit: { from: products_model, lookup: unit_by_code }
      quantity: { from: quantity, type: number }
      unit_price:
        fields:
          __class__: { value: Decimal }
          decimal: { from: products_price, type: decimal, locale: point }
`;

/** A proxy in front of trytond counting the methods called, which can drop the answer to the next cancel after trytond committed it. */
async function countingProxy(target: string): Promise<{ url: string; calls: Map<string, number>; dropNextCancelAnswer(): void; dropped(): number; beforeNextCancel(hook: () => Promise<void>): void; close(): Promise<void> }> {
  const calls = new Map<string, number>();
  let drop = false;
  let dropped = 0;
  let before: (() => Promise<void>) | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const method = String((JSON.parse(body.toString('utf8')) as { method?: unknown }).method ?? '');
        calls.set(method, (calls.get(method) ?? 0) + 1);
        if (before && method === 'model.sale.sale.cancel') {
          const hook = before;
          before = undefined;
          await hook();
        }
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (req.headers.authorization) headers.authorization = req.headers.authorization;
        const upstream = await fetch(new URL(req.url ?? '/', target), { method: 'POST', headers, body });
        const answer = Buffer.from(await upstream.arrayBuffer());
        if (drop && method === 'model.sale.sale.cancel') {
          drop = false;
          dropped++;
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
    calls,
    dropNextCancelAnswer: () => void (drop = true),
    dropped: () => dropped,
    beforeNextCancel: (hook) => void (before = hook),
    close: () => new Promise<void>((r) => (server.close(() => r()), server.closeAllConnections())),
  };
}

describe.skipIf(!tryton.available || !pgService.available)('a shop cancellation reaches Tryton 6.0 through the jsonrpc sink', { timeout: 600_000 }, () => {
  let db: TrytonDatabase;
  let server: TrytonServer;
  let proxy: Awaited<ReturnType<typeof countingProxy>>;
  let f: PushFixture;
  let connection: ConnectionInput;

  async function python<T>(action: string, ...args: string[]): Promise<T> {
    try {
      const { stdout } = await run('/usr/bin/python3', [SCRIPT, db.conf, db.name, action, ...args], { maxBuffer: 16 * 1024 * 1024 });
      return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as T;
    } catch (err) {
      const e = err as Error & { stderr?: string };
      throw new Error(`tryton_follow.py ${action} failed: ${e.message}\n${(e.stderr ?? '').slice(-3000)}`);
    }
  }
  /** Tryton's sales of a shop order (by `reference`), read by proteus. */
  const salesOf = async (order: number) => (await python<{ sales: TrytonSale[] }>('sales')).sales.filter((s) => s.reference === String(order));
  const cancelCalls = () => proxy.calls.get('model.sale.sale.cancel') ?? 0;

  beforeAll(async () => {
    f = await pushFixture();
    db = await trytonDatabase(tryton);
    await db.data('setup');
    await python('customer', 'erika@example.com', 'Erika Muster');
    server = await db.startServer();
    proxy = await countingProxy(new URL('/', server.url).toString());
    connection = { kind: 'jsonrpc', dialect: 'tryton', url: proxy.url, database: db.name, login: 'admin', password: 'admin', retries: 2, backoffMs: 50 };
    writeFileSync(join(f.dir, 'orders-into-tryton.yaml'), MAPPING);
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
  const def: PipelineDefinitionInput = { name: 'orders-into-tryton', direction: 'pull', sink: { connection: 'tryton' }, lookups: LOOKUPS, mapping: 'orders-into-tryton.yaml', resource: 'orders', options: { sinkBatchSize: 5 } };
  async function deps(states?: string[]) {
    const ctx = { logger: silentLogger, baseDir: f.dir, env: {} };
    return {
      state: f.state,
      shop: f.shop,
      mapping: await loadMapping(join(f.dir, 'orders-into-tryton.yaml')),
      lookups: () => lookupConnections({ tryton: connection }, ctx),
      sink: () => createSink(connection, { model: 'sale.sale', reference: { field: 'reference' }, one2many: ['lines'], cancel: { from: 'shop_status', values: [CANCELLED], ...(states ? { states } : {}) } }, ctx),
    };
  }
  const pull = async () => runPipeline(def, await deps());
  async function place(): Promise<number> {
    const created = await f.shop.create('orders', [
      {
        customers_id: 0,
        auto_stock: false,
        tax_flag: 0,
        billing: { firstname: 'Erika', lastname: 'Muster', street_address: 'Hauptstr. 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE', email_address: 'erika@example.com' },
        products: [{ products_model: 'K-100', products_name: 'Kettle', quantity: 1, products_price: 24.9 }],
      },
    ]);
    expect(created.outcomes[0]!.ok, JSON.stringify(created.outcomes[0]!.error)).toBe(true);
    return Number(created.outcomes[0]!.data!.orders_id);
  }
  async function cancelInShop(order: number): Promise<void> {
    const updated = await f.shop.update('orders', [{ orders_id: order, orders_status: CANCELLED, comments: 'cancelled by the customer' }]);
    expect(updated.outcomes[0]!.ok, JSON.stringify(updated.outcomes[0]!.error)).toBe(true);
  }

  it('cancels the draft sale of an order cancelled in the shop on the next run, once; a further run calls nothing', async () => {
    const order = await place();
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 1, deadLettered: 0 } });
    // shop_status is the sink's signal, not a field of sale.sale: Tryton would refuse the create if it were sent.
    expect(await salesOf(order)).toMatchObject([{ state: 'draft', lines: 1 }]);
    expect(cancelCalls()).toBe(0);

    await cancelInShop(order);
    const calls = cancelCalls();
    const cancelled = await pull();
    expect(cancelled, JSON.stringify(cancelled.error)).toMatchObject({ status: 'succeeded', counts: { created: 0, updated: 1, deadLettered: 0 } });
    expect(cancelCalls()).toBe(calls + 1);
    const [sale, ...more] = await salesOf(order);
    expect(more).toEqual([]);
    expect(sale).toMatchObject({ state: 'cancelled', lines: 1 });

    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 0, updated: 0, deadLettered: 0 } });
    expect(cancelCalls()).toBe(calls + 1);
    expect(await salesOf(order)).toMatchObject([{ id: sale!.id, state: 'cancelled' }]);

    // A later change of the cancelled order (a comment) is delivered again: the sale is found cancelled, the button is not called.
    const commented = await f.shop.update('orders', [{ orders_id: order, status_history: [{ orders_status_id: CANCELLED, comments: 'refund sent' }] }]);
    expect(commented.outcomes[0]!.ok, JSON.stringify(commented.outcomes[0]!.error)).toBe(true);
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 0, updated: 0, unchanged: 1, deadLettered: 0 } });
    expect(cancelCalls()).toBe(calls + 1);
    expect(await salesOf(order)).toMatchObject([{ id: sale!.id, state: 'cancelled' }]);
  });

  it("refuses to open with a cancel state Tryton's sale.sale does not have (Odoo's `sent`), naming Tryton's states", async () => {
    const ctx = { logger: silentLogger, baseDir: f.dir, env: {} };
    await expect(createSink(connection, { model: 'sale.sale', reference: { field: 'reference' }, cancel: { from: 'shop_status', values: [4], states: ['draft', 'sent'] } }, ctx)).rejects.toMatchObject({
      code: 'JSONRPC_MODEL_MISMATCH',
      message: expect.stringMatching(/sale\.sale\.state .* has no state sent .*its states are .*quotation.*cancelled/),
    });
  });

  it('cancels a sale a person quoted in Tryton (quotation is still cancellable)', async () => {
    const order = await place();
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 1 } });
    const [draft] = await salesOf(order);
    const quoted = await python<{ state: string; number: string | null }>('advance', String(draft!.id), 'quote');
    expect(quoted.state).toBe('quotation');
    await cancelInShop(order);
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { updated: 1, deadLettered: 0 } });
    expect(await salesOf(order)).toMatchObject([{ id: draft!.id, number: quoted.number, state: 'cancelled' }]);
  });

  it('makes an order cancelled before its first pull one sale, cancelled in the same run', async () => {
    const order = await place();
    await cancelInShop(order);
    const calls = cancelCalls();
    const creates = proxy.calls.get('model.sale.sale.create') ?? 0;
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 1, deadLettered: 0 } });
    expect(proxy.calls.get('model.sale.sale.create')).toBe(creates + 1);
    expect(cancelCalls()).toBe(calls + 1);
    expect(await salesOf(order)).toMatchObject([{ state: 'cancelled', lines: 1 }]);
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 0, updated: 0 } });
    expect(cancelCalls()).toBe(calls + 1);
    expect(await salesOf(order)).toHaveLength(1);
  });

  it('reads the state back when the answer to the cancel is lost, and does not send the cancel again', async () => {
    const order = await place();
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 1 } });
    await cancelInShop(order);
    const calls = cancelCalls();
    proxy.dropNextCancelAnswer();
    const summary = await pull();
    expect(summary, JSON.stringify(summary.error)).toMatchObject({ status: 'succeeded', counts: { updated: 1, deadLettered: 0 } });
    expect(proxy.dropped()).toBe(1);
    expect(cancelCalls()).toBe(calls + 1);
    expect(await salesOf(order)).toMatchObject([{ state: 'cancelled' }]);
  });

  it('dead-letters a sale past the configured states, and the retry after a person cancelled it in Tryton resolves the letter without a call', async () => {
    // Only drafts may be cancelled by this pipeline (its own state: the earlier orders are found in Tryton, cancelled, and kept).
    const strict: PipelineDefinitionInput = { ...def, name: 'orders-into-tryton-drafts' };
    const order = await place();
    expect(await runPipeline(strict, await deps(['draft']))).toMatchObject({ counts: { created: 1, deadLettered: 0 } });
    const [draft] = await salesOf(order);
    const quoted = await python<{ state: string; number: string }>('advance', String(draft!.id), 'quote');
    await cancelInShop(order);
    const calls = cancelCalls();
    expect(await runPipeline(strict, await deps(['draft']))).toMatchObject({ status: 'partial', counts: { updated: 0, deadLettered: 1 } });
    const letter = await f.state.deadLetters.getByKey('orders-into-tryton-drafts', String(order));
    expect(letter?.reason).toContain(`sale.sale ${draft!.id} (${quoted.number}) is quotation in Tryton`);
    expect(letter?.reason).toContain('The sink cancels only draft sales');

    expect(await python<{ state: string }>('advance', String(draft!.id), 'cancel')).toMatchObject({ state: 'cancelled' });
    expect(await retryDeadLetters(strict, await deps(['draft']))).toMatchObject({ counts: { deadLettered: 0, failed: 0 } });
    expect(await f.state.deadLetters.getByKey('orders-into-tryton-drafts', String(order))).toBeUndefined();
    expect(cancelCalls()).toBe(calls);
    expect(await salesOf(order)).toMatchObject([{ id: draft!.id, state: 'cancelled' }]);
  });

  it('refuses, with the state read back, a sale a person confirmed between the sink reading it and the cancel call (Tryton skips it without an error)', async () => {
    const order = await place();
    expect(await pull()).toMatchObject({ status: 'succeeded', counts: { created: 1 } });
    const [draft] = await salesOf(order);
    await cancelInShop(order);
    let confirmed: { state: string; number: string } | undefined;
    proxy.beforeNextCancel(async () => void (confirmed = await python('advance', String(draft!.id), 'confirm')));
    const calls = cancelCalls();
    expect(await pull()).toMatchObject({ status: 'partial', counts: { updated: 0, deadLettered: 1 } });
    expect(confirmed?.state).toBe('processing');
    expect(cancelCalls()).toBe(calls + 1);
    expect(await salesOf(order)).toMatchObject([{ id: draft!.id, state: 'processing' }]);
    const letter = await f.state.deadLetters.getByKey('orders-into-tryton', String(order));
    expect(letter?.code).toBe('JSONRPC_CANCEL_REFUSED');
    expect(letter?.reason).toContain(`sale.sale.cancel did not cancel sale.sale ${draft!.id}`);
    expect(letter?.reason).toContain('Tryton holds it as processing');
  });

  it("leaves a sale confirmed in Tryton untouched and dead-letters the order with the sale's id, number and state", async () => {
    // The order of the test before is a letter read again on every run: counts here are this order's, the run is partial anyway.
    const order = await place();
    expect(await pull()).toMatchObject({ counts: { created: 1 } });
    const [draft] = await salesOf(order);
    const confirmed = await python<{ state: string; number: string; shipments: number }>('advance', String(draft!.id), 'confirm');
    // Without a queue worker trytond processes the confirmed sale at once: its customer shipment is made, the sale is processing.
    expect(confirmed).toMatchObject({ state: 'processing', shipments: 1 });
    await cancelInShop(order);
    const calls = cancelCalls();
    expect(await pull()).toMatchObject({ status: 'partial', counts: { created: 0, updated: 0, deadLettered: 2 } });
    expect(cancelCalls()).toBe(calls);
    expect(await salesOf(order)).toMatchObject([{ id: draft!.id, number: confirmed.number, state: confirmed.state }]);
    const letter = await f.state.deadLetters.getByKey('orders-into-tryton', String(order));
    expect(letter?.code).toBe('JSONRPC_CANCEL_REFUSED');
    expect(letter?.reason).toContain(`shop order ${order} was cancelled in the shop`);
    expect(letter?.reason).toContain(`sale.sale ${draft!.id} (${confirmed.number}) is ${confirmed.state} in Tryton`);
    expect(letter?.reason).toContain('cancel it in Tryton');
    // Every run reads the order again (its hash is not settled) and refuses it again, without calling the button.
    expect(await pull()).toMatchObject({ status: 'partial', counts: { created: 0, updated: 0, deadLettered: 2 } });
    expect(cancelCalls()).toBe(calls);
    expect(await salesOf(order)).toMatchObject([{ state: confirmed.state }]);
  });
});
