/**
 * One message per cause (issue 45): a shop refusing the token is one incident, `shop-auth:at`,
 * that holds every pipeline of the shop failing for it: one firing message naming the setting to
 * fix, none per pipeline, one recovery listing the pipelines it held. A pipeline failing for a
 * reason of its own alerts on its own. Through real daemons, two sandbox shops over HTTP and a
 * local webhook receiver.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { alertShopsOf, alertsConfigSchema, startAlerts, type AlertMessage } from '../../src/alerts/index.js';
import { parseConfigText } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { startDaemon } from '../../src/ops/daemon.js';
import { SyncEvents } from '../../src/pipeline/index.js';
import { emptyCounts, openState } from '../../src/state/index.js';
import { productsMapping } from '../support/mappings.js';
import { useSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';
import { useWebhookReceiver } from './receiver.js';

const at = useSandbox();
const de = useSandbox();
const WRONG = 'not-the-token-of-at';
const AT_PIPELINES = ['products-at', 'outlet-at', 'archive-at'];
const OK = ['succeeded', 'partial'];

const hook = useWebhookReceiver();
const received = hook.received;

/** Shop at with three pipelines, shop de with one that works and one whose ERP query fails. */
function setup(): string {
  const dir = tempDir('shopsync-alert-grouped-');
  const erp = new Database(join(dir, 'erp.sqlite'));
  erp.exec("CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty TEXT, updated_at TEXT); INSERT INTO products VALUES ('A-1','Eins','1.00','3','2026-01-01'), ('A-2','Zwei','2.00','4','2026-01-01'), ('B-1','Drei','3.00','5','2026-01-01')");
  erp.close();
  writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
  const push = (name: string, shop: string, query: string) => `  - { name: ${name}, shop: ${shop}, direction: push, resource: products, mapping: p.yaml, source: { connection: erp, query: "${query}", cursor: updated_at, key: sku } }`;
  const file = join(dir, 'shopsync.yaml');
  writeFileSync(
    file,
    `shops:
  at:
    baseUrl: \${AT_URL}
    token: \${AT_TOKEN}
    retry: { retries: 0 }
  de: { baseUrl: "\${DE_URL}", token: "\${DE_TOKEN}", retry: { retries: 0 } }
connections: { erp: { kind: sqlite, path: erp.sqlite } }
pipelines:
${push('products-at', 'at', "SELECT * FROM products WHERE sku LIKE 'A-%'")}
${push('outlet-at', 'at', "SELECT * FROM products WHERE sku LIKE 'B-%'")}
${push('archive-at', 'at', 'SELECT * FROM products')}
${push('products-de', 'de', 'SELECT * FROM products')}
${push('broken-de', 'de', 'SELECT * FROM products_gone')}
state: { path: state.db }
dashboard: { port: 0, enabled: false }
alerts: { webhook: { url: "${hook.url}", retries: 0 } }
`,
  );
  return file;
}

const env = (atToken: string) => ({ AT_URL: at.url, AT_TOKEN: atToken, DE_URL: de.url, DE_TOKEN: de.token });
const ofShop = (shop: string) => received.filter((m) => m.shop === shop).map((m) => [m.incident, m.state]);

describe('a shop refusing the token for three pipelines, beside a shop with a pipeline failing for its own reason', () => {
  it('sends one firing message for shop at naming shops.at.token, none per pipeline, one recovery listing them, and alerts on the de pipeline on its own', { timeout: 90_000 }, async () => {
    const file = setup();
    const text = readFileSync(file, 'utf8');
    const tokenLine = text.split('\n').findIndex((l) => l.includes('token: ${AT_TOKEN}')) + 1;
    // Closing a daemon waits for the alerts in flight: what was received then is all there is.
    const wrong = await startDaemon(parseConfigText(text, file, { env: env(WRONG) }), { logger: silentLogger, startSchedule: false });
    try {
      for (let round = 0; round < 3; round++) {
        for (const p of AT_PIPELINES) expect((await wrong.runtime.run(p)).error?.code).toBe('UNAUTHORIZED');
        expect(OK).toContain((await wrong.runtime.run('products-de')).status);
        const broken = await wrong.runtime.run('broken-de');
        expect(broken.status).toBe('failed');
        expect(broken.error?.code).not.toBe('UNAUTHORIZED');
      }
      expect((await wrong.runtime.state.incidents.members('shop-auth:at')).sort()).toEqual([...AT_PIPELINES].sort());
    } finally {
      await wrong.close();
    }
    expect(ofShop('at')).toEqual([['shop-auth:at', 'firing']]);
    const firing = received.find((m) => m.incident === 'shop-auth:at')!;
    expect(firing).toMatchObject({ kind: 'shop-auth', cause: 'auth', shop: 'at', pipelines: ['products-at'], title: "shop at refuses shopsync's credentials" });
    expect(firing).not.toHaveProperty('pipeline');
    expect(firing.text).toContain(`Check shops.at.token (${file}:${tokenLine}, from AT_TOKEN) and the token's scopes.`);
    expect(firing.text).toContain('[UNAUTHORIZED]');
    expect(firing.text).not.toContain(WRONG);
    // The de pipeline failing for its own reason: its own message, once over three rounds; the other de pipeline is quiet.
    expect(ofShop('de')).toEqual([['run-failed:broken-de', 'firing']]);
    expect(received.find((m) => m.incident === 'run-failed:broken-de')).toMatchObject({ pipeline: 'broken-de', title: 'broken-de failed' });
    expect(received.find((m) => m.incident === 'run-failed:broken-de')).not.toHaveProperty('cause');

    // The token fixed: the same deployment restarted with at's real token, two rounds.
    const fixed = await startDaemon(parseConfigText(text, file, { env: env(at.token) }), { logger: silentLogger, startSchedule: false });
    try {
      for (let round = 0; round < 2; round++) {
        for (const p of AT_PIPELINES) expect(OK).toContain((await fixed.runtime.run(p)).status);
        expect((await fixed.runtime.run('broken-de')).status).toBe('failed');
      }
      expect(await fixed.runtime.state.incidents.listOpen()).toEqual(['run-failed:broken-de']);
    } finally {
      await fixed.close();
    }
    expect(ofShop('at')).toEqual([
      ['shop-auth:at', 'firing'],
      ['shop-auth:at', 'resolved'],
    ]);
    const recovery = received.find((m) => m.incident === 'shop-auth:at' && m.state === 'resolved')!;
    expect(recovery).toMatchObject({ cause: 'auth', shop: 'at', title: "shop at accepts shopsync's credentials again", since: firing.since });
    expect([...(recovery.pipelines ?? [])].sort()).toEqual([...AT_PIPELINES].sort());
    for (const p of AT_PIPELINES) expect(recovery.text).toContain(p);
    expect(ofShop('de')).toEqual([['run-failed:broken-de', 'firing']]);
  });
});

describe('the causes of a shop, one incident each', () => {
  /** A watcher over an in-memory state, with runs stored in their shop's state and then reported, one after the other as a lane runs them. */
  async function watch() {
    const config = parseConfigText(
      `shops:\n  at: { baseUrl: "\${AT_URL}", token: "\${TOKEN}" }\n  de: { baseUrl: "http://127.0.0.1:2", token: "\${TOKEN}" }\nconnections: { erp: { kind: sqlite, path: erp.sqlite } }\npipelines:\n${['products-at@at', 'orders-at@at', 'stock-at@at', 'products-de@de']
        .map((p) => p.split('@') as [string, string])
        .map(([name, shop]) => `  - { name: ${name}, shop: ${shop}, direction: push, resource: products, mapping: p.yaml, source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku } }`)
        .join('\n')}\n`,
      '/etc/shopsync/shopsync.yaml',
      { env: { TOKEN: 'token-0123456789', AT_URL: 'http://127.0.0.1:1' } },
    );
    const state = await openState(':memory:');
    const events = new SyncEvents();
    let clock = Date.parse('2026-12-01T10:00:00Z');
    const sent: AlertMessage[] = [];
    const watcher = startAlerts(alertsConfigSchema.parse({ staleAfterMinutes: 30 }), {
      events,
      state,
      scheduled: ['products-at', 'orders-at'],
      secrets: config.secrets,
      shops: alertShopsOf(config),
      warnAfterRuns: 2,
      channels: [{ name: 'test', send: async (m) => void sent.push(m) }],
      logger: silentLogger,
      now: () => clock,
    })!;
    const run = async (pipeline: string, shop: string, error?: { code: string; message: string }, requests = 1) => {
      const runs = state.forShop(shop).runs;
      const runId = await runs.start({ pipeline, mode: 'sync', lane: pipeline });
      await runs.finish(runId, error ? 'failed' : 'succeeded', emptyCounts(), error);
      events.emit({ type: 'run-finished', summary: { runId, pipeline, mode: 'sync', status: error ? 'failed' : 'succeeded', counts: { ...emptyCounts(), requests }, durationMs: 5, ...(error ? { error } : {}) } });
      // Each run's alerts are handled before the next run: the next step reads what they wrote.
      await watcher.idle();
    };
    return { state, watcher, sent, run, advance: (ms: number) => (clock += ms), close: async () => (await watcher.stop(), await state.close()) };
  }
  const seen = (sent: AlertMessage[]) => sent.map((m) => [m.incident, m.state]);

  it('holds a shop that does not answer in shop-unreachable naming shops.at.baseUrl, folds the opened breaker into it, alerts on a failure of another cause on its own, and one good run ends it', async () => {
    const w = await watch();
    try {
      await w.run('products-at', 'at', { code: 'NETWORK_ERROR', message: 'connect ECONNREFUSED 127.0.0.1:1' });
      await w.run('orders-at', 'at', { code: 'SHOP_UNAVAILABLE', message: 'the shop answered 503' });
      await w.run('stock-at', 'at', { code: 'SHOP_CIRCUIT_OPEN', message: 'the circuit breaker is open' });
      await w.run('products-at', 'at', { code: 'SHOP_CIRCUIT_OPEN', message: 'the circuit breaker is open' });
      await w.run('orders-at', 'at', { code: 'SOURCE_UNREACHABLE', message: 'the ERP is down' });
      await w.run('products-de', 'de');
      expect(seen(w.sent)).toEqual([
        ['shop-unreachable:at', 'firing'],
        ['run-failed:orders-at', 'firing'],
      ]);
      expect(w.sent[0]).toMatchObject({ cause: 'unreachable', shop: 'at', title: 'shop at is unreachable', pipelines: ['products-at'], text: expect.stringContaining('Check shops.at.baseUrl (/etc/shopsync/shopsync.yaml:2, from AT_URL)') });
      expect(w.sent[1]).toMatchObject({ pipeline: 'orders-at', text: expect.stringContaining('[SOURCE_UNREACHABLE]') });
      // A run with nothing to send asked the shop nothing: it proves nothing.
      await w.run('stock-at', 'at', undefined, 0);
      expect(seen(w.sent)).toHaveLength(2);
      await w.run('stock-at', 'at');
      expect(seen(w.sent).slice(2)).toEqual([['shop-unreachable:at', 'resolved']]);
      expect(w.sent[2]).toMatchObject({ title: 'shop at answers again', pipelines: ['products-at', 'orders-at', 'stock-at'] });
      // Once it is resolved, the breaker open alone is a cause of its own: its own shop incident.
      await w.run('products-at', 'at', { code: 'SHOP_CIRCUIT_OPEN', message: 'the circuit breaker is open' });
      expect(seen(w.sent).slice(3)).toEqual([['shop-circuit-open:at', 'firing']]);
      expect(w.sent[3]?.text).toContain('shops.at.baseUrl');
    } finally {
      await w.close();
    }
  });

  it('folds the stale pipelines of a paused shop into shop-paused, and a run failing for the rest of the streak\'s causes into shop-failing', async () => {
    const w = await watch();
    try {
      await w.run('products-at', 'at', { code: 'RATE_LIMITED', message: 'the shop answered 429 beyond the retries' });
      expect(seen(w.sent)).toEqual([['run-failed:products-at', 'firing']]);
      await w.state.streaks.failed('at', Date.now(), '[RATE_LIMITED] 429');
      await w.state.streaks.failed('at', Date.now(), '[RATE_LIMITED] 429');
      await w.watcher.checkShops();
      await w.run('orders-at', 'at', { code: 'RATE_LIMITED', message: 'the shop answered 429 beyond the retries' });
      expect(seen(w.sent)).toEqual([
        ['run-failed:products-at', 'firing'],
        ['shop-failing:at', 'firing'],
      ]);
      expect(await w.state.incidents.members('shop-failing:at')).toEqual(['orders-at']);
      expect(await w.state.streaks.pause('at', Date.now(), '3 runs in a row failed')).toBe(true);
      await w.watcher.checkShops();
      w.advance(31 * 60_000);
      await w.watcher.checkStale();
      await w.watcher.checkStale();
      expect(seen(w.sent).slice(2)).toEqual([['shop-paused:at', 'firing']]);
      expect(await w.state.incidents.members('shop-paused:at')).toEqual(['products-at', 'orders-at']);
      expect(await w.state.streaks.resume('at')).toBe(true);
      await w.watcher.checkShops();
      expect(seen(w.sent).slice(3).sort()).toEqual([
        ['shop-failing:at', 'resolved'],
        ['shop-paused:at', 'resolved'],
      ]);
      expect(w.sent.find((m) => m.incident === 'shop-paused:at' && m.state === 'resolved')?.text).toContain('It held: products-at, orders-at.');
    } finally {
      await w.close();
    }
  });
});
