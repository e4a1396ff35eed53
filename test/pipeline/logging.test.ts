/** Every log line of a run names the run, so one run's lines can be found among a daemon's output. */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger, type Logger } from '../../src/log.js';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { retryDeadLetters, runPipeline } from '../../src/pipeline/index.js';
import { mappingFile, PRODUCT_MAPPING, pushFixture, sku, sqliteSource, upsertProducts, type PushFixture } from './support.js';

const def = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products', batchSize: 25 };

let f: PushFixture;
let mapping: CompiledMapping;
let lines: Record<string, unknown>[];
let logger: Logger;
beforeEach(async () => {
  f = await pushFixture();
  mapping = await mappingFile(f.dir, 'products', PRODUCT_MAPPING);
  lines = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  logger = createLogger({ level: 'debug', destination: sink });
});
afterEach(async () => {
  await f.close();
});

describe('run log lines', () => {
  it('carry runId, pipeline and mode on every line of a push run, the crash and intent warnings included', async () => {
    upsertProducts(f.erp, 1, 5);
    // A run that never finished (its process died) and an intent it left behind: both are reported by the next run.
    await f.state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    await f.state.write((tx) => tx.intents.put({ resource: 'products', erpKey: sku(1), pipeline: 'products', hash: 'h' }));
    const summary = await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile), logger });
    expect(summary.status).toBe('succeeded');
    const messages = lines.map((l) => l.msg);
    expect(messages).toEqual(expect.arrayContaining([expect.stringContaining('stopped without finishing'), expect.stringContaining('creates of the last run were interrupted'), 'run finished']));
    for (const line of lines) expect(line, String(line.msg)).toMatchObject({ runId: summary.runId, pipeline: 'products', mode: 'sync' });
  });

  it('carry the retry run id on every line of a dead-letter retry', async () => {
    upsertProducts(f.erp, 1, 2);
    const broken = await mappingFile(f.dir, 'broken', PRODUCT_MAPPING.replace("products_price: { from: price, type: decimal, locale: point }", 'products_price: { from: missing_price, required: true, optional: true }'));
    const first = await runPipeline(def, { state: f.state, shop: f.shop, mapping: broken, source: sqliteSource(f.erpFile), logger });
    expect(first.counts.deadLettered).toBe(2);
    lines.length = 0;
    const retry = await retryDeadLetters(def, { state: f.state, shop: f.shop, mapping, logger });
    expect(retry.counts.created).toBe(2);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line, String(line.msg)).toMatchObject({ runId: retry.runId, pipeline: 'products', mode: 'retry' });
  });

  it('name run 0 on the lines of a dry run, which writes no run row', async () => {
    upsertProducts(f.erp, 1, 2);
    await runPipeline(def, { state: f.state, shop: f.shop, mapping, source: sqliteSource(f.erpFile), logger }, { mode: 'dry-run' });
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatchObject({ runId: 0, pipeline: 'products', mode: 'dry-run' });
  });
});
