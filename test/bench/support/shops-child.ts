/**
 * Several sandbox shops in one process (the agency benchmark runs fifty: one process each would
 * spend the machine on fifty idle Node runtimes). Prints `READY <index> <url> <token>` per shop;
 * stops on SIGTERM or when stdin closes.
 */
import { startSandbox, type SandboxHandle } from '../../../src/sandbox/index.js';

const count = Number(process.argv[2] ?? '1');
const first = Number(process.argv[3] ?? '0');
const shops: SandboxHandle[] = [];
for (let i = 0; i < count; i++) {
  const shop = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
  shops.push(shop);
  process.stdout.write(`READY ${first + i} ${shop.url} ${shop.token}\n`);
}
const stop = () => {
  void Promise.all(shops.map((s) => s.close())).then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
