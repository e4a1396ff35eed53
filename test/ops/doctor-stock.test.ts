/**
 * `doctor` judges a push pipeline's stock choice where mapping and pipeline meet, as its run would:
 * `stock: available` with the pipeline's `reservations:` is refused (STOCK_RESERVATIONS_UNUSED: the
 * dashboard, /metrics and the alert would count units subtracted that never are), `stock: reserved`
 * with `reservations:` is fine. The shop is unreachable on purpose; these tests read one check.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { runDoctor } from '../../src/ops/doctor.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'shopsync-doctor-stock-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const mapping = (stock: string) => `name: stock
direction: erp-to-shop
target: { resource: products, operation: update }
key: ARTNR
shop_key: products_model
stock: ${stock}
fields:
  products_model: { from: ARTNR, required: true }
  products_quantity: { from: Bestand, type: integer, required: true }
`;

async function stockCheck(stock: 'available' | 'reserved') {
  writeFileSync(join(dir, `stock-${stock}.yaml`), mapping(stock));
  const file = join(dir, `shopsync-${stock}.yaml`);
  writeFileSync(file, `shop:
  baseUrl: http://127.0.0.1:9/api
  token: t
connections:
  erp: { kind: sqlite, path: erp.sqlite }
pipelines:
  - name: stock
    direction: push
    resource: products
    mapping: stock-${stock}.yaml
    source: { connection: erp, query: "SELECT * FROM artikel", cursor: Geaendert, key: ARTNR }
    reservations: { booked: { changedAfter: true } }
state:
  path: ${stock}.state.db
`);
  const checks = await runDoctor(await loadConfig(file, { env: {} }));
  return checks.find((c) => c.name === 'pipeline stock: stock choice');
}

describe('doctor on a stock pipeline', () => {
  it('fails a mapping that says stock: available in a pipeline with reservations:, naming both fixes', async () => {
    const check = await stockCheck('available');
    expect(check).toMatchObject({ ok: false, pipeline: 'stock' });
    expect(check!.detail).toContain('[STOCK_RESERVATIONS_UNUSED]');
    expect(check!.detail).toContain('stock: reserved');
    expect(check!.detail).toContain('remove `reservations:`');
  });

  it('has nothing to say about stock: reserved with reservations:', async () => {
    expect(await stockCheck('reserved')).toBeUndefined();
  });
});
