/**
 * Streams a generated 1,000,000-row CSV (Windows-1252, semicolons, decimal commas) through the file
 * source and reports rows per second and the peak resident memory sampled during the run.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, mkdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import iconv from 'iconv-lite';
import { createSource } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';

const ROWS = 1_000_000;
const RSS_TARGET_MB = 300;

async function generate(file: string): Promise<void> {
  const out = createWriteStream(file);
  out.write(iconv.encode('sku;name;price;stock;updated\r\n', 'windows-1252'));
  for (let start = 0; start < ROWS; start += 10_000) {
    let chunk = '';
    for (let i = start; i < start + 10_000; i++) {
      chunk += `SKU-${i};"Größe ${i % 50}; Übermaß";${(i % 10_000) / 100},${i % 10}0;${i % 977};2026-11-${String((i % 28) + 1).padStart(2, '0')}\r\n`;
    }
    if (!out.write(iconv.encode(chunk, 'windows-1252'))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** Run the benchmark; returns human-readable result lines. */
export async function bench(): Promise<string[]> {
  const root = await mkdtemp(path.join(tmpdir(), 'shopsync-csv-bench-'));
  try {
    const inbox = path.join(root, 'inbox');
    await mkdir(inbox);
    const file = path.join(inbox, 'products.csv');
    await generate(file);
    const bytes = (await stat(file)).size;
    const source = await createSource(
      { kind: 'files', folder: root },
      { folder: 'inbox', format: 'csv', encoding: 'windows-1252', csv: { delimiter: ';' }, key: 'sku', stability: { mode: 'settle', settleMs: 0 } },
      { logger: silentLogger, baseDir: root },
    );
    (globalThis as { gc?: () => void }).gc?.();
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 50);
    let rows = 0;
    let umlautsIntact = true;
    const started = process.hrtime.bigint();
    for await (const item of source.read({})) {
      rows++;
      if (rows % 100_000 === 1 && !String(item.record.name).startsWith('Größe')) umlautsIntact = false;
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    await source.close();
    const mb = (n: number) => (n / 1024 / 1024).toFixed(0);
    return [
      `csv-stream: ${rows.toLocaleString('en')} rows (${mb(bytes)} MB, Windows-1252) in ${seconds.toFixed(1)} s = ${Math.round(rows / seconds).toLocaleString('en')} rows/s`,
      `csv-stream: peak RSS ${mb(peak)} MB (before reading ${mb(rssBefore)} MB; target < ${RSS_TARGET_MB} MB: ${peak / 1024 / 1024 < RSS_TARGET_MB ? 'met' : 'MISSED'}), umlauts ${umlautsIntact ? 'intact' : 'MANGLED'}`,
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await bench()) console.log(line);
}
