/**
 * The throughput benchmark's contenders as whole processes, timed as a user would time them
 * (issue 47): the hand-written script (script-child.ts) as its own `node` process, and
 * `shopsync sync bench-products` spawned from bin/shopsync.js in a folder holding a shopsync.yaml
 * and the mapping, with a fresh state each time. A contender's time is the child's wall time from
 * spawn to exit (start-up and teardown included: that is the point), its CPU time the child's user
 * + system time as the kernel counts it at exit.
 *
 * CPU comes from GNU time (`/usr/bin/time -f '%U %S %M'`, Debian's `time` package): it reads the
 * child's rusage from wait4(), so it counts every thread of the process (V8's GC and compiler
 * threads, libuv's pool) from exec to exit, Node's own start-up and the teardown included, and the
 * same way for the script and the CLI, with nothing added to either. Having the child print
 * `process.cpuUsage()` at exit would need a preload in the CLI and miss what runs after it. The
 * price is GNU time's resolution of 10 ms (0.5 µs per record at 20,000 records).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { z } from 'zod';
import { catalogSource, writeCatalogMapping } from './catalog.js';
import type { PushResult } from './contenders.js';
import type { ShopProcess } from './shop.js';

/** What a contender process did, as the shop and the kernel counted it. */
export interface ProcessResult extends PushResult {
  /** The child's user + system CPU time. */
  readonly cpuMs: number;
  /** The child's peak resident memory. */
  readonly peakRssMb: number;
}

/** A whole-process way to push `n` records of the catalog at `erpFile` (a table of exactly `n` rows for shopsync) into `shop`. */
export type ProcessContender = (shop: ShopProcess, erpFile: string, n: number) => Promise<ProcessResult>;

const here = dirname(fileURLToPath(import.meta.url));
/** The repository root, from dist/test/bench/support. */
const ROOT = resolve(here, '../../../..');
const BIN = join(ROOT, 'bin', 'shopsync.js');
const TIME = '/usr/bin/time';
const PIPELINE = 'bench-products';

/** The child's figures and output. */
interface Timed {
  readonly ms: number;
  readonly cpuMs: number;
  readonly peakRssMb: number;
  readonly stdout: string;
}

/** Run `node <args>` under GNU time; throws with the child's stderr unless it exits 0. */
function timedNode(what: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Timed> {
  if (!existsSync(TIME)) throw new Error(`${what}: the throughput benchmark reads each child's CPU time with GNU time at ${TIME}, which is missing: install it (Debian/Ubuntu: apt-get install time)`);
  const figures = join(mkdtempSync(join(tmpdir(), 'shopsync-bench-time-')), 'time.txt');
  return new Promise((resolvePromise, reject) => {
    const t = performance.now();
    const child = spawn(TIME, ['-f', '%U %S %M', '-o', figures, process.execPath, ...args], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let ms = Number.NaN;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('exit', () => (ms = performance.now() - t));
    child.once('close', (code, signal) => {
      try {
        if (code !== 0) throw new Error(`${what} exited with ${code ?? signal}:\n${stderr.slice(-3000)}${stdout.slice(-1000)}`);
        // GNU time writes "Command exited with non-zero status …" first when it did; the figures are the last line.
        const m = /^([\d.]+) ([\d.]+) (\d+)$/.exec(readFileSync(figures, 'utf8').trim().split('\n').at(-1) ?? '');
        if (!m) throw new Error(`${what}: could not read GNU time's figures in ${figures}: ${readFileSync(figures, 'utf8')}`);
        resolvePromise({ ms, cpuMs: (Number(m[1]) + Number(m[2])) * 1000, peakRssMb: Number(m[3]) / 1024, stdout });
      } catch (err) {
        reject(err);
      } finally {
        rmSync(dirname(figures), { recursive: true, force: true });
      }
    });
  });
}

/** The environment of a child: ours, without a config path that would take the place of ./shopsync.yaml. */
function childEnv(shop: ShopProcess): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SHOP_URL: shop.url, SHOP_TOKEN: shop.token };
  delete env.SHOPSYNC_CONFIG;
  return env;
}

const scriptOutput = z.object({ records: z.number().int().nonnegative(), failed: z.number().int().nonnegative() });

/** The hand-written script (script-child.ts) pushing in batches of `batch` with `inFlight` requests in flight. */
export function scriptProcess(batch: number, inFlight: number): ProcessContender {
  return async (shop, erpFile, n) => {
    const run = await timedNode('the hand-written script', [join(here, 'script-child.js'), erpFile, String(n), String(batch), String(inFlight)], { cwd: here, env: childEnv(shop) });
    const out = scriptOutput.parse(JSON.parse(run.stdout.trim().split('\n').at(-1) ?? 'null'));
    const traffic = await shop.traffic();
    return { records: out.records, failed: out.failed, ms: run.ms, cpuMs: run.cpuMs, peakRssMb: run.peakRssMb, requests: traffic.requests, throttled: traffic.rate_limited };
  };
}

/** Batches of 100, 8 in flight, a fixed rate that never binds (shop block, pipeline block). */
const TUNED = {
  shop: { batchSize: 100, concurrency: 8, rateLimit: { mode: 'fixed', requests: 1_000_000 } },
  pipeline: { batchSize: 100, options: { concurrency: 8 } },
} as const;

/** The shopsync.yaml a user writes for the catalog: shop, the ERP's SQLite file, the pipeline; `tuned` adds TUNED. State: the default SQLite file (state/shopsync.db beside the config). */
function configOf(erpFile: string, tuned: boolean): string {
  return stringify({
    shop: { baseUrl: '${SHOP_URL}', token: '${SHOP_TOKEN}', ...(tuned ? TUNED.shop : {}) },
    connections: { erp: { kind: 'sqlite', path: erpFile } },
    pipelines: [{ name: PIPELINE, direction: 'push', resource: 'products', mapping: 'bench-products.yaml', source: { connection: 'erp', ...catalogSource() }, ...(tuned ? TUNED.pipeline : {}) }],
  });
}

const runSummary = z.object({
  status: z.string(),
  counts: z.object({ read: z.number().int(), failed: z.number().int(), deadLettered: z.number().int() }),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

/** `shopsync sync bench-products` of the bundled CLI in a fresh folder (fresh state), with the defaults or tuned. */
export function shopsyncProcess(tuned: boolean): ProcessContender {
  return async (shop, erpFile, n) => {
    const dir = mkdtempSync(join(tmpdir(), 'shopsync-bench-cli-'));
    try {
      writeFileSync(join(dir, 'shopsync.yaml'), configOf(erpFile, tuned));
      writeCatalogMapping(dir);
      // --json only changes how the summary is printed: the counts are read from it, not from a line meant for people.
      const run = await timedNode(`shopsync sync ${PIPELINE}${tuned ? ' (tuned)' : ''}`, [BIN, 'sync', PIPELINE, '--json'], { cwd: dir, env: childEnv(shop) });
      const summary = runSummary.parse(JSON.parse(run.stdout));
      if (summary.status !== 'succeeded') throw new Error(`shopsync sync ended ${summary.status}: ${JSON.stringify(summary.error ?? summary.counts)}`);
      if (summary.counts.read !== n) throw new Error(`shopsync sync read ${summary.counts.read} records of the catalog's ${n}`);
      const traffic = await shop.traffic();
      return { records: summary.counts.read, failed: summary.counts.failed + summary.counts.deadLettered, ms: run.ms, cpuMs: run.cpuMs, peakRssMb: run.peakRssMb, requests: traffic.requests, throttled: traffic.rate_limited };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** The newest modification time of the files under `dir` whose names end in `ending`. */
function newest(dir: string, ending: string): number {
  let at = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) at = Math.max(at, newest(p, ending));
    else if (entry.name.endsWith(ending)) at = Math.max(at, statSync(p).mtimeMs);
  }
  return at;
}

/** Throws unless bin/shopsync.js will start the bundle (dist/cli) built from the current sources (`npm run bench` compiles and bundles first). */
export function assertCliCurrent(): void {
  const bundle = join(ROOT, 'dist', 'cli', 'main.js');
  const fix = 'run the benchmark with `npm run bench -- throughput` (it compiles with tsconfig.bench.json and bundles), or `npx tsc -p tsconfig.bench.json && node scripts/copy-sql.mjs && node scripts/bundle-cli.mjs`';
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing, so bin/shopsync.js would start tsc's unbundled output: ${fix}`);
  if (statSync(bundle).mtimeMs < newest(join(ROOT, 'dist', 'src'), '.js')) throw new Error(`the CLI bundle ${bundle} is older than tsc's output under dist/src: ${fix}`);
  if (newest(join(ROOT, 'dist', 'src'), '.js') < newest(join(ROOT, 'src'), '.ts')) throw new Error(`dist/src is older than src/: ${fix}`);
}
