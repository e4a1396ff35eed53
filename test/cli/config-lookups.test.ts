/**
 * `shopsync config check` and a pull pipeline's `lookups:`: a mapping whose `lookup:` names a lookup
 * its pipeline does not declare fails the check (exit 1) with the name and what to declare; a
 * lookup on a connection of the wrong kind (a query on a JSON-RPC connection) does not load (exit 2).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, tempDir } from './support.js';
import { removeDir } from '../support/tmp.js';

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
      product_id: { from: products_model, lookup: product_by_code }
`;
const config = (lookups: string) => `
shop: { baseUrl: "http://127.0.0.1:9/api", token: "doc-token-0123456789" }
state: { path: state.db }
connections:
  erpdb: { kind: sqlite, path: erp.sqlite }
  tryton: { kind: jsonrpc, dialect: tryton, url: "http://127.0.0.1:9/", database: shop, login: admin, password: secret }
pipelines:
  - name: orders-into-erp
    direction: pull
    resource: orders
    mapping: orders-into-erp.yaml
    sink: { connection: erpdb, table: sale_in, key: order_id }
    lookups:
${lookups}
`;

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = tempDir('shopsync-cli-lookups-');
  writeFileSync(join(dir, 'orders-into-erp.yaml'), MAPPING);
}, 300_000);
afterAll(() => removeDir(dir));

describe('shopsync config check with lookups', () => {
  it('fails a mapping whose lookup: names a lookup the pipeline does not declare, naming it (exit 1)', async () => {
    writeFileSync(join(dir, 'shopsync.yaml'), config('      party_by_email: { connection: tryton, model: party.party, field: contact_mechanisms.value }'));
    const r = await runCli(['config', 'check', '-c', join(dir, 'shopsync.yaml')], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('FAIL pipeline orders-into-erp');
    expect(r.stdout).toContain('uses `lookup: product_by_code`, and pipeline orders-into-erp declares no such lookup under `lookups:` (declared: party_by_email)');
  });

  it('passes once every lookup the mapping uses is declared', async () => {
    writeFileSync(
      join(dir, 'shopsync.yaml'),
      config('      party_by_email: { connection: tryton, model: party.party, field: contact_mechanisms.value }\n      product_by_code: { connection: erpdb, query: "SELECT id FROM product WHERE code = :value" }'),
    );
    const r = await runCli(['config', 'check', '-c', join(dir, 'shopsync.yaml')], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });

  it('refuses a query lookup on a JSON-RPC connection at load (exit 2)', async () => {
    writeFileSync(join(dir, 'shopsync.yaml'), config('      party_by_email: { connection: tryton, query: "SELECT id FROM party WHERE email = :value" }\n      product_by_code: { connection: erpdb, query: "SELECT id FROM product WHERE code = :value" }'));
    const r = await runCli(['config', 'check', '-c', join(dir, 'shopsync.yaml')], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr + r.stdout).toContain('a lookup with `query:` needs a SQL connection; "tryton" is kind jsonrpc');
  });
});
