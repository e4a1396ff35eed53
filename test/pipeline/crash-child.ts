/**
 * The pushing process of the crash test: pushes manufacturers, products, then orders from the ERP SQLite file
 * into the sandbox until every run succeeds, then prints DONE. The test kills it with SIGKILL at
 * random moments and starts it again.
 * argv: <sandbox url> <token> <erp file> <state location as JSON: {kind: 'sqlite', path} or {kind: 'postgres', url, schema}> <mapping dir>
 */
import { join } from 'node:path';
import { createSource } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline, SyncEvents } from '../../src/pipeline/index.js';
import { createShopClient } from '../../src/shop/index.js';
import { openState, type StateLocation } from '../../src/state/index.js';
import { ORDER_SOURCE } from './support.js';

async function main(): Promise<void> {
  const [url, token, erpFile, stateLocation, dir] = process.argv.slice(2) as [string, string, string, string, string];
  const state = await openState(JSON.parse(stateLocation) as StateLocation);
  const shop = createShopClient({ baseUrl: url, auth: { kind: 'token', token }, rateLimit: { concurrency: 8, intervalCap: 100_000, intervalMs: 1000 }, retry: { retries: 8, baseDelayMs: 5, maxDelayMs: 100 } });
  const source = (config: Record<string, unknown>) => () => createSource({ kind: 'sqlite', path: erpFile }, config as never, { logger: silentLogger, baseDir: '/' });
  const pipelines = [
    { def: { name: 'manufacturers', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'manufacturers.yaml', resource: 'manufacturers', batchSize: 10, options: { maxAttempts: 20 } }, mapping: await loadMapping(join(dir, 'manufacturers.yaml')), source: source({ query: 'SELECT * FROM hersteller', cursor: 'geaendert', key: 'HerstellerNr' }) },
    { def: { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products', batchSize: 50, options: { maxAttempts: 20 } }, mapping: await loadMapping(join(dir, 'products.yaml')), source: source({ query: 'SELECT * FROM products', cursor: 'updated_at', key: 'sku' }) },
    { def: { name: 'orders', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'orders.yaml', resource: 'orders', batchSize: 25, options: { maxAttempts: 20 } }, mapping: await loadMapping(join(dir, 'orders.yaml')), source: source(ORDER_SOURCE) },
  ];
  // One line per answered write request: the test times its kills by these, so they land mid-run.
  const events = new SyncEvents();
  events.on('batch-sent', () => process.stdout.write('B\n'));
  process.stdout.write('READY\n');
  for (const p of pipelines) {
    for (let attempt = 0; ; attempt++) {
      const summary = await runPipeline(p.def, { state, shop, mapping: p.mapping, source: p.source, events });
      process.stdout.write(`${p.def.name} ${summary.status} ${JSON.stringify(summary.counts)}\n`);
      if (summary.status === 'succeeded') break;
      if (attempt > 20) throw new Error(`${p.def.name} did not succeed: ${JSON.stringify(summary.error)}`);
    }
  }
  await shop.close();
  await state.close();
  process.stdout.write('DONE\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
