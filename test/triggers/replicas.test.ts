/**
 * With replicas every one of them hears a trigger (each has its own NOTIFY listener, watcher or
 * hook); a wake-up becomes a job of the pipeline's lane, so the replicas together still run the
 * pipeline one run at a time, and a burst heard by all of them costs a run and a follow-up, not a
 * run per replica per wake-up.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { startDaemon, type Daemon } from '../../src/ops/daemon.js';
import { sleep } from '../../src/util/time.js';
import { freshSchema, POSTGRES_URL, postgresAvailable } from '../jobs/support.js';
import { clientFor, shopRecords } from '../pipeline/support.js';
import { productsMapping } from '../support/mappings.js';
import { useSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

const sandbox = useSandbox();
const daemons: Daemon[] = [];
afterAll(async () => {
  for (const d of daemons) await d.close();
}, 60_000);

describe.skipIf(!postgresAvailable)('wake-ups on two replicas', () => {
  it('turn 200 wake-ups heard by both replicas into runs of the lane one at a time, far fewer than the wake-ups, and deliver the last change', async () => {
    const dir = tempDir('shopsync-wake-replicas-');
    const erp = new Database(join(dir, 'erp.sqlite'));
    erp.exec("CREATE TABLE stock (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty TEXT, updated_at TEXT); INSERT INTO stock VALUES ('W-1', 'Eins', '1.00', '0', '2026-01-01 00:00:00.000')");
    writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
    const text = `shop: { baseUrl: "${sandbox.url}", token: "\${T}" }
connections: { erp: { kind: sqlite, path: erp.sqlite } }
pipelines:
  - { name: stock, direction: push, resource: products, mapping: p.yaml, trigger: { hook: { secret: "\${HOOK}" }, debounce: 100ms }, source: { connection: erp, query: SELECT * FROM stock, cursor: updated_at, key: sku, lookback: 0 } }
state: { kind: postgres, url: "${POSTGRES_URL}", schema: ${freshSchema('shopsync_wake')} }
replicas: { concurrency: 2, heartbeatMs: 500, deadAfterMs: 5000 }
dashboard: { port: 0 }
`;
    const env = { T: sandbox.token, HOOK: '0123456789abcdef0123456789' };
    for (let i = 0; i < 2; i++) daemons.push(await startDaemon(parseConfigText(text, join(dir, 'shopsync.yaml'), { env }), { logger: silentLogger }));
    const [a, b] = daemons as [Daemon, Daemon];
    let qty = 0;
    for (let i = 0; i < 100; i++) {
      qty++;
      erp.prepare("UPDATE stock SET qty = ?, updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE sku = 'W-1'").run(String(qty));
      // Both replicas hear every change, as they would each hear a NOTIFY.
      a.scheduler.wake('stock', 'notify');
      b.scheduler.wake('stock', 'notify');
      await sleep(30);
    }
    const shop = clientFor(sandbox);
    try {
      const deadline = Date.now() + 30_000;
      let delivered: unknown;
      while (Date.now() < deadline) {
        delivered = (await shopRecords(shop, 'products')).find((r) => r.products_model === 'W-1')?.products_quantity;
        if (Number(delivered) === qty) break;
        await sleep(200);
      }
      expect(Number(delivered)).toBe(qty);
    } finally {
      await shop.close();
    }
    await sleep(1000);
    const runs = (await a.runtime.state.runs.list({ pipeline: 'stock' })).sort((x, y) => x.startedAt.localeCompare(y.startedAt));
    expect(runs.every((r) => r.status === 'succeeded')).toBe(true);
    // 200 wake-ups over about 3 s: each replica asks for a job at most once per debounce (100 ms),
    // and asks that meet a waiting job fold into it (28 runs here on a quiet machine); never two runs of the lane at once.
    expect(runs.length).toBeGreaterThanOrEqual(1);
    expect(runs.length).toBeLessThanOrEqual(60);
    for (let i = 1; i < runs.length; i++) expect(runs[i]!.startedAt >= runs[i - 1]!.finishedAt!).toBe(true);
  }, 120_000);
});
