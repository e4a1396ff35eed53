/**
 * The process of the abandoned-run test: one sync of products whose source hands out two records
 * and then waits forever on a promise nobody settles, holding no socket or timer. It prints and
 * exits as `shopsync sync` does (the CLI's summary line and exit code), so the test sees what a
 * user would: without the drain guard, Node ends this process with 0 in the middle of the run.
 * argv: <sandbox url> <token> <state file> <mapping file>
 */
import { exitCodeOfRun, summaryLine } from '../../src/cli/format.js';
import { EXIT } from '../../src/cli/exit.js';
import { exitWhenAbandoned } from '../../src/drain/index.js';
import type { Source, SourceItem } from '../../src/erp/types.js';
import { silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { createShopClient } from '../../src/shop/index.js';
import { openState } from '../../src/state/index.js';

function item(n: number): SourceItem {
  const sku = `NEVER-${n}`;
  return { key: sku, position: { value: n, key: sku }, record: { sku, name: `Never ${n}`, price: '9.90', qty: '3', updated_at: String(n) } };
}

const neverAnswers: Source = {
  kind: 'test',
  async *read() {
    yield item(1);
    yield item(2);
    // An ERP driver that lost its connection without rejecting: nothing is left to wake this up.
    await new Promise<never>(() => undefined);
  },
  async close() {},
};

async function main(): Promise<void> {
  const [url, token, stateFile, mappingFile] = process.argv.slice(2) as [string, string, string, string];
  exitWhenAbandoned(EXIT.abandoned);
  const state = await openState({ kind: 'sqlite', path: stateFile });
  const shop = createShopClient({ baseUrl: url, auth: { kind: 'token', token }, logger: silentLogger });
  try {
    const summary = await runPipeline(
      { name: 'never', direction: 'push', resource: 'products', source: { connection: 'erp' }, mapping: 'products.yaml', batchSize: 1 },
      { state, shop, mapping: await loadMapping(mappingFile), source: neverAnswers },
    );
    process.stdout.write(`${summaryLine(summary)}\n`);
    process.exitCode = exitCodeOfRun(summary);
  } finally {
    await shop.close();
    await state.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
