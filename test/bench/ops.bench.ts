/**
 * Operations figures: CLI cold start, config loading, the scrubbing logger's throughput and
 * /metrics rendering. Run with `npx tsx test/bench/ops.bench.ts` (CLI figures need `npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createCliLogger } from '../../src/cli/logging.js';
import { loadConfig } from '../../src/config/index.js';
import { redactPaths } from '../../src/log.js';
import { createMetrics } from '../../src/ops/metrics.js';

/** The repository root, from src or from dist. */
function root(): string {
  let dir = resolve(fileURLToPath(new URL('.', import.meta.url)));
  while (!existsSync(join(dir, 'package.json'))) dir = resolve(dir, '..');
  return dir;
}

function nullStream(): Writable {
  return new Writable({ write: (_c, _e, cb) => cb() });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Measure and describe. */
export async function bench(): Promise<string[]> {
  const lines: string[] = [];
  const dir = root();

  const bin = join(dir, 'bin/shopsync.js');
  if (existsSync(join(dir, 'dist/src/cli/main.js'))) {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
      times.push(performance.now() - t);
    }
    lines.push(`CLI cold start (shopsync --help): median ${median(times).toFixed(0)} ms over 5 runs`);
  } else lines.push('CLI cold start: skipped (run npm run build first)');

  const env = { SHOP_URL: 'https://shop.example.com/api', SHOP_TOKEN: 'bench-token', ERP_DB_PASSWORD: 'bench-password' };
  const n = 200;
  let t = performance.now();
  for (let i = 0; i < n; i++) await loadConfig(join(dir, 'shopsync.example.yaml'), { env });
  lines.push(`config load (shopsync.example.yaml, 6 pipelines): ${((performance.now() - t) / n).toFixed(2)} ms per load`);

  const records = 100_000;
  const payload = { pipeline: 'products', runId: 7, resource: 'products', erpKey: 'DEMO-1001', status: 200, durationMs: 12, headers: { authorization: 'Bearer x' } };
  const plain = pino({ level: 'info', redact: { paths: redactPaths(), censor: '[redacted]' } }, nullStream());
  t = performance.now();
  for (let i = 0; i < records; i++) plain.info(payload, 'shop request');
  const plainRate = records / ((performance.now() - t) / 1000);
  const scrubbing = createCliLogger({ level: 'info', pretty: false, destination: nullStream() });
  scrubbing.addSecrets(['bench-token', 'bench-password', 'client-secret-value', 'dashboard-token-x']);
  t = performance.now();
  for (let i = 0; i < records; i++) scrubbing.logger.info(payload, 'shop request');
  const scrubRate = records / ((performance.now() - t) / 1000);
  lines.push(`log lines/s with key redaction only: ${Math.round(plainRate).toLocaleString('en')}; with secret-value scrubbing (4 secrets): ${Math.round(scrubRate).toLocaleString('en')}`);

  const pipelines = Array.from({ length: 20 }, (_, i) => `pipeline-${i}`);
  const metrics = createMetrics({ pipelines, deadLetters: () => Object.fromEntries(pipelines.map((p) => [p, 3])) });
  for (let i = 0; i < 50_000; i++) {
    metrics.clientEvent({ type: 'request', resource: `r${i % 12}`, method: i % 2 ? 'POST' : 'PUT', status: i % 50 === 0 ? 429 : 200, durationMs: i % 300, attempt: 1 });
    metrics.recordsSettled(pipelines[i % 20], i % 7 === 0 ? 'updated' : 'created');
  }
  t = performance.now();
  let size = 0;
  for (let i = 0; i < 50; i++) size = (await metrics.render()).length;
  lines.push(`/metrics render (20 pipelines, 12 resources): ${((performance.now() - t) / 50).toFixed(2)} ms, ${Math.round(size / 1024)} KiB`);
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await bench()) process.stdout.write(`${line}\n`);
}
