import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, startCli, tempDir, type CliProcess } from './support.js';

beforeAll(async () => {
  await ensureBuilt();
}, 300_000);

interface Printed {
  dashboard: string;
  sandbox: string;
  token: string;
  dir: string;
}

async function started(demo: CliProcess): Promise<Printed> {
  const [, dashboard] = await demo.waitFor(/^Dashboard:\s+(http:\/\/127\.0\.0\.1:\d+)$/m, 60_000);
  const [, sandbox, token] = await demo.waitFor(/^Sandbox shop:\s+(http:\/\/127\.0\.0\.1:\d+)\s+\(token: (\S+)\)$/m);
  const [, dir] = await demo.waitFor(/^Demo ERP:\s+(\S+)\s/m);
  return { dashboard, sandbox, token, dir };
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`demo: ${what} did not happen within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function shopGet(p: Printed, path: string): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${p.sandbox}${path}`, { headers: { authorization: `Bearer ${p.token}` } });
  return ((await res.json()) as { data: Record<string, unknown>[] }).data;
}

describe('shopsync demo (what `npm start` runs)', { timeout: 180_000 }, () => {
  it('brings products, variant articles and stock into the sandbox, shows the weekly reconciliation on the Reconcile page, lands a shop order in the ERP, flows its status back, stops on Ctrl-C and starts again', async () => {
    const dir = join(tempDir('shopsync-demo-'), 'demo');
    const demo = startCli(['demo', '--port', '0', '--sandbox-port', '0', '--dir', dir]);
    const p = await started(demo);
    expect(p.dir).toBe(dir);
    expect((await fetch(`${p.dashboard}/healthz`)).status).toBe(200);
    const erp = new Database(join(dir, 'erp.sqlite'), { readonly: true });
    try {
      // Products with the ERP's stock (orders placed since may have booked some of it).
      const articles = erp.prepare('SELECT ARTNR, Bestand FROM artikel').all() as { ARTNR: string; Bestand: string }[];
      const matching = await eventually('products and stock in the sandbox', async () => {
        const shop = new Map((await shopGet(p, '/export/json/products?limit=500')).map((r) => [r.products_model, r]));
        const same = articles.filter((a) => shop.has(a.ARTNR) && Number(shop.get(a.ARTNR)?.products_quantity) === Number(a.Bestand.replace(',', '.')));
        return shop.size >= articles.length - 1 && same.length >= articles.length / 2 ? same.length : undefined;
      });
      expect(matching).toBeGreaterThan(20);

      // The variant articles reach the shop as SKUs (colour × size as a group, sizes alone as options{})…
      const variants = await eventually('the variant articles with their SKUs in the sandbox', async () => {
        const shop = await shopGet(p, '/export/json/products?limit=500');
        const byModel = new Map(shop.map((r) => [r.products_model, r]));
        const groups = byModel.get('DEMO-1067')?.option_groups as { combinations: { model: string }[] }[] | undefined;
        const sizes = Object.values((byModel.get('DEMO-1068')?.options ?? {}) as Record<string, { values: { model: string }[] }>);
        const skus = [...(groups ?? []).flatMap((g) => g.combinations.map((c) => c.model)), ...sizes.flatMap((o) => o.values.map((v) => v.model))];
        return skus.length > 0 ? skus : undefined;
      });
      expect(variants.filter((s) => s.startsWith('DEMO-1067-'))).toHaveLength(6);
      expect(variants.filter((s) => s.startsWith('DEMO-1068-')).length).toBeGreaterThan(1);

      // …and the weekly reconciliation, run once at start, is on the dashboard's Reconcile page.
      const reconcile = await eventually('a products report on the Reconcile page', async () => {
        const page = await (await fetch(`${p.dashboard}/reconcile`)).text();
        return /data-pipeline="products" data-drift="\d+"/.test(page) ? page : undefined;
      });
      expect(reconcile).toContain('<code>0 3 * * 0</code>');
      expect(reconcile).toMatch(/data-report-id="[^"]+"/);
      await demo.waitFor(/products\s+reconciled with the shop: drift \d+/);

      // A demo order placed in the sandbox lands in the ERP…
      const [, placed] = await demo.waitFor(/placed order (\d+)/, 60_000);
      const imported = await eventually('the demo order in erp_orders', async () =>
        erp.prepare("SELECT * FROM erp_orders WHERE Shop_BestellNr = ? AND Quelle = 'shop'").get(Number(placed)) as Record<string, unknown> | undefined,
      );
      expect(imported.Shop_BestellNr).toBe(Number(placed));
      expect(erp.prepare('SELECT COUNT(*) AS n FROM erp_order_lines WHERE Shop_BestellNr = ?').get(Number(placed))).toMatchObject({ n: expect.any(Number) });

      // …and its status, advanced in the ERP, flows back to the shop.
      const order = await eventually('the ERP status back in the shop', async () => {
        const [o] = await shopGet(p, `/export/json/orders?orders_id=${placed}`);
        return o && Number(o.orders_status) >= 2 ? o : undefined;
      });
      expect(Number(order.orders_status)).toBeGreaterThanOrEqual(2);
    } finally {
      erp.close();
    }

    demo.child.kill('SIGINT');
    const first = await demo.exited;
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('Demo stopped.');

    // A second start reuses shop, ERP and state, and stops cleanly again.
    const again = startCli(['demo', '--port', '0', '--sandbox-port', '0', '--dir', dir]);
    const q = await started(again);
    const products = await shopGet(q, '/export/json/products?limit=500');
    expect(products.length).toBeGreaterThan(20);
    await again.waitFor(/orders-to-erp\s+succeeded/, 60_000);
    again.child.kill('SIGINT');
    const second = await again.exited;
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).not.toMatch(/could not run|tripped/);
  }, 180_000);
});
