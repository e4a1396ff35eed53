/**
 * An HTTP answer is a success only when it says so (issue 41): JSON-RPC servers (Tryton, Odoo,
 * every JSON-RPC 2.0 server) answer their errors with HTTP 200. A server of the test's own speaks
 * Tryton's envelope (`error: [name, args]`) and JSON-RPC 2.0's (`error: {code, message}`); shop
 * subscribers are pulled from the sandbox shop into it through the HTTP sink, end to end.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rpcError } from '../../src/erp/http/answer.js';
import { createSink, createSource, type ConnectionInput, type HttpSinkConfigInput, type HttpSourceConfigInput } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { retryDeadLetters, runPipeline } from '../../src/pipeline/index.js';
import { mappingFile, pushFixture, type PushFixture } from '../pipeline/support.js';
import { collect } from './sql-suite.js';

const MAPPING = `
name: shop-subscribers
direction: shop-to-erp
source: { resource: newsletter_subscribers }
target: { erp: subscribers }
key: subscribe_id
fields:
  id: subscribe_id
  email: subscribe_email
  lastname: subscribe_lastname
`;

/** The subscriber every endpoint refuses while `refusing` holds (a required field the ERP misses). */
const BAD = 'Refused';
const TRYTON_MESSAGE = 'A value is required for field "Company" in "Sale".';

type Row = { id: number; email: string; lastname: string };
/** What each endpoint stored, by path. */
let stored: Record<string, Row[]> = {};
let refusing = true;
let requests: { path: string; body: unknown }[] = [];
let server: Server;
let baseUrl: string;

function send(res: ServerResponse, body: unknown, status = 200) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const store = (path: string, rows: Row[]) => (stored[path] ??= []).push(...rows);
const bad = (r: Row) => refusing && r.lastname === BAD;

function handle(req: IncomingMessage, res: ServerResponse, raw: string) {
  const path = new URL(req.url ?? '/', baseUrl).pathname.replace(/^\/erp/, '');
  if (req.method === 'GET') {
    if (path === '/rpc/list') return send(res, { id: 1, error: ['UserError', ['You are not allowed to read "Sale".', '']] });
    if (path === '/plain/list') return send(res, { data: [], error: 'session expired' });
    return send(res, { data: [{ id: 1 }] });
  }
  const body = JSON.parse(raw) as unknown;
  requests.push({ path, body });
  const rows = (Array.isArray(body) ? body : [body]) as Row[];
  switch (path) {
    // Tryton: one call creates the list in one transaction; an error rolls back all of it.
    case '/tryton': {
      const call = body as { id?: unknown; method?: unknown; params?: unknown };
      if (call.method !== 'model.sale.sale.create' || !Array.isArray(call.params) || !Array.isArray(call.params[0])) return send(res, { id: call.id ?? null, error: ['method or params not understood', 'Traceback …'] });
      const rows = call.params[0] as Row[];
      if (rows.some(bad)) return send(res, { id: 1, error: ['UserError', [TRYTON_MESSAGE, '']] });
      store(path, rows);
      return send(res, { id: 1, result: rows.map((r) => 1000 + r.id) });
    }
    // Tryton, the session gone: about the call, never a record's data.
    case '/tryton/logged-out':
      return send(res, { id: 1, error: ['NotLogged', []] });
    // JSON-RPC 2.0 batch: one answer per call, in an order of the server's own.
    case '/rpc2':
      store(path, rows.filter((r) => !bad(r)));
      return send(res, rows.map((r) => (bad(r) ? { jsonrpc: '2.0', id: r.id, error: { code: -32602, message: 'Invalid params', data: { name: 'odoo.exceptions.ValidationError', message: `lastname ${r.lastname} is not allowed` } } } : { jsonrpc: '2.0', id: r.id, result: 2000 + r.id })).reverse());
    case '/rpc2/one':
      if (bad(rows[0]!)) return send(res, { jsonrpc: '2.0', id: 1, error: { code: -32000, message: `lastname ${BAD} is not allowed` } });
      store(path, rows);
      return send(res, { jsonrpc: '2.0', id: 1, result: 3000 + rows[0]!.id });
    case '/rpc2/unknown-method':
      return send(res, { jsonrpc: '2.0', id: null, error: { code: -32601, message: 'Method not found' } });
    // A REST endpoint with per-record results of its own.
    case '/results':
      store(path, rows.filter((r) => !bad(r)));
      return send(res, { results: rows.map((r) => (bad(r) ? { status: 'rejected', reason: `no customer for ${r.email}` } : { status: 'created', ref: r.id })) });
    // A server repeating what it was sent, credentials included.
    case '/echo':
      return send(res, { error: { message: `not allowed with ${String(req.headers.authorization)}` } });
    case '/zero':
      return send(res, { error: 0, results: [{ status: 'created' }] });
    // An envelope saying it failed, while no rule is set.
    case '/plain':
      return send(res, { success: false, message: 'customer unknown' });
  }
  send(res, { error: 'not found' }, 404);
}

let f: PushFixture;
let mapping: CompiledMapping;
let subscribers: Row[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => handle(req, res, raw));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/erp/`;
  f = await pushFixture();
  mapping = await mappingFile(f.dir, 'subscribers', MAPPING);
  for (const [email, lastname] of [['a@example.com', 'Alpha'], ['b@example.com', 'Beta'], ['r@example.com', BAD], ['c@example.com', 'Gamma']] as const) {
    const r = await f.shop.create('newsletter_subscribers', [{ subscribe_email: email, subscribe_lastname: lastname }]);
    expect(r.outcomes[0]!.ok).toBe(true);
    subscribers.push({ id: r.outcomes[0]!.data!.subscribe_id as number, email, lastname });
  }
});
afterAll(async () => {
  await f?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  stored = {};
  requests = [];
  refusing = true;
});

const conn = (): ConnectionInput => ({ kind: 'http', baseUrl, retries: 0 });
let pipelines = 0;
/** A pull of the shop's subscribers into the HTTP sink `sink`, under a pipeline name of its own. */
function pull(sink: HttpSinkConfigInput) {
  const def = { name: `subscribers-${++pipelines}`, direction: 'pull' as const, sink: { connection: 'erp' }, mapping: 'subscribers.yaml', resource: 'newsletter_subscribers' };
  const deps = { state: f.state, shop: f.shop, mapping, sink: () => createSink(conn(), sink, { logger: silentLogger, baseDir: f.dir }) };
  return { def, deps, run: () => runPipeline(def, deps), letters: () => f.state.deadLetters.list({ pipeline: def.name }) };
}
const emails = (path: string) => (stored[path] ?? []).map((r) => r.email).sort();
const good = () => subscribers.filter((s) => s.lastname !== BAD).map((s) => s.email).sort();
const refused = () => String(subscribers.find((s) => s.lastname === BAD)!.id);

describe('a pull into a JSON-RPC server answering 200 with an error', () => {
  it('letters the record Tryton refused with its message and delivers the others once (Tryton form, one call for the batch)', async () => {
    const p = pull({ path: 'tryton', body: { id: 1, method: 'model.sale.sale.create', params: ['$records', {}] }, protocol: 'jsonrpc', results: 'result' });
    const summary = await p.run();
    // The batch as one Tryton call, then its halves until the refused record is alone.
    expect(requests[0]!.body).toEqual({ id: 1, method: 'model.sale.sale.create', params: [subscribers.map((s) => ({ id: s.id, email: s.email, lastname: s.lastname })), {}] });
    expect(requests.map((r) => ((r.body as { params: unknown[][] }).params[0] ?? []).length)).toEqual([4, 2, 2, 1, 1]);
    expect(summary).toMatchObject({ status: 'partial', counts: { read: 4, created: 3, failed: 1, deadLettered: 1 } });
    expect(emails('/tryton')).toEqual(good());
    const [letter, ...more] = await p.letters();
    expect(more).toEqual([]);
    expect(letter).toMatchObject({ erpKey: refused(), code: 'SINK_RECORD_REFUSED' });
    expect(letter!.reason).toContain(`UserError: ${TRYTON_MESSAGE}`);

    // The mapping fixed (here: the server no longer refuses), the retry creates it once; nothing else is sent again.
    refusing = false;
    const retry = await retryDeadLetters(p.def, p.deps);
    expect(retry).toMatchObject({ status: 'succeeded', counts: { created: 1, deadLettered: 0 } });
    expect(emails('/tryton')).toEqual(subscribers.map((s) => s.email).sort());
    expect(await p.letters()).toEqual([]);
  });

  it('letters the one call a JSON-RPC 2.0 batch answer refused, matched by id although the answers come in another order', async () => {
    const p = pull({ path: 'rpc2', protocol: 'jsonrpc' });
    const summary = await p.run();
    expect(summary).toMatchObject({ status: 'partial', counts: { read: 4, created: 3, deadLettered: 1 } });
    expect(requests).toHaveLength(1);
    const [letter] = await p.letters();
    expect(letter).toMatchObject({ erpKey: refused(), code: 'SINK_RECORD_REFUSED' });
    expect(letter!.reason).toContain(`Invalid params: lastname ${BAD} is not allowed (code -32602, odoo.exceptions.ValidationError)`);
    expect(emails('/rpc2')).toEqual(good());
  });

  it('letters the record whose own call failed when each record is its own call, and goes on with the next', async () => {
    const p = pull({ path: 'rpc2/one', protocol: 'jsonrpc', perRecord: true });
    const summary = await p.run();
    expect(summary).toMatchObject({ status: 'partial', counts: { read: 4, created: 3, deadLettered: 1 } });
    expect(requests).toHaveLength(4);
    expect(emails('/rpc2/one')).toEqual(good());
    const [letter] = await p.letters();
    expect(letter).toMatchObject({ erpKey: refused(), code: 'SINK_RECORD_REFUSED' });
    expect(letter!.reason).toContain(`lastname ${BAD} is not allowed (code -32000)`);
  });

  it('fails the run, lettering nothing, when the server says the call itself is wrong or the session is gone', async () => {
    for (const path of ['rpc2/unknown-method', 'tryton/logged-out']) {
      const p = pull({ path, protocol: 'jsonrpc' });
      const summary = await p.run();
      expect(summary).toMatchObject({ status: 'failed', error: { code: 'HTTP_ANSWER_ERROR' }, counts: { created: 0, deadLettered: 0 } });
      expect(summary.error?.message).toContain(path === 'tryton/logged-out' ? 'NotLogged' : 'Method not found (code -32601)');
      expect(await p.letters()).toEqual([]);
      expect(await f.state.events.list({ pipeline: p.def.name, outcome: 'delivered' })).toEqual([]);
    }
  });

  it('matches per-record results of a REST batch call by position: the rejected one is lettered with the reason the server gave', async () => {
    const p = pull({ path: 'results', results: 'results', successWhen: 'status = "created"', errorMessage: 'reason' });
    const summary = await p.run();
    expect(summary).toMatchObject({ status: 'partial', counts: { read: 4, created: 3, deadLettered: 1 } });
    expect(requests).toHaveLength(1);
    const [letter] = await p.letters();
    expect(letter).toMatchObject({ erpKey: refused(), code: 'SINK_RECORD_REFUSED' });
    expect(letter!.reason).toContain('no customer for r@example.com');
  });
});

describe('an answer without a rule', () => {
  it('is not taken as a success when it looks like an error envelope: the run fails naming the rule to set', async () => {
    const p = pull({ path: 'plain' });
    const summary = await p.run();
    expect(summary).toMatchObject({ status: 'failed', error: { code: 'HTTP_ANSWER_UNCLEAR' }, counts: { created: 0 } });
    expect(summary.error?.message).toContain('`success` is false: customer unknown');
    expect(summary.error?.message).toMatch(/protocol: jsonrpc.*successWhen.*errorWhen: "false"/);
    expect(await f.state.events.list({ pipeline: p.def.name, outcome: 'delivered' })).toEqual([]);
  });

  it('is a JSON-RPC error it cannot tell from a success either: a Tryton error answer is refused, not delivered', async () => {
    const sink = await createSink(conn(), { path: 'tryton', body: { id: 1, method: 'model.sale.sale.create', params: ['$records', {}] } }, { logger: silentLogger, baseDir: '.' });
    await expect(sink.write({ id: 'b1', records: [{ id: 1, lastname: BAD }] })).rejects.toMatchObject({ code: 'HTTP_ANSWER_UNCLEAR', message: expect.stringContaining(TRYTON_MESSAGE) });
  });

  it('is accepted on purpose with errorWhen: "false"', async () => {
    const sink = await createSink(conn(), { path: 'plain', errorWhen: 'false' }, { logger: silentLogger, baseDir: '.' });
    await expect(sink.write({ id: 'b2', records: [{ id: 1 }] })).resolves.toBeUndefined();
  });

  it('is refused at load when a rule is not valid JSONata', async () => {
    await expect(createSink(conn(), { path: 'plain', successWhen: 'status = ' }, { logger: silentLogger, baseDir: '.' })).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining('sink.successWhen') });
  });
});

describe('a batch answer of the sink', () => {
  const open = (cfg: HttpSinkConfigInput, connection: Partial<ConnectionInput> = {}) => createSink({ ...conn(), ...connection } as ConnectionInput, cfg, { logger: silentLogger, baseDir: '.' });

  it("letters a record without the connection's credentials in the letter, when the server repeats them", async () => {
    const sink = await open({ path: 'echo', errorWhen: 'error != null' }, { auth: { header: 'Authorization', value: 'Bearer s3cr3t-t0ken-value' } });
    const result = await sink.write({ id: 'b3', records: [{ id: 1 }] });
    expect(result).toMatchObject({ outcomes: [{ kind: 'refused', code: 'SINK_RECORD_REFUSED' }] });
    expect(JSON.stringify(result)).not.toContain('s3cr3t-t0ken-value');
  });

  it('fails the batch when the per-record results do not match the records sent, instead of guessing which is which', async () => {
    const sink = await open({ path: 'zero', results: 'results', successWhen: 'status = "created"' });
    await expect(sink.write({ id: 'b4', records: [{ id: 1 }, { id: 2 }] })).rejects.toMatchObject({ code: 'HTTP_ANSWER_UNCLEAR', message: expect.stringContaining('1 result(s) for 2 record(s)') });
  });

  it('takes `error: 0` for the "no error" some APIs write', async () => {
    await expect((await open({ path: 'zero' })).write({ id: 'b5', records: [{ id: 1 }] })).resolves.toBeUndefined();
  });
});

describe('an HTTP source answering an error envelope', () => {
  const read = async (cfg: HttpSourceConfigInput) => collect(await createSource(conn(), cfg, { logger: silentLogger, baseDir: '.' }), {});

  it('fails the read with the server message instead of reading zero records (JSON-RPC)', async () => {
    await expect(read({ path: 'rpc/list', key: 'id', recordsPath: 'result', protocol: 'jsonrpc' })).rejects.toMatchObject({ code: 'HTTP_ANSWER_ERROR', message: expect.stringContaining('You are not allowed to read "Sale".') });
  });

  it('fails the read naming the rule to set when no rule is set', async () => {
    await expect(read({ path: 'plain/list', key: 'id', recordsPath: 'data' })).rejects.toMatchObject({ code: 'HTTP_ANSWER_UNCLEAR', message: expect.stringContaining('session expired') });
  });

  it('reads a list whose answer says success', async () => {
    expect((await read({ path: 'ok/list', key: 'id', recordsPath: 'data', successWhen: '$exists(data)' })).map((i) => i.key)).toEqual(['1']);
  });
});

describe('a JSON-RPC error, as the servers write it', () => {
  it("is the record's for a data error and the call's for a session or a wrong method, with the server's own text", () => {
    expect(rpcError({ jsonrpc: '2.0', id: 1, error: { code: 200, message: 'Odoo Server Error', data: { name: 'odoo.exceptions.ValidationError', message: 'The customer is missing' } } })).toEqual({ about: 'record', message: 'Odoo Server Error: The customer is missing (code 200, odoo.exceptions.ValidationError)' });
    expect(rpcError({ jsonrpc: '2.0', id: 1, error: { code: 100, message: 'Odoo Session Expired', data: { name: 'odoo.http.SessionExpiredException' } } })).toMatchObject({ about: 'call' });
    expect(rpcError({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } })).toMatchObject({ about: 'call' });
    expect(rpcError({ id: 1, error: ['UserError', [TRYTON_MESSAGE, '', null]] })).toEqual({ about: 'record', message: `UserError: ${TRYTON_MESSAGE}` });
    expect(rpcError({ id: 1, error: ['NotLogged', []] })).toMatchObject({ about: 'call' });
    // An exception of the server's code: its text, not the traceback.
    expect(rpcError({ id: 1, error: ["'NoneType' object has no attribute 'id'", 'Traceback (most recent call last): …'] })).toEqual({ about: 'record', message: "'NoneType' object has no attribute 'id'" });
    expect(rpcError({ id: 1, result: [7] })).toBeNull();
    expect(rpcError({ id: 1 })).toBeUndefined();
  });
});
