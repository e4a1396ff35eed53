/**
 * `npm run bench`: runs every `test/bench/*.bench.ts` (compiled to dist/) one after another and
 * prints the lines each returns. Figures are measured in this run; nothing here is asserted.
 * `npm run bench -- throughput scale` runs only those whose name contains a word given;
 * `BENCH_QUICK=1 npm run bench` runs smaller sizes (a few minutes instead of a quarter hour; the
 * figures say so). A new `*.bench.ts` exporting `bench(): Promise<string[]>` is picked up as it is.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface BenchModule {
  bench(): Promise<string[]>;
}

const here = dirname(fileURLToPath(import.meta.url));

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  // dist/ is never cleaned: a compiled bench whose source was removed is not run.
  const sources = join(here, '..', '..', '..', 'test', 'bench');
  const files = readdirSync(here)
    .filter((f) => f.endsWith('.bench.js') && existsSync(join(sources, f.replace(/\.js$/, '.ts'))))
    .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
    .sort();
  process.stdout.write(`shopsync benchmarks on Node ${process.version}, ${new Date().toISOString()}\n`);
  let failed = 0;
  for (const file of files) {
    process.stdout.write(`\n== ${file.replace(/\.bench\.js$/, '')} ==\n`);
    try {
      const mod = (await import(pathToFileURL(join(here, file)).href)) as BenchModule;
      for (const line of await mod.bench()) process.stdout.write(`${line}\n`);
    } catch (err) {
      failed++;
      process.stdout.write(`FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    }
  }
  process.exitCode = failed > 0 ? 1 : 0;
}

void main();
