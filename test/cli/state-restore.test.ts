/**
 * `shopsync state restore` of an older backup, and a deleted state, beside an orders pull into a
 * SQLite import table (spawned CLI, sandbox shop over HTTP): the next `sync` delivers nothing, fails
 * naming why, shows in `status --failing`; `state accept-restore` or `sync --accept-restore` lets it
 * go on, and the orders are updates of the rows already there, one row per order. The import
 * table has an owner column, which is how the sink tells its own rows of an older state.
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { useSandbox, shopEnv } from '../support/sandbox.js';
import { clientFor } from '../pipeline/support.js';
import { ensureBuilt, runCli, startCli, tempDir } from './support.js';

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });

/** An orders pull through the shipped mapping into `erp_orders` / `erp_order_lines` of erp.sqlite. */
function setUp(): { dir: string; config: string; erp: Database.Database } {
  const dir = tempDir('shopsync-cli-restore-');
  copyFileSync(resolve('mappings/orders-to-erp.yaml'), join(dir, 'orders-to-erp.yaml'));
  const erp = new Database(join(dir, 'erp.sqlite'));
  erp.exec(`CREATE TABLE erp_orders (Shop_BestellNr INTEGER PRIMARY KEY, Shop_KundenNr INTEGER, Bestelldatum TEXT, Status INTEGER, Zahlungsart TEXT, Versandart TEXT, Waehrung TEXT, Preisart TEXT,
    Summe_Netto TEXT, Steuer TEXT, Summe_Brutto TEXT, Quelle TEXT, Externe_Nr TEXT, RE_Firma TEXT, RE_Name TEXT, RE_Strasse TEXT, RE_PLZ TEXT, RE_Ort TEXT, RE_Land TEXT,
    LI_Name TEXT, LI_Strasse TEXT, LI_PLZ TEXT, LI_Ort TEXT, LI_Land TEXT, shopsync_pipeline TEXT)`);
  erp.exec('CREATE TABLE erp_order_lines (Shop_BestellNr INTEGER, Pos INTEGER, ARTNR TEXT, Bezeichnung TEXT, Menge TEXT, Einzelpreis TEXT, Steuersatz TEXT, PRIMARY KEY (Shop_BestellNr, Pos))');
  mkdirSync(join(dir, 'state'));
  const config = join(dir, 'shopsync.yaml');
  writeFileSync(
    config,
    `shop:
  baseUrl: \${SHOP_URL}
  token: \${SHOP_TOKEN}
  retry: { baseDelayMs: 5, maxDelayMs: 200 }
connections:
  erp: { kind: sqlite, path: erp.sqlite }
pipelines:
  - name: orders
    direction: pull
    resource: orders
    mapping: orders-to-erp.yaml
    sink: { connection: erp, table: erp_orders, key: Shop_BestellNr, ownerColumn: shopsync_pipeline, children: [{ field: Positionen, table: erp_order_lines, key: [Shop_BestellNr, Pos], parentKey: Shop_BestellNr }] }
    options: { overlapDays: 30 }
state:
  path: state/shopsync.db
`,
  );
  return { dir, config, erp };
}

async function place(n: number): Promise<number[]> {
  const shop = clientFor(sandbox);
  try {
    const created = await shop.create('orders', Array.from({ length: n }, (_, i) => ({
      customers_id: 0,
      auto_stock: false,
      tax_flag: 0,
      date_purchased: `2025-03-0${1 + (i % 5)} 12:00:00`,
      billing: { firstname: 'Erika', lastname: `Muster ${i}`, street_address: 'Hauptstr. 1', postcode: '10115', city: 'Berlin', country_iso_code_2: 'DE' },
      products: [{ products_model: `ART-${i}`, products_name: `Artikel ${i}`, quantity: 1, products_price: 10 }],
    })));
    expect(created.outcomes.every((o) => o.ok)).toBe(true);
    return created.outcomes.map((o) => Number(o.data!.orders_id));
  } finally {
    await shop.close();
  }
}

const orderNumbers = (erp: Database.Database) => (erp.prepare('SELECT Shop_BestellNr AS n FROM erp_orders ORDER BY 1').all() as { n: number }[]).map((r) => r.n);
/** The ERP marks what it imported; a re-delivery would overwrite the mark. */
const markImported = (erp: Database.Database) => erp.exec("UPDATE erp_orders SET RE_Ort = 'importiert'");
const imported = (erp: Database.Database) => (erp.prepare("SELECT Shop_BestellNr AS n FROM erp_orders WHERE RE_Ort = 'importiert' ORDER BY 1").all() as { n: number }[]).map((r) => r.n);

describe('a pull after the state went back in time (spawned)', { timeout: 180_000 }, () => {
  it('after `state restore` of an older backup, sync delivers nothing and fails naming the restore until `sync --accept-restore`; the orders are then updates of their rows', async () => {
    const { dir, config, erp } = setUp();
    const env = shopEnv(sandbox);
    const sync = (...extra: string[]) => runCli(['sync', 'orders', '--config', config, ...extra], { env });
    try {
      const before = await place(3);
      const first = await sync();
      expect(first.code, first.stderr).toBe(0);
      const backup = join(dir, 'backup.db');
      expect((await runCli(['state', 'backup', backup, '--config', config], { env })).code).toBe(0);
      await place(2);
      const second = await sync();
      expect(second.stdout).toMatch(/created 2, updated 0/);
      const all = orderNumbers(erp);
      expect(all).toEqual(expect.arrayContaining(before));
      markImported(erp);

      const restore = await runCli(['state', 'restore', backup, '--config', config], { env });
      expect(restore.code, restore.stderr).toBe(0);
      expect(restore.stdout).toContain('pull pipelines deliver nothing until you accept the restore');

      const refused = await sync();
      expect(refused.code).toBe(1);
      expect(refused.stdout).toMatch(/orders sync failed [\s\S]*\[STATE_RESTORED\] pull orders refused to deliver: the state was restored from .*backup\.db at \d{4}-/);
      expect(refused.stdout).toContain('shopsync state accept-restore orders');
      expect(imported(erp)).toEqual(all);

      const failing = await runCli(['status', '--failing', '--json', '--config', config], { env });
      expect(failing.code, failing.stderr).toBe(1);
      expect(JSON.parse(failing.stdout).pipelines.map((p: { name: string }) => p.name)).toEqual(['orders']);

      // The daemon says it at start, before any run is refused.
      const daemon = startCli(['run', '--port', '0', '--config', config], { env });
      await daemon.waitFor(/shopsync daemon started/, 60_000);
      const said = await daemon.waitFor(/.*STATE_RESTORED.*/, 60_000);
      expect(said[0]).toContain('"pipelines":["orders"]');
      expect(said[0]).toContain('these pull pipelines deliver nothing until `shopsync state accept-restore`');
      daemon.child.kill('SIGTERM');
      expect((await daemon.exited).code).toBe(0);

      const doctor = await runCli(['doctor', '--json', '--config', config], { env });
      expect(JSON.parse(doctor.stdout).checks).toContainEqual(expect.objectContaining({ name: 'state restore', ok: false, detail: expect.stringContaining('pull pipelines orders deliver nothing until `shopsync state accept-restore`') }));

      const accepted = await sync('--accept-restore');
      expect(accepted.code, accepted.stdout + accepted.stderr).toBe(0);
      expect(accepted.stdout).toMatch(/orders sync succeeded .*created 0, updated 2, unchanged 3/);
      expect(orderNumbers(erp)).toEqual(all);
      expect(imported(erp)).toEqual(before.sort((a, b) => a - b));
      // Recorded in the state: the next run (the daemon's) goes on without the flag.
      const next = await sync();
      expect(next.code, next.stdout).toBe(0);
      expect(next.stdout).toMatch(/created 0, updated 0, unchanged 5/);
    } finally {
      erp.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('after the state file was deleted, sync fails with STATE_BEHIND_SINK naming the orders the table holds, until `state accept-restore`', async () => {
    const { dir, config, erp } = setUp();
    const env = shopEnv(sandbox);
    const sync = () => runCli(['sync', 'orders', '--config', config], { env });
    try {
      await place(2);
      expect((await sync()).code).toBe(0);
      const all = orderNumbers(erp);
      markImported(erp);
      for (const suffix of ['', '-wal', '-shm']) rmSync(join(dir, 'state', `shopsync.db${suffix}`), { force: true });

      const refused = await sync();
      expect(refused.code).toBe(1);
      expect(refused.stdout).toContain(`[STATE_BEHIND_SINK] pull orders refused to deliver: sqlite table erp_orders already holds ${Math.min(all.length, 200)} of the records about to be delivered`);
      expect(imported(erp)).toEqual(all);

      const push = await runCli(['state', 'accept-restore', 'products', '--config', config], { env });
      expect(push.code).toBe(2);
      expect(push.stderr).toContain('no pipeline products in the config; pull pipelines: orders');
      const accept = await runCli(['state', 'accept-restore', '--config', config], { env });
      expect(accept.code, accept.stderr).toBe(0);
      expect(accept.stdout).toContain('accepted for orders');
      const again = await sync();
      expect(again.code, again.stdout + again.stderr).toBe(0);
      expect(again.stdout).toContain(`created 0, updated ${all.length}`);
      expect(orderNumbers(erp)).toEqual(all);
      expect(imported(erp)).toEqual([]);
    } finally {
      erp.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
