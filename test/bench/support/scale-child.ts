/**
 * One point of the scale curve in a process of its own, so its peak resident memory is its own.
 * `push <n> <erpFile> <url> <token> [reread]`: shopsync (defaults) pushes the first n catalog products,
 * then (with `reread`) re-reads all of them with the cursor reset (nothing changed: every record compared by hash).
 * `pull <url> <token>`: shopsync pulls every shop order into the demo ERP's order import tables (SQLite).
 * Prints one JSON line with the figures.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { shopClientOptions, shopConfigSchema } from '../../../src/config/shop.js';
import { createSink, createSource } from '../../../src/erp/index.js';
import { silentLogger } from '../../../src/log.js';
import { loadMapping } from '../../../src/mapping/index.js';
import { createDemoErp } from '../../../src/ops/demo/erp.js';
import { runPipeline } from '../../../src/pipeline/index.js';
import { pipelineSchema } from '../../../src/pipeline/schema.js';
import { createShopClient } from '../../../src/shop/index.js';
import { openState } from '../../../src/state/index.js';
import { catalogSource, skuOf, writeCatalogMapping } from './catalog.js';
import { peakRssMb } from './report.js';

function bytesIn(dir: string, prefix: string): number {
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix))
    .reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

async function push(n: number, erpFile: string, url: string, token: string, reread: boolean): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-bench-scale-'));
  const client = createShopClient(shopClientOptions(shopConfigSchema.parse({ baseUrl: url, token })));
  const state = await openState(join(dir, 'state.db'));
  try {
    const def = pipelineSchema.parse({ name: 'bench-products', direction: 'push', source: { connection: 'erp' }, mapping: 'bench-products.yaml', resource: 'products' });
    const mapping = await loadMapping(writeCatalogMapping(dir));
    const source = () => createSource({ kind: 'sqlite', path: erpFile }, catalogSource(`SELECT * FROM products WHERE sku <= '${skuOf(n)}'`), { logger: silentLogger, baseDir: dir });
    let t = performance.now();
    const cpu = process.cpuUsage();
    const first = await runPipeline(def, { state, shop: client, mapping, source });
    const ms = performance.now() - t;
    // shopsync's own CPU time (this process), apart from the shop's, which runs in another process.
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000;
    if (first.status !== 'succeeded' || first.counts.created !== n) throw new Error(`push of ${n} ended ${first.status}: ${JSON.stringify(first.counts)}`);
    const pushRssMb = peakRssMb();
    let rereadMs = -1;
    if (reread) {
      await state.cursors.delete(def.name);
      t = performance.now();
      const again = await runPipeline(def, { state, shop: client, mapping, source });
      rereadMs = performance.now() - t;
      if (again.counts.unchanged !== n || again.counts.requests !== 0) throw new Error(`full re-read of ${n}: ${JSON.stringify(again.counts)}`);
    }
    await state.close();
    // The peak over push and re-read: whichever needed more.
    return { n, ms, cpuMs, rereadMs, stateBytes: bytesIn(dir, 'state.db'), requests: first.counts.requests, peakRssMb: Math.max(pushRssMb, peakRssMb()) };
  } finally {
    await client.close();
    await state.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function pull(url: string, token: string): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-bench-pull-'));
  const client = createShopClient(shopClientOptions(shopConfigSchema.parse({ baseUrl: url, token })));
  const state = await openState(join(dir, 'state.db'));
  try {
    const mappingFile = resolve('mappings', 'orders-to-erp.yaml');
    const erp = await createDemoErp(join(dir, 'erp'), mappingFile);
    const sinkConfig = { table: 'erp_orders', key: 'Shop_BestellNr', children: [{ field: 'Positionen', table: 'erp_order_lines', key: ['Shop_BestellNr', 'Pos'], parentKey: 'Shop_BestellNr' }] };
    const def = pipelineSchema.parse({ name: 'orders-in', direction: 'pull', sink: { connection: 'erp' }, mapping: mappingFile, resource: 'orders' });
    const mapping = await loadMapping(mappingFile);
    const sink = () => createSink({ kind: 'sqlite', path: erp.database }, sinkConfig, { logger: silentLogger, baseDir: dir });
    const t = performance.now();
    const run = await runPipeline(def, { state, shop: client, mapping, sink });
    const ms = performance.now() - t;
    if (run.status !== 'succeeded') throw new Error(`pull ended ${run.status}: ${JSON.stringify(run.error ?? run.counts)}`);
    return { n: run.counts.read, ms, requests: run.counts.requests, peakRssMb: peakRssMb() };
  } finally {
    await client.close();
    await state.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const [mode, ...args] = process.argv.slice(2);
const result = mode === 'push' ? await push(Number(args[0]), args[1]!, args[2]!, args[3]!, args[4] === 'reread') : await pull(args[0]!, args[1]!);
process.stdout.write(`${JSON.stringify(result)}\n`);
