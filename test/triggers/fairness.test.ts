import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { startDaemon } from '../../src/ops/daemon.js';
import { sleep } from '../../src/util/time.js';
import { clientFor, setFaults, shopRecords } from '../pipeline/support.js';
import { productsMapping } from '../support/mappings.js';
import { useSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';
import { until } from '../support/wait.js';

const sandbox = useSandbox();

describe('a woken pipeline and the shop rate budget', () => {
  it('lets a 600-record run of another pipeline of the same shop finish while one pipeline is woken ten times a second, and serves both', async () => {
    const dir = tempDir('shopsync-fair-');
    const erp = new Database(join(dir, 'erp.sqlite'));
    erp.exec('CREATE TABLE bulk (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty TEXT, updated_at TEXT); CREATE TABLE hot (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty TEXT, updated_at TEXT)');
    const insert = erp.prepare("INSERT INTO bulk VALUES (?, 'Bulk', '1.00', '1', '2026-01-01 00:00:00')");
    erp.transaction(() => {
      for (let i = 0; i < 600; i++) insert.run(`B-${String(i).padStart(4, '0')}`);
    })();
    erp.exec("INSERT INTO hot VALUES ('HOT-1', 'Hot', '1.00', '0', '2026-01-01 00:00:00')");
    writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
    const text = `shop: { baseUrl: "${sandbox.url}", token: "\${T}" }
connections: { erp: { kind: sqlite, path: erp.sqlite } }
pipelines:
  - { name: bulk, direction: push, resource: products, mapping: p.yaml, batchSize: 10, source: { connection: erp, query: SELECT * FROM bulk, cursor: updated_at, key: sku } }
  - { name: hot, direction: push, resource: products, mapping: p.yaml, batchSize: 10, trigger: { hook: { secret: "0123456789abcdef0123" }, debounce: 50ms }, source: { connection: erp, query: SELECT * FROM hot, cursor: updated_at, key: sku, lookback: 0 } }
state: { path: state.db }
dashboard: { port: 0 }
`;
    // 20 requests a second: the bulk run alone needs 60 of them, so both pipelines share a budget that is the bottleneck.
    await setFaults(sandbox, { latency_ms: 20, rate_limit_per_second: 20 });
    const daemon = await startDaemon(parseConfigText(text, join(dir, 'shopsync.yaml'), { env: { T: sandbox.token } }), { logger: silentLogger, startSchedule: false });
    const shop = clientFor(sandbox);
    try {
      let bulkDone = false;
      const bulk = daemon.scheduler.runNow('bulk').finally(() => (bulkDone = true));
      let qty = 0;
      const deadline = Date.now() + 90_000;
      while (!bulkDone && Date.now() < deadline) {
        qty++;
        erp.prepare("UPDATE hot SET qty = ?, updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE sku = 'HOT-1'").run(String(qty));
        daemon.scheduler.wake('hot', 'hook');
        await sleep(100);
      }
      await bulk;
      expect(bulkDone).toBe(true);
      const runs = await daemon.runtime.state.runs.list();
      const bulkRun = runs.find((r) => r.pipeline === 'bulk');
      expect(bulkRun).toMatchObject({ status: 'succeeded', counts: { created: 600 } });
      // The woken pipeline got its turns while the long run went on: it was not starved either. (A starved one
      // finishes none before the bulk run ends; how many it finishes depends on the machine's speed, so at least one.)
      const hotDuring = runs.filter((r) => r.pipeline === 'hot' && r.finishedAt !== null && r.startedAt >= bulkRun!.startedAt && r.finishedAt! <= bulkRun!.finishedAt!);
      expect(hotDuring.length).toBeGreaterThanOrEqual(1);
      expect(hotDuring.every((r) => r.status === 'succeeded')).toBe(true);
      // Wake-ups were coalesced: far fewer runs than wake-ups.
      expect(runs.filter((r) => r.pipeline === 'hot').length).toBeLessThan(qty);
      // The last wake-up's run lands the last figure (waited for, not timed: the machine may be busy).
      await until(async () => Number((await shopRecords(shop, 'products')).find((r) => r.products_model === 'HOT-1')?.products_quantity) === qty, 60_000);
      const records = await shopRecords(shop, 'products');
      expect(records.filter((r) => String(r.products_model).startsWith('B-'))).toHaveLength(600);
      expect(Number(records.find((r) => r.products_model === 'HOT-1')?.products_quantity)).toBe(qty);
    } finally {
      await setFaults(sandbox, { latency_ms: 0, rate_limit_per_second: 0 });
      await shop.close();
      await daemon.close();
      erp.close();
    }
  }, 120_000);
});
