import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { pushFixture, sqliteSource, type PushFixture } from './support.js';

// The shipped customers mapping, fed like the demo: customer rows with their discount rows (Rabatte).
const SOURCE = {
  query: 'SELECT * FROM kunden',
  cursor: 'Geaendert',
  key: 'KDNR',
  children: [{ field: 'Rabatte', query: 'SELECT * FROM kunden_rabatte WHERE KDNR IN (:keys) ORDER BY WGR', parentKey: 'KDNR' }],
};
const def = { name: 'customers', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'customers.yaml', resource: 'customers' };

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
  f.erp.exec(`CREATE TABLE kunden (KDNR TEXT PRIMARY KEY, Email TEXT, Vorname TEXT, Nachname TEXT, Strasse TEXT, PLZ TEXT, Ort TEXT, Land TEXT, Geaendert TEXT NOT NULL);
              CREATE TABLE kunden_rabatte (KDNR TEXT NOT NULL, WGR TEXT NOT NULL, Rabatt TEXT, Untergruppen TEXT)`);
  const cats = await f.shop.create('categories', [{ parent_id: 0, languages: { de: { categories_name: 'Werkzeug' } } }, { parent_id: 0, languages: { de: { categories_name: 'Garten' } } }]);
  await f.state.write((tx) => tx.refs.put('categories', 'WG-1', cats.outcomes[0]!.data!.categories_id as number));
  await f.state.write((tx) => tx.refs.put('categories', 'WG-2', cats.outcomes[1]!.data!.categories_id as number));
  f.erp.prepare('INSERT INTO kunden VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run('K-1', 'k1@example.com', 'Erika', 'Muster', 'Hauptstr. 1', '10115', 'Berlin', 'DE', '2026-01-01 00:00:00');
  f.erp.prepare('INSERT INTO kunden_rabatte VALUES (?, ?, ?, ?)').run('K-1', 'WG-1', '5,5', 'J');
  f.erp.prepare('INSERT INTO kunden_rabatte VALUES (?, ?, ?, ?)').run('K-1', 'WG-2', '10', 'N');
});
afterEach(async () => {
  await f.close();
});

const run = async () => runPipeline(def, { state: f.state, shop: f.shop, mapping: await loadMapping(path.resolve('mappings/customers.yaml')), source: sqliteSource(f.erpFile, SOURCE) });
async function discounts(): Promise<number[]> {
  const customer = (await f.shop.exportOne('customers', (await f.state.refs.get('customers', 'K-1'))!.shopId))!;
  return (customer.discounts as { value: unknown }[]).map((d) => Number(d.value)).sort((a, b) => a - b);
}
const touch = (at: string) => f.erp.prepare('UPDATE kunden SET Geaendert = ?').run(at);

describe('shipped customers mapping: the discount set', () => {
  it('never lets one empty discount cell replace the set; an ERP without discount rows clears it, as the mapping declares', async () => {
    expect((await run()).counts).toMatchObject({ created: 1 });
    expect(await discounts()).toEqual([5.5, 10]);

    // One discount cell emptied: the customer is refused, the shop keeps both discounts.
    f.erp.prepare("UPDATE kunden_rabatte SET Rabatt = '' WHERE WGR = 'WG-2'").run();
    touch('2026-01-02 00:00:00');
    expect((await run()).counts).toMatchObject({ deadLettered: 1, updated: 0 });
    expect(await discounts()).toEqual([5.5, 10]);

    // Fixed in the ERP: the set is replaced as a whole, and the letter is gone.
    f.erp.prepare("UPDATE kunden_rabatte SET Rabatt = '7' WHERE WGR = 'WG-2'").run();
    touch('2026-01-03 00:00:00');
    expect((await run()).counts).toMatchObject({ updated: 1, deadLettered: 0 });
    expect(await discounts()).toEqual([5.5, 7]);
    expect(await f.state.deadLetters.list({ pipeline: 'customers' })).toHaveLength(0);

    // The ERP holds the complete set: no rows means no discounts (`empty: clear` in customers.yaml).
    f.erp.prepare('DELETE FROM kunden_rabatte').run();
    touch('2026-01-04 00:00:00');
    expect((await run()).counts).toMatchObject({ updated: 1 });
    expect(await discounts()).toEqual([]);
  });
});
