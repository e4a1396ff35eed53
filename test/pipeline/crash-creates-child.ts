/**
 * The pushing process of the create-crash test: pushes manufacturers (which the shop does not
 * de-duplicate) and kills itself with SIGKILL right after the answer to write request number
 * <kill at> arrived, before its outcome is committed: the worst moment for a create.
 * argv: <sandbox url> <token> <erp file> <state file> <mapping file> <kill at (0 = never)>
 */
import { createSource } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline, SyncEvents } from '../../src/pipeline/index.js';
import { createShopClient } from '../../src/shop/index.js';
import { openState } from '../../src/state/index.js';

async function main(): Promise<void> {
  const [url, token, erpFile, stateFile, mappingFile, killAt] = process.argv.slice(2) as [string, string, string, string, string, string];
  const state = await openState(stateFile);
  const shop = createShopClient({ baseUrl: url, auth: { kind: 'token', token }, retry: { retries: 8, baseDelayMs: 5, maxDelayMs: 100 } });
  const events = new SyncEvents();
  let batches = 0;
  // batch-sent is emitted after the shop answered and before the batch's outcomes are committed.
  events.on('batch-sent', () => {
    if (++batches === Number(killAt)) process.kill(process.pid, 'SIGKILL');
  });
  const def = { name: 'manufacturers', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'manufacturers.yaml', resource: 'manufacturers', batchSize: 10, options: { maxAttempts: 20, concurrency: 2 } };
  const source = () => createSource({ kind: 'sqlite', path: erpFile }, { query: 'SELECT * FROM hersteller', cursor: 'geaendert', key: 'HerstellerNr' } as never, { logger: silentLogger, baseDir: '/' });
  const summary = await runPipeline(def, { state, shop, mapping: await loadMapping(mappingFile), source, events });
  process.stdout.write(`${summary.status} ${JSON.stringify(summary.counts)}\n`);
  await shop.close();
  await state.close();
  if (summary.status === 'succeeded') process.stdout.write('DONE\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
