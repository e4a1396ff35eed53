/**
 * The pushing process of the rename crash test: pushes the article table once and, when told,
 * kills itself with SIGKILL around the SEO history write of a rename, after the product update
 * landed: `before` as that POST would leave, `after` once its answer arrived (before anything of
 * the batch is committed). `never` runs to the end and prints DONE.
 * argv: <sandbox url> <token> <erp file> <state location as JSON> <mapping file> <before | after | never>
 */
import { createSource } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { createShopClient } from '../../src/shop/index.js';
import type { ShopClient } from '../../src/shop/client/types.js';
import { openState, type StateLocation } from '../../src/state/index.js';

/** The real client, dying around its SEO history creates. */
function dyingAround(shop: ShopClient, when: string): ShopClient {
  return {
    ...shop,
    async create(resource, records, options) {
      if (resource !== 'seohistory' || when === 'never') return shop.create(resource, records, options);
      if (when === 'before') process.kill(process.pid, 'SIGKILL');
      const result = await shop.create(resource, records, options);
      process.kill(process.pid, 'SIGKILL');
      return result;
    },
  };
}

async function main(): Promise<void> {
  const [url, token, erpFile, stateLocation, mappingFile, when] = process.argv.slice(2) as [string, string, string, string, string, string];
  const state = await openState(JSON.parse(stateLocation) as StateLocation);
  const client = createShopClient({ baseUrl: url, auth: { kind: 'token', token }, retry: { retries: 4, baseDelayMs: 5, maxDelayMs: 100 } });
  const source = () => createSource({ kind: 'sqlite', path: erpFile }, { query: 'SELECT * FROM article', cursor: 'updated_at', key: 'id', lookback: 0 } as never, { logger: silentLogger, baseDir: '/' });
  const def = { name: 'articles', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'articles.yaml', resource: 'products', batchSize: 10 };
  const summary = await runPipeline(def, { state, shop: dyingAround(client, when), mapping: await loadMapping(mappingFile), source });
  process.stdout.write(`${summary.status} ${JSON.stringify(summary.counts)}\n`);
  await client.close();
  await state.close();
  if (summary.status === 'succeeded') process.stdout.write('DONE\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
