/**
 * RPC lookups of a pull, against a JSON-RPC server of the test's own speaking trytond's envelope
 * (`POST /<db>/`, `common.db.login`, `model.<model>.search_read` / `create` with the context last,
 * errors as HTTP 200 with `error`): products by code go out as one `search_read` per order however
 * many lines ask, a party by a dotted field one search per value; a party missing is created from
 * the order where the lookup says `create:`, once, also when the answer to that create is lost; a
 * create the ERP refuses dead-letters the order with the ERP's message. The sales land in SQLite.
 * (Against a real Tryton: test/erp/tryton/orders-rpc.test.ts.)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSink, type ConnectionInput } from '../../../src/erp/index.js';
import { silentLogger } from '../../../src/log.js';
import { loadMapping } from '../../../src/mapping/index.js';
import { lookupConnections } from '../../../src/pipeline/lookups/index.js';
import { runPipeline, type PipelineDefinitionInput } from '../../../src/pipeline/index.js';
import { pushFixture, type PushFixture } from '../support.js';

type Row = Record<string, unknown> & { id: number };

/** A Tryton-like ERP: products with codes, parties with e-mails (`contact_mechanisms.value`). */
async function startErp() {
  const models: Record<string, Row[]> = {
    'product.product': [{ id: 11, code: 'ART-1', default_uom: 1 }, { id: 12, code: 'ART-2', default_uom: 1 }],
    'party.party': [{ id: 7, name: 'Erika', emails: ['erika@example.com'] }],
  };
  const calls: string[] = [];
  const knobs = { dropNextCreate: false, refuseCreates: false };
  let nextId = 100;
  const value = (row: Row, field: string): unknown[] => (field === 'contact_mechanisms.value' ? (row.emails as string[]) : [row[field]]);
  const matches = (row: Row, domain: [string, string, unknown][]) =>
    domain.every(([field, op, v]) => (op === 'in' ? (v as unknown[]).some((x) => value(row, field).includes(x)) : value(row, field).includes(v)));
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const { id, method, params } = JSON.parse(raw) as { id: number; method: string; params: unknown[] };
      calls.push(method);
      const reply = (body: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id, ...(body as object) }));
      };
      if (method === 'common.db.login') return reply({ result: [1, 'session-key'] });
      if (method === 'common.db.logout') return reply({ result: null });
      // Tryton's client asks the user's preferences after the login and sends them as the context.
      if (method === 'model.res.user.get_preferences') return reply({ result: { company: 1, language: 'en' } });
      const [, ...rest] = method.split('.');
      const name = rest.pop()!;
      const table = models[rest.join('.')];
      if (!table) return reply({ error: [`KeyError: '${rest.join('.')}'`, 'Traceback …'] });
      if (name === 'search_read') {
        const [domain, , limit, , fields] = params as [[string, string, unknown][], number, number | null, unknown, string[]];
        const found = table.filter((r) => matches(r, domain)).slice(0, limit ?? undefined);
        return reply({ result: found.map((r) => Object.fromEntries(fields.map((f) => [f, r[f] ?? null]))) });
      }
      if (name === 'create') {
        if (knobs.refuseCreates) return reply({ error: ['UserError', ['A value is required for field "Name" in "Party".', '', null]] });
        const ids = (params[0] as Record<string, unknown>[]).map((v) => {
          const mechanisms = ((v.contact_mechanisms as [string, { value: string }[]][] | undefined) ?? []).flatMap(([, list]) => list.map((m) => m.value));
          const row: Row = { id: nextId++, name: v.name, emails: mechanisms };
          table.push(row);
          return row.id;
        });
        if (knobs.dropNextCreate) {
          knobs.dropNextCreate = false;
          req.socket.destroy();
          return;
        }
        return reply({ result: ids });
      }
      reply({ error: [`method ${method} not in the fake`, ''] });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, models, calls, knobs, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const MAPPING = `
name: orders-into-erp
direction: shop-to-erp
source: { resource: orders }
target: { erp: sale_in }
key: orders_id
fields:
  order_id: { from: orders_id, type: integer }
  party_id: { from: customers_email_address, lookup: party_by_email }
  lines:
    each: products
    fields:
      order_id: { from: $root.orders_id, type: integer }
      pos: { from: $index, type: integer }
      product_id: { from: products_model, lookup: product_by_code }
`;
const SINK = { table: 'sale_in', key: 'order_id', children: [{ field: 'lines', table: 'sale_line_in', key: ['order_id', 'pos'], parentKey: 'order_id' }] };

describe('RPC lookups of a pull (a Tryton-like JSON-RPC server)', () => {
  let f: PushFixture;
  let erp: Awaited<ReturnType<typeof startErp>>;
  let sinkDb: Database.Database;
  let connection: ConnectionInput;
  beforeEach(async () => {
    f = await pushFixture();
    erp = await startErp();
    connection = { kind: 'jsonrpc', dialect: 'tryton', url: erp.url, database: 'shop', login: 'admin', password: 'secret', retries: 0, backoffMs: 1 };
    sinkDb = new Database(join(f.dir, 'sales.sqlite'));
    sinkDb.exec('CREATE TABLE sale_in (order_id INTEGER PRIMARY KEY, party_id INTEGER); CREATE TABLE sale_line_in (order_id INTEGER, pos INTEGER, product_id INTEGER, PRIMARY KEY (order_id, pos))');
    writeFileSync(join(f.dir, 'orders-into-erp.yaml'), MAPPING);
  });
  afterEach(async () => {
    sinkDb.close();
    await erp.close();
    await f.close();
  });

  const CREATE = { values: { name: '{record.billing.lastname}', contact_mechanisms: [['create', [{ type: 'email', value: '{value}' }]]] } };
  const def = (create?: typeof CREATE): PipelineDefinitionInput => ({
    name: 'orders-into-erp',
    direction: 'pull',
    sink: { connection: 'sales' },
    lookups: {
      party_by_email: { connection: 'erp', model: 'party.party', field: 'contact_mechanisms.value', ...(create ? { create } : {}) },
      product_by_code: { connection: 'erp', model: 'product.product', field: 'code' },
    },
    mapping: 'orders-into-erp.yaml',
    resource: 'orders',
  });
  const deps = async () => ({
    state: f.state,
    shop: f.shop,
    mapping: await loadMapping(join(f.dir, 'orders-into-erp.yaml')),
    lookups: () => lookupConnections({ erp: connection }, { logger: silentLogger, baseDir: f.dir, env: {} }),
    sink: () => createSink({ kind: 'sqlite', path: join(f.dir, 'sales.sqlite') }, SINK, { logger: silentLogger, baseDir: f.dir, env: {} }),
  });
  async function place(email: string, codes: readonly string[]): Promise<number> {
    const created = await f.shop.create('orders', [
      { customers_id: 0, auto_stock: false, tax_flag: 0, billing: { firstname: 'Erika', lastname: `Kundin ${email}`, street_address: 'Hauptstr. 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE', email_address: email }, products: codes.map((c) => ({ products_model: c, products_name: c, quantity: 1, products_price: 10 })) },
    ]);
    expect(created.outcomes[0]!.ok, JSON.stringify(created.outcomes[0]!.error)).toBe(true);
    return Number(created.outcomes[0]!.data!.orders_id);
  }
  const sale = (id: number) => sinkDb.prepare('SELECT party_id FROM sale_in WHERE order_id = ?').get(id) as { party_id: number } | undefined;
  const lineProducts = (id: number) => (sinkDb.prepare('SELECT product_id FROM sale_line_in WHERE order_id = ? ORDER BY pos').all(id) as { product_id: number }[]).map((r) => r.product_id);

  it("finds the party by a dotted field and the lines' products by code in one search_read per order, each value asked once per run", async () => {
    const a = await place('erika@example.com', ['ART-1', 'ART-2', 'ART-1']);
    const b = await place('erika@example.com', ['ART-2']);
    expect(await runPipeline(def(), await deps())).toMatchObject({ status: 'succeeded', counts: { created: 2 } });
    expect(sale(a)).toEqual({ party_id: 7 });
    expect(lineProducts(a)).toEqual([11, 12, 11]);
    expect(lineProducts(b)).toEqual([12]);
    // One search for the e-mail, one for both codes; the second order knows them all.
    expect(erp.calls.filter((c) => c.endsWith('.search_read'))).toEqual(['model.party.party.search_read', 'model.product.product.search_read']);
  });

  it('refuses an order whose e-mail the ERP does not hold (LOOKUP_NOT_FOUND) where the lookup cannot create it', async () => {
    const id = await place('new@example.com', ['ART-1']);
    expect(await runPipeline(def(), await deps())).toMatchObject({ status: 'partial', counts: { created: 0, deadLettered: 1 } });
    const letter = await f.state.deadLetters.getByKey('orders-into-erp', String(id));
    expect(letter).toMatchObject({ code: 'LOOKUP_NOT_FOUND' });
    expect(letter!.reason).toContain('lookup `party_by_email`: party.party.contact_mechanisms.value in erp holds no record for "new@example.com"');
    expect(erp.calls.filter((c) => c.endsWith('.create'))).toEqual([]);
  });

  it('creates a missing party from the order once, also when the answer to the create is lost, and the next order of that e-mail finds it', async () => {
    erp.knobs.dropNextCreate = true;
    const a = await place('new@example.com', ['ART-1']);
    const b = await place('new@example.com', ['ART-2']);
    expect(await runPipeline(def(CREATE), await deps())).toMatchObject({ status: 'succeeded', counts: { created: 2 } });
    // The answer was dropped (the knob resets only then).
    expect(erp.knobs.dropNextCreate).toBe(false);
    const made = erp.models['party.party']!.filter((p) => (p.emails as string[]).includes('new@example.com'));
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ name: 'Kundin new@example.com' });
    expect(sale(a)).toEqual({ party_id: made[0]!.id });
    expect(sale(b)).toEqual({ party_id: made[0]!.id });
    expect(erp.calls.filter((c) => c.endsWith('.create'))).toHaveLength(1);
  });

  it('creates nothing in a dry run: the plan shows the party that would be created', async () => {
    const id = await place('new@example.com', ['ART-1']);
    const summary = await runPipeline(def(CREATE), await deps(), { mode: 'dry-run' });
    expect(summary.plan).toEqual([expect.objectContaining({ erpKey: String(id), action: 'create', payload: expect.objectContaining({ party_id: '(would create party.party)' }) })]);
    expect(erp.calls.filter((c) => c.endsWith('.create'))).toEqual([]);
    expect(erp.models['party.party']).toHaveLength(1);
  });

  it('creates nothing for an order the mapping refuses for another reason, and its letter names that reason', async () => {
    writeFileSync(join(f.dir, 'orders-into-erp.yaml'), MAPPING.replace('  order_id: { from: orders_id, type: integer }', '  order_id: { from: orders_id, type: integer }\n  customer_no: { from: billing.lastname, type: integer }'));
    const id = await place('new@example.com', ['ART-1']);
    expect(await runPipeline(def(CREATE), await deps())).toMatchObject({ status: 'partial', counts: { deadLettered: 1 } });
    const letter = await f.state.deadLetters.getByKey('orders-into-erp', String(id));
    expect(letter!.reason).toContain('customer_no');
    expect(letter!.reason).not.toContain('LOOKUP');
    expect(letter!.reason).not.toContain('not been asked');
    expect(erp.calls.filter((c) => c.endsWith('.create') || c.endsWith('.search_read'))).toEqual([]);
  });

  it("dead-letters an order whose party the ERP refuses to create (LOOKUP_CREATE_FAILED with the ERP's message)", async () => {
    erp.knobs.refuseCreates = true;
    const id = await place('new@example.com', ['ART-1']);
    expect(await runPipeline(def(CREATE), await deps())).toMatchObject({ status: 'partial', counts: { deadLettered: 1 } });
    const letter = await f.state.deadLetters.getByKey('orders-into-erp', String(id));
    expect(letter).toMatchObject({ code: 'LOOKUP_CREATE_FAILED' });
    expect(letter!.reason).toContain('A value is required for field "Name" in "Party".');
  });
});
