import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, type ShopClientOptions } from '../../../src/shop/index.js';
import { BASE, collect, page, testClient, useNock } from './helpers.js';

const CLIENT_ID = 'erp-sync';
const SECRET = 'client-secret-9d81b7c4';
const oauth: ShopClientOptions['auth'] = { kind: 'oauth', clientId: CLIENT_ID, clientSecret: SECRET, scopes: ['products:read', 'products:write'] };

/** Token endpoint expecting the form-encoded client-credentials grant. */
function tokenEndpoint(): nock.Interceptor {
  return nock(BASE)
    .post('/oauth/token', (body: Record<string, string>) => body.grant_type === 'client_credentials' && body.client_id === CLIENT_ID && body.client_secret === SECRET && body.scope === 'products:read products:write')
    .matchHeader('content-type', /application\/x-www-form-urlencoded/);
}

function productsWith(token: string): nock.Interceptor {
  return nock(BASE, { reqheaders: { authorization: `Bearer ${token}` } }).get('/export/json/products').query(true);
}

describe('authentication', () => {
  useNock();

  it('fetches the OAuth token once and reuses it for concurrent and later requests', async () => {
    tokenEndpoint().once().reply(200, { access_token: 'tok-1', token_type: 'Bearer', expires_in: 3600 });
    productsWith('tok-1').times(3).reply(200, page('products', [], 0, 250, 0));
    const { client } = testClient({ auth: oauth });
    await Promise.all([collect(client.exportAll('products')), collect(client.exportAll('products'))]);
    await collect(client.exportAll('products'));
  });

  it('fetches a new token once when the shop answers 401, and repeats the request with it', async () => {
    tokenEndpoint().once().reply(200, { access_token: 'tok-1', token_type: 'Bearer', expires_in: 3600 });
    productsWith('tok-1').reply(401, { success: false, error: { code: 'UNAUTHORIZED', message: 'The access token has expired' } });
    tokenEndpoint().once().reply(200, { access_token: 'tok-2', token_type: 'Bearer', expires_in: 3600 });
    productsWith('tok-2').reply(200, page('products', [{ products_id: 1, products_model: 'M' }], 1, 250, 0));
    const { client } = testClient({ auth: oauth });
    expect(await collect(client.exportAll('products'))).toHaveLength(1);
  });

  it('refreshes only once: a second 401 is an AuthenticationError', async () => {
    tokenEndpoint().once().reply(200, { access_token: 'tok-1', token_type: 'Bearer', expires_in: 3600 });
    productsWith('tok-1').reply(401, { success: false, error: { code: 'UNAUTHORIZED', message: 'invalid token' } });
    tokenEndpoint().once().reply(200, { access_token: 'tok-2', token_type: 'Bearer', expires_in: 3600 });
    productsWith('tok-2').reply(401, { success: false, error: { code: 'UNAUTHORIZED', message: 'invalid token' } });
    const { client } = testClient({ auth: oauth });
    await expect(collect(client.exportAll('products'))).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('fetches a new token when the cached one is about to expire', async () => {
    tokenEndpoint().once().reply(200, { access_token: 'tok-1', token_type: 'Bearer', expires_in: 1 });
    productsWith('tok-1').reply(200, page('products', [], 0, 250, 0));
    tokenEndpoint().once().reply(200, { access_token: 'tok-2', token_type: 'Bearer', expires_in: 3600 });
    productsWith('tok-2').reply(200, page('products', [], 0, 250, 0));
    const { client } = testClient({ auth: oauth });
    await collect(client.exportAll('products'));
    // A 1 s token is refreshed 100 ms before it expires.
    await new Promise((resolve) => setTimeout(resolve, 950));
    await collect(client.exportAll('products'));
  });

  it('reports refused client credentials as AuthenticationError without retrying', async () => {
    tokenEndpoint().once().reply(401, { error: 'invalid_client', error_description: 'unknown client' });
    const { client } = testClient({ auth: oauth });
    const error = await collect(client.exportAll('products')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ apiCode: 'invalid_client', status: 401 });
  });

  it('names the shopsync.yaml keys of the refused OAuth client without printing their values', async () => {
    tokenEndpoint().once().reply(401, { error: 'invalid_client' });
    const { client } = testClient({ auth: oauth });
    const error = await collect(client.exportAll('products')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    const message = (error as AuthenticationError).message;
    expect(message).toContain('shop.oauth.clientId');
    expect(message).toContain('shop.oauth.clientSecret');
    expect(message).toContain('shop.oauth.scopes');
    expect(message).toContain('OAuth client id, secret and scopes');
    expect(message).not.toContain(SECRET);
    expect(message).not.toContain(CLIENT_ID);
    expect(message).not.toContain('products:read');
  });

  it('uses the configured token URL', async () => {
    nock('http://auth.test').post('/token').reply(200, { access_token: 'tok-9', token_type: 'Bearer' });
    productsWith('tok-9').reply(200, page('products', [], 0, 250, 0));
    const { client } = testClient({ auth: { ...oauth, tokenUrl: 'http://auth.test/token' } });
    await collect(client.exportAll('products'));
  });

  it('does not retry a 401 with a static token', async () => {
    nock(BASE).get('/export/json/products').query(true).once().reply(401, { success: false, error: { code: 'UNAUTHORIZED', message: 'invalid token' } });
    const { client, events } = testClient();
    await expect(collect(client.exportAll('products'))).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    expect(events.filter((e) => e.type === 'request')).toHaveLength(1);
  });

  it('refuses invalid options with a message naming the option but never the secret', () => {
    expect(() => testClient({ baseUrl: 'ftp://x' })).toThrow(/baseUrl/);
    expect(() => testClient({ rateLimit: { intervalCap: 0 } })).toThrow(/rateLimit\.intervalCap.*got `0`/);
    let message = '';
    try {
      testClient({ auth: { kind: 'oauth', clientId: '', clientSecret: SECRET } });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/auth\.clientId/);
    expect(message).not.toContain(SECRET);
  });
});
