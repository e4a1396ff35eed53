/**
 * A sandbox shop in a process of its own, as a real shop would be: the contenders' CPU work does
 * not slow the shop down, and the shop's does not slow them. Prints `READY <url> <token>`; stops on
 * SIGTERM or when stdin closes.
 */
import { startSandbox } from '../../../src/sandbox/index.js';

const dbPath = process.argv[2] ?? ':memory:';
const shop = await startSandbox({ seed: 'empty', dbPath });
process.stdout.write(`READY ${shop.url} ${shop.token}\n`);
const stop = () => {
  void shop.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
