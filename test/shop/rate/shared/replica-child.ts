/**
 * One shopsync replica of the shared-rate tests, in a process of its own: opens the runtime of a
 * config whose state is the test's PostgreSQL schema (so the runtime builds the shop's shared
 * limiter as the daemon does), prints READY, waits for GO on stdin, creates `count` products
 * (one per request, `parallel` at a time) and prints every client event as a JSON line
 * (`{"t": epoch ms, "event": …}`), then `{"done": {ok, failed}}`.
 * argv[2]: JSON of ReplicaArgs.
 */
import { createInterface } from 'node:readline';
import { parseConfigText } from '../../../../src/config/index.js';
import { silentLogger } from '../../../../src/log.js';
import { openRuntime } from '../../../../src/ops/runtime.js';

/** What the test tells a replica. */
export interface ReplicaArgs {
  readonly label: string;
  readonly baseUrl: string;
  readonly token: string;
  readonly pgUrl: string;
  readonly schema: string;
  /** The shop's name in the config: the key of its shared budget. */
  readonly shop: string;
  readonly requests: number;
  /** `rateLimit.shared` (absent: the default). */
  readonly shared?: boolean;
  readonly count: number;
  readonly parallel: number;
  /** Wait this long after GO before the first request. */
  readonly startDelayMs?: number;
}

const print = (line: unknown): void => void process.stdout.write(`${JSON.stringify(line)}\n`);

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2] ?? '{}') as ReplicaArgs;
  const shared = args.shared === undefined ? '' : `, shared: ${args.shared}`;
  const yaml = [
    `state: { kind: postgres, url: "${args.pgUrl}", schema: ${args.schema} }`,
    'shops:',
    `  ${args.shop}:`,
    `    baseUrl: ${args.baseUrl}`,
    '    token: ${SHOP_TOKEN}',
    `    rateLimit: { requests: ${args.requests}, intervalMs: 1000${shared} }`,
    '',
  ].join('\n');
  const loaded = parseConfigText(yaml, '/tmp/shopsync.yaml', { env: { SHOP_TOKEN: args.token } });
  const runtime = await openRuntime(loaded, { logger: silentLogger, onClientEvent: (event) => print({ t: Date.now(), event }) });
  const client = runtime.shops.get(args.shop)!;
  print({ ready: true });
  await new Promise<void>((resolve) => {
    const lines = createInterface({ input: process.stdin });
    lines.on('line', (line) => {
      if (line.trim() !== 'GO') return;
      lines.close();
      process.stdin.destroy();
      resolve();
    });
  });
  await new Promise((resolve) => setTimeout(resolve, args.startDelayMs ?? 0));
  let ok = 0;
  let failed = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < args.count) {
      const i = next++;
      const result = await client.create('products', [{ products_model: `SHARED-${args.label}-${i}`, products_price: 10 }], { batchSize: 1 });
      for (const outcome of result.outcomes) outcome.ok ? ok++ : failed++;
    }
  };
  await Promise.all(Array.from({ length: args.parallel }, worker));
  print({ done: { ok, failed } });
  await runtime.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
