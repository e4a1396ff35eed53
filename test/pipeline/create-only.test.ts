/** `create_only` fields of a mapping (customer addresses): sent on create, never on update. */
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMapping } from '../../src/mapping/index.js';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { pushFixture, shopRecords, sqliteSource, type PushFixture } from './support.js';

const CUSTOMERS = fileURLToPath(new URL('../../mappings/customers.yaml', import.meta.url));
const def = { name: 'customers', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'customers.yaml', resource: 'customers', batchSize: 10 };

let f: PushFixture;
let mapping: CompiledMapping;
beforeEach(async () => {
  f = await pushFixture();
  mapping = await loadMapping(CUSTOMERS);
  f.erp.exec(`CREATE TABLE kunden (KDNR TEXT PRIMARY KEY, Email TEXT, Vorname TEXT, Nachname TEXT, Telefon TEXT, Firma TEXT, Strasse TEXT, PLZ TEXT, Ort TEXT, Land TEXT, geaendert TEXT NOT NULL)`);
  const insert = f.erp.prepare("INSERT INTO kunden VALUES (?, ?, 'Erika', ?, ?, 'Muster GmbH', 'Hauptstr. 1', '10115', 'Berlin', 'de', '2026-01-01 00:00:00')");
  for (let i = 1; i <= 3; i++) insert.run(`K-${i}`, `kundin${i}@example.com`, `Kundin ${i}`, `030 ${i}`);
});
afterEach(async () => {
  await f.close();
});

const deps = () => ({ state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile, { query: 'SELECT * FROM kunden', cursor: 'geaendert', key: 'KDNR' }) });

describe('create-only mapping fields', () => {
  it('keeps exactly one address per customer when the shipped customers mapping pushes a changed phone number', async () => {
    const first = await runPipeline(def, deps());
    expect(first).toMatchObject({ status: 'succeeded', counts: { created: 3 } });
    f.erp.prepare("UPDATE kunden SET Telefon = '040 999', geaendert = '2026-01-02 00:00:00' WHERE KDNR = 'K-2'").run();
    const second = await runPipeline(def, deps());
    expect(second).toMatchObject({ status: 'succeeded', counts: { read: 1, updated: 1 } });

    const customers = await shopRecords(f.shop, 'customers');
    expect(customers).toHaveLength(3);
    const k2 = customers.find((c) => c.customers_id_extern === 'K-2')!;
    expect(k2.customers_telephone).toBe('040 999');
    for (const c of customers) expect(c.addresses, `customer ${String(c.customers_id_extern)}`).toHaveLength(1);
  });

  it('makes no request for a customer whose mapped record did not change, create-only fields included', async () => {
    await runPipeline(def, deps());
    f.erp.prepare("UPDATE kunden SET geaendert = '2026-01-03 00:00:00'").run();
    const again = await runPipeline(def, deps());
    expect(again.counts).toMatchObject({ read: 3, unchanged: 3, updated: 0, requests: 0 });
  });

  it('does not send an address change to an existing customer (the address is only written on create)', async () => {
    await runPipeline(def, deps());
    f.erp.prepare("UPDATE kunden SET Ort = 'Hamburg', geaendert = '2026-01-04 00:00:00' WHERE KDNR = 'K-1'").run();
    const again = await runPipeline(def, deps());
    expect(again.counts).toMatchObject({ read: 1, unchanged: 1, requests: 0 });
    const k1 = (await shopRecords(f.shop, 'customers')).find((c) => c.customers_id_extern === 'K-1')!;
    expect(k1.addresses).toHaveLength(1);
  });
});
