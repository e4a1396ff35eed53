/**
 * A sandbox shop in a process of its own that tells when it stored each product: for every API
 * write it stored, one line `W <unix ms> <products_model> <products_quantity>` per record on stdout
 * (the latency benchmark's "shop time"). Prints `READY <url> <token>` first; stops when stdin closes.
 */
import { startSandbox } from '../../../src/sandbox/index.js';

const lines: string[] = [];
const flush = () => {
  if (lines.length > 0) process.stdout.write(lines.splice(0).join(''));
};
const shop = await startSandbox({
  seed: 'empty',
  dbPath: ':memory:',
  onWrite(write) {
    if (write.resource !== 'products') return;
    const data = (write.body as { data?: unknown } | undefined)?.data;
    for (const r of Array.isArray(data) ? data : [data]) {
      const rec = r as Record<string, unknown> | undefined;
      if (rec?.products_model !== undefined) lines.push(`W ${write.at} ${String(rec.products_model)} ${String(rec.products_quantity ?? '')}\n`);
    }
    // Written after the answer's turn of the event loop: the shop's answer is not held up by our log.
    if (lines.length > 0) setImmediate(flush);
  },
});
process.stdout.write(`READY ${shop.url} ${shop.token}\n`);
process.stdin.on('end', () => {
  flush();
  void shop.close().then(() => process.exit(0));
});
process.stdin.resume();
