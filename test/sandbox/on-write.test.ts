/** The sandbox's onWrite hook: every API write it stored, once, with its time; reads and refused writes are not told. */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle, type SandboxWrite } from '../../src/sandbox/index.js';

let shop: SandboxHandle | undefined;
afterEach(async () => {
  await shop?.close();
  shop = undefined;
});

async function call(method: string, path: string, body?: unknown): Promise<number> {
  const res = await fetch(`${shop!.url}${path}`, { method, headers: { authorization: `Bearer ${shop!.token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  await res.text();
  return res.status;
}

describe('the sandbox onWrite hook', () => {
  it('tells each stored write with its resource, operation and body, and not reads or refused writes', async () => {
    const writes: SandboxWrite[] = [];
    shop = await startSandbox({ seed: 'empty', dbPath: ':memory:', onWrite: (w) => writes.push(w) });
    const product = { products_model: 'HOOK-1', products_price: '9.99', products_status: 1, languages: { de: { products_name: 'Haken' } } };
    const before = Date.now();
    expect(await call('POST', '/import/json/products', { type: 'products', data: [product] })).toBe(200);
    expect(await call('GET', '/export/json/products')).toBe(200);
    await call('PUT', '/sandbox/faults', { error_rate: 1 });
    expect(await call('POST', '/import/json/products', { type: 'products', data: [{ ...product, products_model: 'HOOK-2' }] })).toBe(503);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatchObject({ resource: 'products', status: 200, body: { data: [{ products_model: 'HOOK-1' }] } });
    expect(writes[0]!.at).toBeGreaterThanOrEqual(before);
  });
});
