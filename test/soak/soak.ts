/**
 * Soak test (not part of `npm test`; run with `npm run soak`, SOAK_MINUTES=30 by default): the
 * daemon runs against the sandbox with mild faults while the ERP keeps changing, and every 30 s the
 * script samples RSS, open handles and the state's size. Retention is set short (events kept 3
 * minutes, payloads 1, pruned every minute) so it is exercised many times within the run. It fails
 * when RSS or state size keeps growing after retention has started: the average of the last third
 * of the samples must stay within 25 % (RSS) and 50 % (state) of the middle third's.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { parseConfigText } from '../../src/config/index.js';
import { createLogger } from '../../src/log.js';
import { startDaemon } from '../../src/ops/daemon.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { productsMapping } from '../support/mappings.js';

const minutes = Number(process.env.SOAK_MINUTES ?? 30);
const sampleMs = Number(process.env.SOAK_SAMPLE_MS ?? 30_000);
const PRODUCTS = 2000;

interface Sample {
  readonly minute: number;
  readonly rssMb: number;
  readonly heapMb: number;
  readonly handles: number;
  readonly stateMb: number;
  readonly runs: number;
}

const fileMb = (path: string): number => {
  const size = (p: string) => statSync(p, { throwIfNoEntry: false })?.size ?? 0;
  return (size(path) + size(`${path}-wal`)) / 1024 / 1024;
};
const avg = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'shopsync-soak-'));
  const sandbox = await startSandbox({ seed: 'empty', dbPath: join(dir, 'sandbox.db') });
  // Mild faults: a few 5xx, some latency.
  await fetch(`${sandbox.url}/sandbox/faults`, { method: 'PUT', headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ error_rate: 0.02, latency_ms: 5 }) });
  const erp = new Database(join(dir, 'erp.sqlite'));
  erp.exec('CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty TEXT, updated_at TEXT)');
  const upsert = erp.prepare('INSERT INTO products VALUES (?, ?, ?, ?, ?) ON CONFLICT (sku) DO UPDATE SET price = excluded.price, qty = excluded.qty, updated_at = excluded.updated_at');
  let version = 0;
  const change = (n: number) => {
    version++;
    const at = new Date().toISOString().replace('T', ' ').slice(0, 23);
    erp.transaction(() => {
      for (let i = 0; i < n; i++) {
        const k = 1 + ((version * 131 + i * 7) % PRODUCTS);
        upsert.run(`SOAK-${String(k).padStart(5, '0')}`, `Artikel ${k}`, ((k % 90) + version / 100).toFixed(2), String((k + version) % 50), at);
      }
    })();
  };
  change(PRODUCTS);
  writeFileSync(join(dir, 'products.yaml'), productsMapping('soak-products'));
  const text = `shop:
  baseUrl: ${sandbox.url}
  token: ${sandbox.token}
connections:
  erp: { kind: sqlite, path: erp.sqlite }
pipelines:
  - name: products
    direction: push
    resource: products
    mapping: products.yaml
    schedule: "*/10 * * * * *"
    source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku }
    options: { storePayloads: true }
state:
  path: state/shopsync.db
  retention: { eventsDays: 0.002, payloadsDays: 0.0007, runsDays: 0.004, everyMinutes: 1 }
dashboard: { port: 0 }
`;
  const file = join(dir, 'shopsync.yaml');
  writeFileSync(file, text);
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn' });
  const daemon = await startDaemon(parseConfigText(text, file, { env: process.env }), { logger, version: 'soak' });
  const statePath = join(dir, 'state', 'shopsync.db');
  const changer = setInterval(() => change(150), 5_000);
  const samples: Sample[] = [];
  const started = Date.now();
  const sample = async () => {
    const m = process.memoryUsage();
    const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().length;
    const runs = (await daemon.runtime.state.runs.list({ limit: 1 }))[0]?.id ?? 0;
    samples.push({ minute: Math.round((Date.now() - started) / 600) / 100, rssMb: Math.round(m.rss / 1048576), heapMb: Math.round(m.heapUsed / 1048576), handles, stateMb: Math.round(fileMb(statePath) * 100) / 100, runs });
    const s = samples[samples.length - 1] as Sample;
    process.stdout.write(`soak ${s.minute.toFixed(1)} min: rss ${s.rssMb} MB, heap ${s.heapMb} MB, handles ${s.handles}, state ${s.stateMb} MB, runs ${s.runs}\n`);
  };
  await sample();
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      sample().then(
        () => {
          if (Date.now() - started >= minutes * 60_000) {
            clearInterval(timer);
            resolve();
          }
        },
        (err: unknown) => {
          clearInterval(timer);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    }, sampleMs);
  });
  clearInterval(changer);
  await daemon.close();
  await sandbox.close();
  erp.close();
  rmSync(dir, { recursive: true, force: true });

  const third = Math.floor(samples.length / 3);
  const middle = samples.slice(third, 2 * third);
  const last = samples.slice(2 * third);
  const first = samples[0] as Sample;
  const end = samples[samples.length - 1] as Sample;
  const rssGrowth = avg(last.map((s) => s.rssMb)) / avg(middle.map((s) => s.rssMb));
  const stateGrowth = avg(last.map((s) => s.stateMb)) / Math.max(0.01, avg(middle.map((s) => s.stateMb)));
  process.stdout.write(`\nsoak summary (${minutes} min, ${samples.length} samples, ${end.runs} runs): RSS ${first.rssMb} → ${end.rssMb} MB, state ${first.stateMb} → ${end.stateMb} MB, handles ${first.handles} → ${end.handles}; last third vs middle third: RSS ×${rssGrowth.toFixed(2)}, state ×${stateGrowth.toFixed(2)}\n`);
  if (rssGrowth > 1.25 || stateGrowth > 1.5) {
    process.stdout.write('FAIL: RSS or state size kept growing after retention started\n');
    process.exit(1);
  }
  process.stdout.write('ok: RSS and state size stayed bounded\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err instanceof Error ? err.stack : err)}\n`);
  process.exit(1);
});
