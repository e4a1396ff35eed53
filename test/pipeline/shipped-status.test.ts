import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { pushFixture, setFaults, sqliteSource, type PushFixture } from './support.js';

// The shipped order-status mapping: one ERP row per status event, addressed by the shop's order number.
const SOURCE = { query: 'SELECT * FROM auftrag_status ORDER BY Geaendert', cursor: 'Geaendert', key: 'Vorgang' };
const def = { name: 'order-status', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'order-status.yaml', resource: 'orders', options: { maxAttempts: 1 } };

let f: PushFixture;
let orderId: number;
beforeEach(async () => {
  f = await pushFixture();
  f.erp.exec(`CREATE TABLE auftrag_status (Vorgang TEXT PRIMARY KEY, ShopBestellNr TEXT, Status TEXT, Kommentar TEXT, Kunde_benachrichtigen TEXT, Datum TEXT, Versender TEXT, Sendungsnummer TEXT, Geaendert TEXT NOT NULL)`);
  const o = await f.shop.create('orders', [{ customers_id: 0, tax_flag: 0, external_reference: { source: 'test', external_id: 'O-1' }, billing: { firstname: 'A', lastname: 'B', street_address: 'Hauptstr. 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE' }, products: [{ products_id: 0, products_name: 'Manuell', quantity: 1, products_price: '10.00', products_tax: 19 }] }]);
  expect(o.outcomes[0]!.error).toBeUndefined();
  orderId = o.outcomes[0]!.data!.orders_id as number;
});
afterEach(async () => {
  await f.close();
});

const event = (vorgang: string, status: string, comment: string, datum: string, at: string, tracking: string | null = null) =>
  f.erp.prepare('INSERT OR REPLACE INTO auftrag_status VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(vorgang, String(orderId), status, comment, 'N', datum, tracking ? 'DHL' : null, tracking, at);
const run = async () => runPipeline(def, { state: f.state, shop: f.shop, mapping: await loadMapping(path.resolve('mappings/order-status.yaml')), source: sqliteSource(f.erpFile, SOURCE) });
async function comments(): Promise<string[]> {
  const order = (await f.shop.exportOne('orders', orderId))!;
  return (order.status_history as { comments: string }[]).map((h) => h.comments).filter((c) => c !== '');
}

describe('shipped order-status mapping end to end', () => {
  it('appends two entries with the same status but different comments, each once, and reconciles a lost answer by reading back', async () => {
    event('V-1', 'IN_ARBEIT', 'Ware bestellt ', '01.02.2026 10:00:00', '2026-02-01 10:00:00');
    event('V-2', 'IN_ARBEIT', 'Ware eingetroffen', '02.02.2026 09:15:00', '2026-02-02 09:15:00');
    expect((await run())).toMatchObject({ status: 'succeeded', counts: { updated: 2 } });
    expect(await comments()).toEqual(['Ware bestellt', 'Ware eingetroffen']);

    // The shipping event's answer is lost after the shop wrote it: the next run reads the order back instead of appending again.
    event('V-3', 'VERSANDT', 'Versendet mit DHL', '03.02.2026 14:00:00', '2026-02-03 14:00:00', '00340434161234567890');
    await setFaults(f.sandbox, { reset_after_write_rate: 1 });
    const lost = await run();
    await setFaults(f.sandbox, { reset_after_write_rate: 0 });
    expect(lost.status).toBe('failed');
    expect((await run()).status).toBe('succeeded');
    expect(await comments()).toEqual(['Ware bestellt', 'Ware eingetroffen', 'Versendet mit DHL']);

    // Everything read again from scratch (cursor and hashes lost): nothing is appended twice.
    await f.state.cursors.delete(def.name);
    await f.state.hashes.clear(def.name);
    await run();
    expect(await comments()).toEqual(['Ware bestellt', 'Ware eingetroffen', 'Versendet mit DHL']);
    const order = (await f.shop.exportOne('orders', orderId))!;
    expect((order.tracking as { code: string }[]).map((t) => t.code)).toEqual(['00340434161234567890']);
  });
});
