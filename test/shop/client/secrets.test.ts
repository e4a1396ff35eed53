import { inspect } from 'node:util';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { BASE, captureLogs, collect, page, testClient, TOKEN, useNock, writeAnswer } from './helpers.js';

const CLIENT_ID = 'erp-sync-client';
const SECRET = 'client-secret-5be0a1f3';
const ACCESS = 'access-token-0c7e44d2a9';
const ACCESS_2 = 'access-token-second-77b1';

describe('secrets', () => {
  useNock();

  it('never writes the OAuth secret or an access token into a debug log line or an error', async () => {
    const logs = captureLogs();
    nock(BASE).post('/oauth/token').reply(200, { access_token: ACCESS, token_type: 'Bearer', expires_in: 3600 });
    nock(BASE).get('/export/json/products').query(true).reply(401, { success: false, error: { code: 'UNAUTHORIZED', message: `token ${ACCESS} has expired` } });
    nock(BASE).post('/oauth/token').reply(200, { access_token: ACCESS_2, token_type: 'Bearer', expires_in: 3600 });
    nock(BASE).get('/export/json/products').query(true).reply(200, page('products', [{ products_id: 'bad' }], 1, 250, 0));
    nock(BASE).post('/import/json/products').replyWithError(Object.assign(new Error(`socket hang up (Bearer ${ACCESS_2})`), { code: 'ECONNRESET' }));
    nock(BASE).get('/export/json/product/1').reply(403, { success: false, error: { code: 'INSUFFICIENT_SCOPE', message: `client ${CLIENT_ID} with secret ${SECRET} lacks products:read` } });
    nock(BASE).get('/export/json/product/2').times(2).replyWithError(Object.assign(new Error(`connect ECONNREFUSED access_token=${ACCESS_2}`), { code: 'ECONNREFUSED' }));
    const { client } = testClient({ auth: { kind: 'oauth', clientId: CLIENT_ID, clientSecret: SECRET }, logger: logs.logger, retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 5 } });

    const errors: unknown[] = [];
    await collect(client.exportAll('products')).catch((e: unknown) => errors.push(e));
    const write = await client.create('products', [{ products_model: 'X' }]);
    errors.push(...write.outcomes.map((o) => o.error));
    await client.exportOne('products', 1).catch((e: unknown) => errors.push(e));
    await client.exportOne('products', 2).catch((e: unknown) => errors.push(e));
    for (const error of errors) logs.logger.error({ err: error }, 'client error');

    expect(errors.map((e) => (e as { code?: string }).code)).toEqual(['INVALID_RESPONSE', 'OUTCOME_UNKNOWN', 'INSUFFICIENT_SCOPE', 'NETWORK_ERROR']);
    const everything = [logs.text(), ...errors.map((e) => inspect(e, { depth: 10 })), ...errors.map((e) => JSON.stringify(e))].join('\n');
    expect(logs.text()).toContain('shop request');
    for (const secret of [SECRET, ACCESS, ACCESS_2]) expect(everything).not.toContain(secret);
  });

  it('never writes the static token into a log line', async () => {
    const logs = captureLogs();
    nock(BASE).put('/import/json/products').reply(200, writeAnswer('products', 'update', { data: [{ index: 0 }] }));
    nock(BASE).get('/export/json/products').query(true).reply(500, { success: false, error: { code: 'BOOM', message: `Authorization: Bearer ${TOKEN}` } });
    const { client } = testClient({ logger: logs.logger, retry: { retries: 0 } });
    await client.update('products', [{ products_id: 1 }]);
    const error = await collect(client.exportAll('products')).catch((e: unknown) => e);
    logs.logger.error({ err: error }, 'export failed');
    expect(logs.text()).toContain('shop request');
    expect(logs.text() + inspect(error)).not.toContain(TOKEN);
  });
});
