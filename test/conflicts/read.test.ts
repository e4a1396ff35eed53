/** Reading the shop's current records of an update batch (issue 46): the cheapest way the registry offers, on the sandbox over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rangesOf, readCurrent, readWayOf } from '../../src/conflicts/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { getResource } from '../../src/shop/registry/index.js';
import type { ShopClient } from '../../src/shop/client/types.js';
import { clientFor, setFaults } from '../pipeline/support.js';

let sandbox: SandboxHandle;
let shop: ShopClient;
let products: number[];
let customers: number[];

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
  shop = clientFor(sandbox);
  const made = await shop.create('products', Array.from({ length: 5 }, (_, i) => ({ products_model: `R-${i}`, products_price: '5.00', products_status: 1, languages: { de: { products_name: `Read ${i}` } } })));
  products = made.outcomes.map((o) => Number(o.data?.products_id));
  const people = await shop.create('customers', [1, 2].map((i) => ({ customers_email_address: `read${i}@example.com`, customers_firstname: 'Erika', customers_lastname: `Read ${i}`, customers_id_extern: `K-${i}`, addresses: [{ entry_firstname: 'Erika', entry_lastname: `Read ${i}`, entry_street_address: 'Hauptstr. 1', entry_postcode: '10115', entry_city: 'Berlin', entry_country: 'DE', _set_default: true, _set_billing: true }] })));
  if (!people.outcomes.every((o) => o.ok)) throw new Error('the customers were not created');
  customers = people.outcomes.map((o) => Number(o.data?.customers_id));
});
afterAll(async () => {
  await shop.close();
  await sandbox.close();
});

describe('reading the records of an update batch', () => {
  it('groups ids into ranges narrower than one export page, in order', () => {
    expect(rangesOf([7, 1, 3, 300, 249, 250, 3], 249)).toEqual([[1, 249], [250, 300]]);
    expect(rangesOf([], 249)).toEqual([]);
    expect(rangesOf([5, 6, 7], 1)).toEqual([[5, 5], [6, 6], [7, 7]]);
  });

  it('takes the way each resource offers: id ranges, an export filter on the id, the single-record route, or none', () => {
    expect(readWayOf(getResource('products'))).toEqual({ kind: 'range', span: 249 });
    expect(readWayOf(getResource('customers'))).toEqual({ kind: 'filter', filter: 'customers_id' });
    expect(readWayOf(getResource('contracts'))).toEqual({ kind: 'one' });
    expect(readWayOf(getResource('newsdesk_categories'))).toEqual({ kind: 'none' });
  });

  it('reads neighbouring products in one request, and only the ids asked for', async () => {
    const read = await readCurrent(shop, getResource('products'), [products[0]!, products[2]!, products[4]!]);
    expect(read.requests).toBe(1);
    expect([...read.records.keys()].sort()).toEqual([products[0], products[2], products[4]].map(String).sort());
    expect(read.records.get(String(products[2]))).toMatchObject({ products_model: 'R-2' });
    expect(read.failed.size).toBe(0);
  });

  it('reads customers one request each by the id filter; an id the shop does not have is neither read nor failed', async () => {
    const read = await readCurrent(shop, getResource('customers'), [...customers, 99_999]);
    expect(read.requests).toBe(3);
    expect([...read.records.keys()].sort()).toEqual(customers.map(String).sort());
    expect(read.failed.size).toBe(0);
  });

  it('says which ids it could not read and whether trying again may help', async () => {
    expect(await readCurrent(shop, getResource('newsdesk_categories'), [1])).toMatchObject({ requests: 0, failed: new Map([['1', { reason: expect.stringContaining('no way to read one newsdesk_categories record'), retryable: false }]]) });
    await setFaults(sandbox, { error_rate: 1, error_status: 403 });
    try {
      const refused = await readCurrent(shop, getResource('products'), [products[0]!]);
      expect(refused.records.size).toBe(0);
      expect(refused.failed.get(String(products[0]))).toMatchObject({ retryable: false, reason: expect.stringMatching(/^\[\w+\]/) });
    } finally {
      await setFaults(sandbox, { error_rate: 0 });
    }
  });
});
