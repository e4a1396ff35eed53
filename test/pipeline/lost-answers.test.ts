/**
 * Creates whose answer is lost (the sandbox's `reset_after_write_rate`: the write took effect,
 * then the connection drops) for resources the shop does not de-duplicate: the pipeline looks the
 * record up before creating it again, so the shop never holds a duplicate.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { pushFixture, setFaults, sqliteSource, type PushFixture } from './support.js';

const mappingPath = (name: string) => fileURLToPath(new URL(`../../mappings/${name}.yaml`, import.meta.url));
const push = (name: string, resource: string) => ({ name, direction: 'push' as const, source: { connection: 'erp' }, mapping: `${name}.yaml`, resource, batchSize: 5, options: { maxAttempts: 10 } });

let f: PushFixture;
beforeEach(async () => {
  f = await pushFixture();
  f.erp.exec(`CREATE TABLE hersteller (HerstellerNr TEXT PRIMARY KEY, Name TEXT NOT NULL, Webseite TEXT, EU TEXT, Strasse TEXT, PLZ TEXT, Ort TEXT, Land TEXT, Email TEXT, Telefon TEXT, geaendert TEXT NOT NULL);
              CREATE TABLE warengruppen (WGR TEXT PRIMARY KEY, Ueber_WGR TEXT, Aktiv TEXT, Sortierung INTEGER, Bezeichnung TEXT NOT NULL, Bezeichnung_EN TEXT, geaendert TEXT NOT NULL)`);
});
afterEach(async () => {
  await setFaults(f.sandbox, { reset_after_write_rate: 0 });
  await f.close();
});

async function all(resource: 'manufacturers' | 'categories'): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const r of f.shop.exportAll(resource)) out.push(r);
  return out;
}

describe('creates whose answer was lost (OUTCOME_UNKNOWN)', () => {
  it('creates every manufacturer exactly once when every second write answer is lost', async () => {
    const insert = f.erp.prepare("INSERT INTO hersteller VALUES (?, ?, ?, 'J', 'Weg 1', '10115', 'Berlin', 'de', 'info@example.com', '030 1', '2026-01-01 00:00:00')");
    for (let i = 1; i <= 40; i++) insert.run(`H-${i}`, `Hersteller ${i}`, `https://h${i}.example.com`);
    const mapping = await loadMapping(mappingPath('manufacturers'));
    // The client never repeats these POSTs itself (nothing in them lets the shop recognise a repeat): every lost answer reaches the pipeline.
    const shop = f.shop;
    await setFaults(f.sandbox, { reset_after_write_rate: 0.5 });
    const summary = await runPipeline(push('manufacturers', 'manufacturers'), { state: f.state, shop, mapping, source: sqliteSource(f.erpFile, { query: 'SELECT * FROM hersteller', cursor: 'geaendert', key: 'HerstellerNr' }) });
    await setFaults(f.sandbox, { reset_after_write_rate: 0 });

    expect(summary, JSON.stringify(summary.error)).toMatchObject({ status: 'succeeded', counts: { read: 40 } });
    expect(summary.counts.created + summary.counts.updated).toBe(40);
    const inShop = await all('manufacturers');
    expect(inShop.map((m) => m.manufacturers_name).sort()).toEqual(Array.from({ length: 40 }, (_, i) => `Hersteller ${i + 1}`).sort());
    for (const m of inShop) {
      const n = String(m.manufacturers_name).slice('Hersteller '.length);
      expect((await f.state.refs.get('manufacturers', `H-${n}`))?.shopId).toBe(m.manufacturers_id);
      expect(m.manufacturers_gpsr_contact_city).toBe('Berlin');
    }
    expect(await f.state.intents.list('manufacturers')).toEqual([]);
  });

  it('creates every category exactly once, telling same-named subcategories apart by their parent', async () => {
    const insert = f.erp.prepare("INSERT INTO warengruppen VALUES (?, ?, 'J', ?, ?, ?, ?)");
    for (let i = 1; i <= 6; i++) insert.run(`W${i}`, null, i, `Gruppe ${i}`, `Group ${i}`, '2026-01-01 00:00:00');
    const mapping = await loadMapping(mappingPath('categories'));
    const source = sqliteSource(f.erpFile, { query: 'SELECT * FROM warengruppen', cursor: 'geaendert', key: 'WGR' });
    const shop = f.shop;
    await setFaults(f.sandbox, { reset_after_write_rate: 0.5 });
    const roots = await runPipeline(push('categories', 'categories'), { state: f.state, shop, mapping, source });
    // Every root gets two subcategories named alike: "Zubehör" and "Ersatzteile".
    for (let i = 1; i <= 6; i++) {
      insert.run(`W${i}-Z`, `W${i}`, 1, 'Zubehör', 'Accessories', '2026-01-02 00:00:00');
      insert.run(`W${i}-E`, `W${i}`, 2, 'Ersatzteile', 'Spare parts', '2026-01-02 00:00:00');
    }
    const children = await runPipeline(push('categories', 'categories'), { state: f.state, shop, mapping, source });
    await setFaults(f.sandbox, { reset_after_write_rate: 0 });

    expect(roots).toMatchObject({ status: 'succeeded', counts: { read: 6 } });
    expect(children, JSON.stringify(children.error)).toMatchObject({ status: 'succeeded', counts: { read: 12 } });
    const inShop = await all('categories');
    expect(inShop).toHaveLength(18);
    const name = (c: Record<string, unknown>) => (c.languages as Record<string, { name: string }>).de!.name;
    for (let i = 1; i <= 6; i++) {
      const root = inShop.find((c) => name(c) === `Gruppe ${i}`)!;
      expect((await f.state.refs.get('categories', `W${i}`))?.shopId).toBe(root.categories_id);
      const under = inShop.filter((c) => c.parent_id === root.categories_id).map(name).sort();
      expect(under).toEqual(['Ersatzteile', 'Zubehör']);
    }
  });
});
