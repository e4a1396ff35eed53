/**
 * `node dist/test/bench/support/client-alone.js [records] [rounds] [modes]` (after
 * `tsc -p tsconfig.bench.json`): the shop client against the same requests sent with plain fetch
 * (default modes `fetch,client`; also `http`, `axios`, `lean`, see client-child.ts). Each run gets a
 * fresh sandbox in a process of its own and a child process of its own, the order alternating by
 * round, so no contender warms another's JIT or heap. Prints each run and the medians.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startShopProcess } from './shop.js';

const here = dirname(fileURLToPath(import.meta.url));
const records = Number(process.argv[2] ?? 20_000);
const rounds = Number(process.argv[3] ?? 3);
const modes = (process.argv[4] ?? 'fetch,client').split(',');

interface Run {
  readonly mode: string;
  readonly failed: number;
  readonly ms: number;
  readonly cpuMs: number;
  readonly usPerRecord: number;
}

function child(mode: string, url: string, token: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [join(here, 'client-child.js'), mode, String(records), '100', '8'], { env: { ...process.env, SHOP_URL: url, SHOP_TOKEN: token }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Run) : reject(new Error(`${mode} exited ${code}`))));
  });
}

const runs: Run[] = [];
for (let r = 0; r < rounds; r++) {
  for (const mode of r % 2 === 0 ? modes : [...modes].reverse()) {
    const shop = await startShopProcess();
    try {
      const run = await child(mode, shop.url, shop.token);
      runs.push(run);
      process.stdout.write(`${JSON.stringify(run)}\n`);
    } finally {
      await shop.close();
    }
  }
}
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const mode of modes) {
  const mine = runs.filter((r) => r.mode === mode);
  process.stdout.write(`${mode}: median wall ${median(mine.map((r) => r.ms))} ms, CPU ${median(mine.map((r) => r.cpuMs))} ms, ${median(mine.map((r) => r.usPerRecord))} µs/record\n`);
}
