import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { startDaemon } from '../../src/ops/daemon.js';
import { productsMapping } from '../support/mappings.js';
import { useSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

const MAPPING = productsMapping('p');

const sandbox = useSandbox();

function setup(): { file: string; text: string } {
  const dir = tempDir('shopsync-daemon-');
  const erp = new Database(join(dir, 'erp.sqlite'));
  erp.exec("CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty TEXT, updated_at TEXT); INSERT INTO products VALUES ('D-1','Eins','1.00','3','2026-01-01'), ('D-2','Zwei','2.00','viele','2026-01-01'), ('D-3','Drei','3.00','x','2026-01-01')");
  erp.close();
  writeFileSync(join(dir, 'p.yaml'), MAPPING);
  const text = `shop: { baseUrl: "${sandbox.url}", token: "\${T}", retry: { baseDelayMs: 5 } }
connections: { erp: { kind: sqlite, path: erp.sqlite } }
pipelines:
  - { name: products, direction: push, resource: products, mapping: p.yaml, source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku } }
state: { path: state.db }
dashboard: { port: 0 }
`;
  return { file: join(dir, 'shopsync.yaml'), text };
}

describe('startDaemon with the dashboard', () => {
  it('runs a pipeline, retries and drops dead letters from the dashboard, and closes everything', async () => {
    const { file, text } = setup();
    const daemon = await startDaemon(parseConfigText(text, file, { env: { T: sandbox.token } }), { logger: silentLogger });
    try {
      const page = await fetch(`${daemon.url}/`);
      expect(page.status).toBe(200);
      const cookie = (page.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]).join('; ');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
      expect(csrf).toBeDefined();
      const act = (path: string, form: Record<string, string>) =>
        fetch(`${daemon.url}${path}`, { method: 'POST', headers: { cookie, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ ...form, _csrf: csrf! }) });

      const run = await act('/actions/run', { pipeline: 'products' });
      expect(run.status).toBe(200);
      const { runId } = (await run.json()) as { runId: number };
      const state = daemon.runtime.state;
      for (let i = 0; i < 100 && (await state.runs.get(runId))?.status === 'running'; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await state.runs.get(runId)).toMatchObject({ status: 'partial', counts: { created: 1, deadLettered: 2 } });
      const [first, second] = await state.deadLetters.list({ pipeline: 'products' });

      const retry = await act('/actions/dead-letters/retry', { only: String(first.id) });
      expect(await retry.json()).toMatchObject({ retried: 1, stillFailing: 1 });
      const drop = await act('/actions/dead-letters/drop', { only: String(second.id) });
      expect(await drop.json()).toMatchObject({ dropped: 1 });
      expect((await state.deadLetters.list({ pipeline: 'products' })).map((d) => d.id)).toEqual([first.id]);

      const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
      expect(metrics).toContain('shopsync_dead_letters{shop="default",pipeline="products"} 1');
      expect(metrics).toContain('shopsync_runs_total{shop="default",pipeline="products",status="partial"} 2');
    } finally {
      const result = await daemon.close();
      expect(result.settled).toBe(true);
    }
    await expect(fetch(`${daemon.url}/healthz`)).rejects.toThrow();
    await expect(daemon.runtime.state.schemaVersion()).rejects.toThrow();
  });
});

describe('the daemon dashboard preview', () => {
  it('previews a pipeline through the runtime without a run, an event, a letter, a cursor move or a metric', async () => {
    const { file, text } = setup();
    const daemon = await startDaemon(parseConfigText(text, file, { env: { T: sandbox.token } }), { logger: silentLogger, startSchedule: false });
    try {
      const state = daemon.runtime.state;
      const page = await fetch(`${daemon.url}/pipelines/products/preview?limit=2`);
      expect(page.status).toBe(200);
      const body = await page.text();
      expect([...body.matchAll(/data-erp-key="([^"]+)" data-action="([^"]+)"/g)].map((m) => [m[1], m[2]])).toEqual([['D-1', 'would-create'], ['D-2', 'refused']]);
      expect(body).toContain('data-more>');
      expect([(await state.runs.list()).length, (await state.events.list({ limit: 100 })).length, await state.deadLetters.count('products'), await state.cursors.get('products')]).toEqual([0, 0, 0, undefined]);
      const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
      expect(metrics).not.toMatch(/shopsync_runs_total\{[^}]*\} [1-9]/);
      expect(metrics).not.toMatch(/shopsync_records_total\{[^}]*\} [1-9]/);
      expect(metrics).not.toMatch(/shopsync_last_success_timestamp_seconds\{/);
    } finally {
      await daemon.close();
    }
  });
});

describe('metrics of a deployment with several shops', () => {
  it('labels the run, record, dead-letter and shop-request series of a pipeline of shop de with shop="de"', async () => {
    const { file, text } = setup();
    const twoShops = text
      .replace(/^shop: (.*)$/m, 'shop: $1\nshops:\n  de: $1')
      .replace('- { name: products, direction: push,', '- { name: products, shop: de, direction: push,');
    expect(twoShops).toContain('shop: de,');
    const daemon = await startDaemon(parseConfigText(twoShops, file, { env: { T: sandbox.token } }), { logger: silentLogger, startSchedule: false });
    try {
      expect([...daemon.runtime.shops.keys()].sort()).toEqual(['de', 'default']);
      const summary = await daemon.runtime.run('products');
      expect(summary.status).toBe('partial');
      expect(await daemon.runtime.state.runs.get(summary.runId)).toMatchObject({ shop: 'de', status: 'partial' });
      const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
      expect(metrics).toContain('shopsync_runs_total{shop="de",pipeline="products",status="partial"} 1');
      expect(metrics).toContain('shopsync_records_total{shop="de",pipeline="products",outcome="dead-lettered"} 2');
      expect(metrics).toContain('shopsync_dead_letters{shop="de",pipeline="products"} 2');
      expect(metrics).toMatch(/shopsync_shop_request_duration_seconds_count\{shop="de",resource="products",method="[A-Z]+",status="2\d\d"\} [1-9]/);
      // Nothing of this pipeline is counted for the default shop, whose client sent nothing.
      expect(metrics).not.toMatch(/shopsync_[a-z_]+\{shop="default",pipeline="products"/);
      expect(metrics).not.toMatch(/shopsync_shop_request_duration_seconds_count\{shop="default"/);
    } finally {
      await daemon.close();
    }
  });
});

describe('metrics of records the source could not use', () => {
  it('counts a row without a key as outcome="unreadable", apart from the records the mapping refused', async () => {
    const { file, text } = setup();
    const erp = new Database(join(dirname(file), 'erp.sqlite'));
    erp.exec("INSERT INTO products VALUES (NULL, 'Ohne Nummer', '4.00', '1', '2026-01-01')");
    erp.close();
    const daemon = await startDaemon(parseConfigText(text, file, { env: { T: sandbox.token } }), { logger: silentLogger, startSchedule: false });
    try {
      const summary = await daemon.runtime.run('products');
      // The file's tests share one sandbox, so D-1 may be created or updated here; the refusals are what counts.
      expect(summary).toMatchObject({ status: 'partial', counts: { read: 4, deadLettered: 3, unreadable: 1 } });
      expect(summary.counts.created + summary.counts.updated + summary.counts.unchanged).toBe(1);
      const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
      expect(metrics).toContain('shopsync_records_total{shop="default",pipeline="products",outcome="unreadable"} 1');
      expect(metrics).toContain('shopsync_records_total{shop="default",pipeline="products",outcome="dead-lettered"} 2');
    } finally {
      await daemon.close();
    }
  });
});

describe('what /readyz tells', () => {
  it('names its checks but not the state file, even to the machine itself', async () => {
    const { file, text } = setup();
    const daemon = await startDaemon(parseConfigText(text, file, { env: { T: sandbox.token } }), { logger: silentLogger, startSchedule: false });
    try {
      const res = await fetch(`${daemon.url}/readyz`);
      const body = await res.text();
      expect(JSON.parse(body)).toMatchObject({ status: 'ready', checks: { state: { ok: true }, shops: { ok: true } } });
      expect(body).not.toContain('state.db');
      expect(body).not.toContain(dirname(file));
    } finally {
      await daemon.close();
    }
  });
});

describe('one daemon per state', () => {
  it('refuses a second daemon on the same state while the first runs, and starts once the first has stopped', async () => {
    const { file, text } = setup();
    const loaded = () => parseConfigText(text, file, { env: { T: sandbox.token } });
    const first = await startDaemon(loaded(), { logger: silentLogger, startSchedule: false });
    try {
      await expect(startDaemon(loaded(), { logger: silentLogger, startSchedule: false })).rejects.toMatchObject({ code: 'LOCK_HELD' });
    } finally {
      await first.close();
    }
    const second = await startDaemon(loaded(), { logger: silentLogger, startSchedule: false });
    await second.close();
  });
});
