import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { pushFixture, shopRecords, sqliteSource, type PushFixture } from './support.js';

// The shipped phone/marketplace order mapping, fed like the demo: order headers with their lines.
const SOURCE = {
  query: 'SELECT * FROM auftraege',
  cursor: 'Geaendert',
  key: 'BelegNr',
  children: [{ field: 'Positionen', query: 'SELECT * FROM auftrag_positionen WHERE BelegNr IN (:keys)', parentKey: 'BelegNr' }],
};
const def = { name: 'orders-from-erp', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'orders-from-erp.yaml', resource: 'orders' };

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
  f.erp.exec(`CREATE TABLE auftraege (BelegNr TEXT PRIMARY KEY, KDNR TEXT, Quelle TEXT, Externe_Nr TEXT, Belegdatum TEXT, Zahlungsart TEXT, Versandart TEXT, Waehrung TEXT, Firma TEXT, Vorname TEXT, Nachname TEXT, Strasse TEXT, PLZ TEXT, Ort TEXT, Land TEXT, Email TEXT, Geaendert TEXT NOT NULL);
              CREATE TABLE auftrag_positionen (BelegNr TEXT NOT NULL, Pos INTEGER NOT NULL, ARTNR TEXT, Menge TEXT, Einzelpreis_Netto TEXT, PRIMARY KEY (BelegNr, Pos))`);
  const p = await f.shop.create('products', [{ products_model: 'ART-1', products_price: '10.00', products_quantity: 100, languages: { de: { products_name: 'Artikel' } } }]);
  expect(p.outcomes[0]!.error).toBeUndefined();
  f.erp.prepare('INSERT INTO auftraege (BelegNr, KDNR, Quelle, Externe_Nr, Belegdatum, Nachname, Geaendert) VALUES (?, ?, ?, ?, ?, ?, ?)').run('B-1', 'K-1', 'TELEFON', 'T-100', '01.02.2026 10:30', 'Muster', '2026-02-01 10:30:00');
  f.erp.prepare('INSERT INTO auftrag_positionen VALUES (?, ?, ?, ?, ?)').run('B-1', 1, 'ART-1', '2', '10,00');
});
afterEach(async () => {
  await f.close();
});

const run = async () => runPipeline(def, { state: f.state, shop: f.shop, mapping: await loadMapping(path.resolve('mappings/orders-from-erp.yaml')), source: sqliteSource(f.erpFile, SOURCE) });

describe('shipped order mapping end to end', () => {
  it('waits for a missing customer, then creates the order exactly once however often it is pushed again', async () => {
    const first = await run();
    expect(first).toMatchObject({ status: 'partial', counts: { deadLettered: 1, created: 0 } });
    expect((await f.state.deadLetters.list({ pipeline: def.name }))[0]).toMatchObject({ erpKey: 'B-1', code: 'MAPPING_LOOKUP' });
    expect(await shopRecords(f.shop, 'orders')).toHaveLength(0);

    // The customers pipeline brings the customer (its reference is what the mapping looks up).
    const c = await f.shop.create('customers', [{ customers_email_address: 'k1@example.com', customers_id_extern: 'K-1', customers_firstname: 'Erika', customers_lastname: 'Muster', addresses: [{ entry_firstname: 'Erika', entry_lastname: 'Muster', entry_street_address: 'Hauptstr. 1', entry_postcode: '10115', entry_city: 'Berlin', entry_country: 'DE' }] }]);
    await f.state.write((tx) => tx.refs.put('customers', 'K-1', c.outcomes[0]!.data!.customers_id as number));
    expect((await run())).toMatchObject({ status: 'succeeded', counts: { created: 1 } });
    expect(await shopRecords(f.shop, 'orders')).toHaveLength(1);

    // A changed line in the ERP: the order the shop holds is not rewritten nor created again.
    f.erp.prepare('UPDATE auftrag_positionen SET Menge = ? WHERE BelegNr = ?').run('3', 'B-1');
    f.erp.prepare('UPDATE auftraege SET Geaendert = ? WHERE BelegNr = ?').run('2026-02-02 08:00:00', 'B-1');
    expect((await run()).counts).toMatchObject({ unchanged: 1, created: 0, requests: 0 });

    // The state is lost (a new state file): the shop answers with the existing order, never a second one.
    await f.state.write((tx) => tx.refs.delete('orders', 'B-1'));
    await f.state.hashes.clear(def.name);
    await f.state.cursors.delete(def.name);
    const again = await run();
    expect(again).toMatchObject({ status: 'succeeded', counts: { unchanged: 1, created: 0 } });
    const orders = await shopRecords(f.shop, 'orders');
    expect(orders).toHaveLength(1);
    expect((await f.state.refs.get('orders', 'B-1'))?.shopId).toBe(orders[0]!.orders_id);
  });
});
