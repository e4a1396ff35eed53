import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonrpcConnectionSchema, openRpcClient, RpcError, type JsonrpcConnection } from '../../../src/erp/index.js';
import { createLogger, silentLogger } from '../../../src/log.js';
import { startFakeTryton, type FakeTryton } from './trytonServer.js';

let tryton: FakeTryton;
const PREFS = 'model.res.user.get_preferences';

function connection(overrides: Partial<JsonrpcConnection> = {}): JsonrpcConnection {
  return jsonrpcConnectionSchema.parse({ kind: 'jsonrpc', dialect: 'tryton', url: tryton.url, database: tryton.database, login: 'admin', password: 'tryton-s3cret', retries: 1, backoffMs: 1, ...overrides });
}

/** A logger whose lines the test reads. */
function capturingLogger(): { logger: ReturnType<typeof createLogger>; lines: () => string } {
  let text = '';
  const destination = new Writable({ write: (chunk: Buffer, _enc, done) => ((text += chunk.toString()), done()) });
  return { logger: createLogger({ level: 'trace', destination }), lines: () => text };
}

beforeEach(async () => {
  tryton = await startFakeTryton();
});
afterEach(async () => {
  await tryton.close();
});

describe('the JSON-RPC client (Tryton dialect)', () => {
  it('logs in with common.db.login and sends every call with the Session header of that login', async () => {
    const client = await openRpcClient(connection(), { logger: silentLogger });
    tryton.records.get('sale.sale')!.push({ id: 7, reference: '1001', party: 3 });
    expect(await client.search('sale.sale', [['reference', '=', '1001']])).toEqual([7]);
    expect(await client.searchRead('sale.sale', [['reference', 'in', ['1001']]], ['id', 'reference'])).toEqual([{ id: 7, reference: '1001' }]);
    const login = tryton.requests[0]!;
    expect(login).toMatchObject({ method: 'common.db.login', params: ['admin', { password: 'tryton-s3cret' }] });
    expect(tryton.requests[1]).toMatchObject({ method: 'model.res.user.get_preferences', params: [true, {}] });
    const search = tryton.requests[2]!;
    expect(search.method).toBe('model.sale.sale.search');
    // trytond loads no preferences into an RPC's context: the client sends the user's, as Tryton's own client does.
    expect(search.params).toEqual([[['reference', '=', '1001']], 0, null, null, { company: 1, language: 'en' }]);
    expect(Buffer.from(search.authorization!.replace('Session ', ''), 'base64').toString()).toMatch(/^admin:1:key1-/);
    await client.close();
    expect(tryton.requests.at(-1)!.method).toBe('common.db.logout');
  });

  it('logs in again once when the server refuses an expired session (401), and the call succeeds', async () => {
    const client = await openRpcClient(connection(), { logger: silentLogger });
    tryton.expireSessions();
    expect(await client.search('sale.sale', [])).toEqual([]);
    expect(tryton.logins).toBe(2);
    expect(tryton.requests.map((r) => r.method)).toEqual(['common.db.login', PREFS, 'model.sale.sale.search', 'common.db.login', PREFS, 'model.sale.sale.search']);
    await client.close();
  });

  it('logs in again before a call when the session has been idle for sessionIdleMs, so Tryton never sees an expired one', async () => {
    const client = await openRpcClient(connection({ sessionIdleMs: 20 }), { logger: silentLogger });
    await new Promise((r) => setTimeout(r, 40));
    tryton.expireSessions();
    await client.search('sale.sale', []);
    expect(tryton.requests.map((r) => r.method)).toEqual(['common.db.login', PREFS, 'common.db.login', PREFS, 'model.sale.sale.search']);
    await client.close();
  });

  it('fails with JSONRPC_LOGIN_FAILED on a wrong password, and the password appears in no message and no log line', async () => {
    const { logger, lines } = capturingLogger();
    const err = await openRpcClient(connection({ password: 'wrong-pass-123' }), { logger }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect((err as RpcError).code).toBe('JSONRPC_LOGIN_FAILED');
    expect((err as RpcError).message).toMatch(/login of admin to tryton database shop .* was refused \(HTTP 401\)\. Check the connection's login and password\.$/);
    expect(JSON.stringify(err) + (err as Error).message + lines()).not.toContain('wrong-pass-123');
  });

  it('says which database is missing when the server has none of that name (404)', async () => {
    const err = await openRpcClient(connection({ database: 'nope' }), { logger: silentLogger }).catch((e: unknown) => e);
    expect((err as RpcError).code).toBe('JSONRPC_LOGIN_FAILED');
    expect((err as RpcError).message).toContain('Check that database nope exists on the server');
  });

  it('fails with JSONRPC_UNREACHABLE when nothing answers', async () => {
    await tryton.close();
    const err = await openRpcClient(connection({ retries: 0 }), { logger: silentLogger }).catch((e: unknown) => e);
    expect((err as RpcError).code).toBe('JSONRPC_UNREACHABLE');
    tryton = await startFakeTryton();
  });

  it('takes an error answered with HTTP 200 for an error, never for a result', async () => {
    const client = await openRpcClient(connection(), { logger: silentLogger });
    const err = await client.create('sale.sale', [{ reference: '1' }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect(err).toMatchObject({ code: 'JSONRPC_CALL_FAILED', fault: { type: 'UserError', message: 'A value is required for field "Party" in "Sale".', session: false } });
    expect(tryton.records.get('sale.sale')).toEqual([]);
    await client.close();
  });

  it('sends a create once: a lost answer is not repeated by the transport (the caller looks the record up)', async () => {
    const client = await openRpcClient(connection({ retries: 3 }), { logger: silentLogger });
    tryton.dropNextCreateAnswer();
    const err = await client.create('sale.sale', [{ reference: '1', party: 1 }]).catch((e: unknown) => e);
    expect((err as RpcError).code).toBe('JSONRPC_UNREACHABLE');
    expect(tryton.requests.filter((r) => r.method === 'model.sale.sale.create')).toHaveLength(1);
    expect(tryton.records.get('sale.sale')).toHaveLength(1);
    await client.close();
  });

  it('retries a read whose answer was lost', async () => {
    const client = await openRpcClient(connection({ retries: 2 }), { logger: silentLogger });
    tryton.dropRequests(1);
    expect(await client.search('sale.sale', [])).toEqual([]);
    await client.close();
  });
});
