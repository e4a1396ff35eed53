/**
 * Helpers of the spawned-CLI tests: build once (what users run is `bin/shopsync.js` over
 * dist/), spawn the CLI, and a fixture with a sandbox shop, an ERP SQLite file and a config.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach } from 'vitest';
import { productsMapping } from '../support/mappings.js';
import { tempDir as sharedTempDir } from '../support/tmp.js';
import { newest } from '../support/child.js';
import { bundleIfStale } from '../support/bundle.js';
import { sleep } from '../support/wait.js';
import { warningsIn } from '../support/warnings.js';
import { checkAgreement, openLedger } from './agreement.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/shopsync.js');

/** The newest modification time of the files under `dir` ending in one of `endings` (default .ts and .sql). */
const newestMtime = (dir: string, ...endings: string[]): number => newest(dir, ...(endings.length > 0 ? endings : ['.ts', '.sql']));

/**
 * Build dist/ unless it is newer than every source file. Test files run in parallel processes,
 * so a lock folder makes sure only one of them runs tsc and the others wait for it.
 */
export async function ensureBuilt(): Promise<void> {
  const lock = join(ROOT, 'dist', '.build-lock');
  const stamp = join(ROOT, 'dist', '.build-stamp');
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Someone else builds; a lock older than two minutes belongs to a dead process.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
      await sleep(200);
    }
  }
  try {
    // The CLI runs from dist/ and reads its SQL (state migrations) beside the compiled modules.
    const copied = spawnSync(process.execPath, [join(ROOT, 'scripts', 'copy-sql.mjs')], { cwd: ROOT, encoding: 'utf8' });
    if (copied.status !== 0) throw new Error(`scripts/copy-sql.mjs failed:\n${copied.stdout}${copied.stderr}`);
    // `npm test` compiles dist/ (tsc -p tsconfig.json) just before vitest starts: that build counts as fresh too, or
    // every clean run would compile the whole project a second time while the CLI tests wait.
    const main = join(ROOT, 'dist/src/cli/main.js');
    const built = Math.max(existsSync(stamp) ? statSync(stamp).mtimeMs : 0, existsSync(main) ? newestMtime(join(ROOT, 'dist', 'src'), '.js') : 0);
    const fresh = existsSync(main) && built > newestMtime(join(ROOT, 'src'));
    if (!fresh) {
      const r = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, encoding: 'utf8' });
      if (!existsSync(join(ROOT, 'dist/src/cli/main.js'))) throw new Error(`npm run build produced no dist/src/cli/main.js:\n${r.stdout}${r.stderr}`);
      if (r.status !== 0) process.stderr.write(`[test/cli] tsc reported type errors (dist/ was still emitted):\n${r.stdout.slice(0, 2000)}\n`);
      writeFileSync(stamp, new Date().toISOString());
    }
    // bin/shopsync.js starts the bundle (dist/cli) when there is one: never older than what tsc wrote.
    bundleIfStale(ROOT);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Result of a finished CLI process. */
export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A running CLI process. */
export interface CliProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolve once stdout+stderr contain a match (rejects after `timeoutMs` or when the process exits). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolve when the process exits. */
  exited: Promise<CliResult>;
}

const children = new Set<ChildProcess>();
// A failed assertion must not leave a daemon or sandbox behind: kill what is still running.
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Node warnings (`(node:123) DeprecationWarning: …`) the CLI processes printed; each fails the test (issue 31 item 7). */
const childWarnings: string[] = [];
const failOnChildWarnings = () => {
  const list = childWarnings.splice(0);
  if (list.length > 0) throw new Error(`the CLI printed ${list.length} runtime warning(s); fix the cause (or allow a dependency's in test/support/warnings.ts):\n${list.join('\n')}`);
};
afterEach(failOnChildWarnings);
afterAll(failOnChildWarnings);

/** Spawn `node bin/shopsync.js …args`. */
export function startCli(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, LOG_LEVEL: undefined, SHOPSYNC_CONFIG: undefined, FORCE_COLOR: '0', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('close', () => children.delete(child));
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
    notify();
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
    notify();
  });
  const exited = new Promise<CliResult>((resolveExit) => {
    child.on('close', (code, signal) => {
      for (const w of warningsIn(err)) childWarnings.push(`shopsync ${args.join(' ')}: ${w}`);
      notify();
      resolveExit({ code, signal, stdout: out, stderr: err });
    });
  });
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolveWait, reject) => {
        const check = () => {
          const m = (out + err).match(pattern);
          if (m) {
            cleanup();
            resolveWait(m);
          } else if (done) {
            cleanup();
            reject(new Error(`process exited before ${pattern} appeared\nstdout:\n${out}\nstderr:\n${err}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${pattern}\nstdout:\n${out.slice(-3000)}\nstderr:\n${err.slice(-3000)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/**
 * Run the CLI to completion. A command that runs pipelines is held to its exit code: it rejects
 * when the process exited 0 while a run it started did not succeed, or left a run `running`.
 */
export async function runCli(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CliResult> {
  const env = { ...process.env, ...options.env };
  const ledger = await openLedger(args, options.cwd ?? ROOT, env);
  const p = startCli(args, options);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  const result = await p.exited.finally(() => clearTimeout(timer));
  if (ledger && result.signal === null && p.child.pid !== undefined) await checkAgreement(ledger, p.child.pid, result.code, env, result.stdout + result.stderr);
  return result;
}

/** A products mapping for the tests (ERP rows → shop products). */
export const PRODUCT_MAPPING = productsMapping('test-products');

/** A temp folder for one CLI test. */
export function tempDir(prefix = 'shopsync-cli-'): string {
  return sharedTempDir(prefix);
}

/** Create the ERP products table and fill products 1..n, spread over days of 2026 when `spread`. */
export function createErp(file: string, n: number, spread = false): void {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE IF NOT EXISTS products (sku TEXT PRIMARY KEY, name TEXT NOT NULL, price TEXT NOT NULL, qty TEXT NOT NULL, updated_at TEXT NOT NULL)');
    const stmt = db.prepare('INSERT OR REPLACE INTO products (sku, name, price, qty, updated_at) VALUES (?, ?, ?, ?, ?)');
    db.transaction(() => {
      for (let i = 1; i <= n; i++) {
        const day = spread ? new Date(Date.UTC(2026, 0, 1) + (i - 1) * 3_600_000).toISOString().slice(0, 19).replace('T', ' ') : '2026-01-01 00:00:00';
        stmt.run(sku(i), `Produkt ${i}`, (10 + (i % 90)).toFixed(2), String(i % 50), day);
      }
    })();
  } finally {
    db.close();
  }
}

/** SKU of product n. */
export function sku(n: number): string {
  return `SKU-${String(n).padStart(5, '0')}`;
}

/** Options of `writeConfig`. */
export interface ConfigOptions {
  readonly schedule?: string;
  readonly requestsPerSecond?: number;
  readonly batchSize?: number;
  readonly extraShop?: string;
  readonly auth?: string;
  readonly port?: number;
  readonly pageSize?: number;
  /** The config file's name in `dir`. @default 'shopsync.yaml' */
  readonly file?: string;
  /** @default 'state/shopsync.db' */
  readonly statePath?: string;
  /** The dashboard's `token:` value (e.g. `${DASHBOARD_TOKEN}`). */
  readonly dashboardToken?: string;
}

/** Write shopsync.yaml for a products push into `dir`; the shop URL and token come from the environment. */
export function writeConfig(dir: string, o: ConfigOptions = {}): string {
  writeFileSync(join(dir, 'products.yaml'), PRODUCT_MAPPING);
  const file = join(dir, o.file ?? 'shopsync.yaml');
  writeFileSync(
    file,
    `# written by test/cli/support.ts
shop:
  baseUrl: \${SHOP_URL}
${o.auth ?? '  token: ${SHOP_TOKEN}'}
  rateLimit: { requests: ${o.requestsPerSecond ?? 1000}, intervalMs: 1000 }
  concurrency: 2
  batchSize: ${o.batchSize ?? 50}
  retry: { baseDelayMs: 5, maxDelayMs: 200 }
${o.extraShop ?? ''}
connections:
  erp: { kind: sqlite, path: erp.sqlite }
pipelines:
  - name: products
    direction: push
    resource: products
    mapping: products.yaml
    batchSize: ${o.batchSize ?? 50}
    source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku }
    options: { pageSize: ${o.pageSize ?? 500}, concurrency: 1 }
${o.schedule ? `    schedule: "${o.schedule}"\n` : ''}state:
  path: ${o.statePath ?? 'state/shopsync.db'}
dashboard:
  port: ${o.port ?? 0}
${o.dashboardToken ? `  token: ${o.dashboardToken}\n` : ''}daemon:
  shutdownGraceMs: 10000
`,
  );
  return file;
}

/** Products in the sandbox shop, by model. */
export async function shopProducts(sandbox: { url: string; token: string }): Promise<Map<string, Record<string, unknown>>> {
  const out = new Map<string, Record<string, unknown>>();
  // 250 is the most the product export returns per page (spec: limit max 250).
  for (let offset = 0; ; offset += 250) {
    const res = await fetch(`${sandbox.url}/export/json/products?limit=250&offset=${offset}`, { headers: { authorization: `Bearer ${sandbox.token}` } });
    if (!res.ok) throw new Error(`export failed: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { data: Record<string, unknown>[] };
    for (const r of body.data) out.set(String(r.products_model), r);
    if (body.data.length < 250) return out;
  }
}
