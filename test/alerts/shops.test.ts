/**
 * Alerts of a deployment with several shops: an incident that concerns a shop is that shop's
 * (`shop-auth:at`), names the setting to fix, carries `shop` in its body, and only that shop's
 * recovery closes it. Through a real daemon, two sandbox shops and a local webhook receiver, and
 * a local SMTP server for the mail.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
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

const hook = useWebhookReceiver();
const received = hook.received;

/** A config of two shops, each with a products pipeline from one ERP table. */
function setup(): string {
  const dir = tempDir('shopsync-alert-shops-');
  const erp = new Database(join(dir, 'erp.sqlite'));
  erp.exec("CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty TEXT, updated_at TEXT); INSERT INTO products VALUES ('A-1','Eins','1.00','3','2026-01-01'), ('A-2','Zwei','2.00','4','2026-01-01')");
  erp.close();
  writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
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
  - { name: products-at, shop: at, direction: push, resource: products, mapping: p.yaml, source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku } }
  - { name: products-de, shop: de, direction: push, resource: products, mapping: p.yaml, source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku } }
state: { path: state.db }
dashboard: { port: 0, enabled: false }
alerts: { webhook: { url: "${hook.url}", retries: 0 } }
`,
  );
  return file;
}

const env = (atToken: string) => ({ AT_URL: at.url, AT_TOKEN: atToken, DE_URL: de.url, DE_TOKEN: de.token });
const seen = (incident: string) => received.filter((m) => m.incident === incident).map((m) => m.state);

describe('alerts of two shops, one refusing the token', () => {
  it('opens shop-auth:at once, naming shops.at.token, keeps it open while shop de runs fine, and closes it once when at takes the token', { timeout: 60_000 }, async () => {
    const file = setup();
    const text = readFileSync(file, 'utf8');
    // Closing a daemon waits for the alerts in flight: what was received then is all there is.
    const first = await startDaemon(parseConfigText(text, file, { env: env(WRONG) }), { logger: silentLogger, startSchedule: false });
    try {
      for (let i = 0; i < 3; i++) {
        expect((await first.runtime.run('products-at')).error?.code).toBe('UNAUTHORIZED');
        expect(['succeeded', 'partial']).toContain((await first.runtime.run('products-de')).status);
      }
    } finally {
      await first.close();
    }
    expect(seen('shop-auth:at')).toEqual(['firing']);
    // The run's failure is held by the shop's incident: one message for the one cause.
    expect(seen('run-failed:products-at')).toEqual([]);
    expect(received).toHaveLength(1);
    const auth = received.find((m) => m.incident === 'shop-auth:at')!;
    expect(auth).toMatchObject({ kind: 'shop-auth', shop: 'at', cause: 'auth', pipelines: ['products-at'], title: "shop at refuses shopsync's credentials" });
    expect(auth).not.toHaveProperty('pipeline');
    expect(auth.text).toContain('products-at (shop at, run ');
    expect(auth.text).toContain(`Check shops.at.token (${file}:4, from AT_TOKEN)`);
    expect(auth.text).not.toContain('shop.token');
    expect(auth.text).not.toContain(WRONG);

    // Fixed: the same deployment restarted with at's real token.
    const fixed = await startDaemon(parseConfigText(text, file, { env: env(at.token) }), { logger: silentLogger, startSchedule: false });
    try {
      expect(await fixed.runtime.state.incidents.listOpen()).toEqual(['shop-auth:at']);
      for (let i = 0; i < 2; i++) {
        expect(['succeeded', 'partial']).toContain((await fixed.runtime.run('products-de')).status);
        expect(['succeeded', 'partial']).toContain((await fixed.runtime.run('products-at')).status);
      }
    } finally {
      await fixed.close();
    }
    expect(seen('shop-auth:at')).toEqual(['firing', 'resolved']);
    expect(seen('run-failed:products-at')).toEqual([]);
    expect(received).toHaveLength(2);
    const resolved = received.find((m) => m.incident === 'shop-auth:at' && m.state === 'resolved')!;
    expect(resolved).toMatchObject({ shop: 'at', title: "shop at accepts shopsync's credentials again" });
    expect(resolved.text).toMatch(/^products-at \(shop at, run \d+\) finished .*It held: products-at\.$/);
    const state = await openState(join(dirname(file), 'state.db'));
    try {
      expect(await state.incidents.listOpen()).toEqual([]);
    } finally {
      await state.close();
    }
  });
});

/** A config of these shops (YAML lines under the top level) with one pipeline per `pipeline@shop`. */
function loaded(shopsYaml: string, pipelines: string[], env: Record<string, string> = {}) {
  const lines = pipelines.map((p) => {
    const [name, shop] = p.split('@') as [string, string | undefined];
    return `  - { name: ${name}, ${shop ? `shop: ${shop}, ` : ''}direction: push, resource: products, mapping: p.yaml, source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku } }`;
  });
  const text = `${shopsYaml}\nconnections: { erp: { kind: sqlite, path: erp.sqlite } }\npipelines:\n${lines.join('\n')}\n`;
  return parseConfigText(text, '/etc/shopsync/shopsync.yaml', { env: { TOKEN: 'token-0123456789', ...env } });
}

describe('how an alert names a shop and its credentials', () => {
  it('says shop.token for the lone shop: block, without naming the shop', () => {
    const shops = alertShopsOf(loaded('shop: { baseUrl: "http://127.0.0.1:1", token: "${TOKEN}" }', ['products']));
    expect([shops.of('products'), shops.label('default'), shops.named('default'), shops.credentials('default')]).toEqual(['default', 'the shop', false, 'shop.token (/etc/shopsync/shopsync.yaml:1, from TOKEN)']);
  });

  it('says shops.<name>.token for shops under shops:, also for one named default, and shop.token for shop: beside them', () => {
    const named = alertShopsOf(loaded('shops:\n  default: { baseUrl: "http://127.0.0.1:1", token: "${TOKEN}" }', ['products']));
    expect([named.label('default'), named.credentials('default')]).toEqual(['shop default', 'shops.default.token (/etc/shopsync/shopsync.yaml:2, from TOKEN)']);
    const both = alertShopsOf(loaded('shop: { baseUrl: "http://127.0.0.1:1", token: "${TOKEN}" }\nshops:\n  at: { baseUrl: "http://127.0.0.1:2", token: literal-token-of-at }', ['products', 'products-at@at']));
    expect([both.of('products'), both.of('products-at'), both.pipelines('at')]).toEqual(['default', 'at', ['products-at']]);
    expect([both.label('default'), both.credentials('default')]).toEqual(['shop default', 'shop.token (/etc/shopsync/shopsync.yaml:1, from TOKEN)']);
    expect([both.label('at'), both.credentials('at')]).toEqual(['shop at', 'shops.at.token (/etc/shopsync/shopsync.yaml:3)']);
  });

  it('names the OAuth client settings of a shop that uses one', () => {
    const shops = alertShopsOf(loaded('shops:\n  b2b:\n    baseUrl: "http://127.0.0.1:1"\n    oauth: { clientId: shopsync, clientSecret: "${SECRET}" }', ['orders@b2b'], { SECRET: 'oauth-secret-0123' }));
    expect(shops.credentials('b2b')).toBe('shops.b2b.oauth.clientId (/etc/shopsync/shopsync.yaml:4) and shops.b2b.oauth.clientSecret (/etc/shopsync/shopsync.yaml:4, from SECRET) (the OAuth client)');
  });
});

describe('shop-auth of a shop whose token lacks one pipeline\'s scope', () => {
  it('stays open while another pipeline of that shop was refused in its last run, whatever runs well elsewhere, and names the shop in the mail', async () => {
    const mails: string[] = [];
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, done) {
        let text = '';
        stream.on('data', (c: Buffer) => (text += c.toString()));
        stream.on('end', () => {
          mails.push(text);
          done();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
    const config = loaded('shops:\n  at: { baseUrl: "http://127.0.0.1:1", token: "${TOKEN}" }\n  de: { baseUrl: "http://127.0.0.1:2", token: "${TOKEN}" }', ['products-at@at', 'orders-at@at', 'products-de@de']);
    const state = await openState(':memory:');
    const events = new SyncEvents();
    const cfg = alertsConfigSchema.parse({ webhook: { url: hook.url, retries: 0 }, email: { host: '127.0.0.1', port: (smtp.server.address() as AddressInfo).port, from: 'shopsync@example.test', to: ['ops@example.test'] } });
    const watcher = startAlerts(cfg, { events, state, scheduled: [], secrets: config.secrets, shops: alertShopsOf(config), logger: silentLogger })!;
    /** A run as the pipeline leaves it: stored in its shop's state, then reported. */
    const run = async (pipeline: string, shop: string, error?: { code: string; message: string }) => {
      const runs = state.forShop(shop).runs;
      const runId = await runs.start({ pipeline, mode: 'sync', lane: pipeline });
      await runs.finish(runId, error ? 'failed' : 'succeeded', emptyCounts(), error);
      events.emit({ type: 'run-finished', summary: { runId, pipeline, mode: 'sync', status: error ? 'failed' : 'succeeded', counts: { ...emptyCounts(), requests: 1 }, durationMs: 5, ...(error ? { error } : {}) } });
      // One run after the other, as a lane runs them.
      await new Promise((r) => setTimeout(r, 100));
    };
    const before = received.length;
    const mine = () => received.slice(before).filter((m) => m.kind === 'shop-auth').map((m) => [m.incident, m.state]);
    try {
      await run('orders-at', 'at', { code: 'INSUFFICIENT_SCOPE', message: 'the token lacks orders:read' });
      await run('products-at', 'at');
      await run('products-de', 'de');
      await run('products-at', 'at');
      expect(mine()).toEqual([['shop-auth:at', 'firing']]);
      await run('orders-at', 'at');
      await run('products-at', 'at');
    } finally {
      await watcher.stop();
      await state.close();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
    expect(mine()).toEqual([
      ['shop-auth:at', 'firing'],
      ['shop-auth:at', 'resolved'],
    ]);
    // Long headers are folded over lines.
    const auth = mails.map((m) => m.replace(/\r?\n[ \t]+/g, ' ')).filter((m) => m.includes('credentials'));
    expect(auth.map((m) => /Subject: (.*)/.exec(m)?.[1])).toEqual(["[shopsync at] ALERT: shop at refuses shopsync's credentials", "[shopsync at] resolved: shop at accepts shopsync's credentials again"]);
    expect(auth[0]).toMatch(/^X-Shopsync-Shop: at$/m);
    expect(auth[0]).toMatch(/^shop: at$/m);
    expect(received.slice(before).find((m) => m.incident === 'shop-auth:at')).toMatchObject({ shop: 'at', text: expect.stringContaining('Check shops.at.token (/etc/shopsync/shopsync.yaml:2, from TOKEN)') });
  });
});

describe('an incident left by a version with one shop-auth for all shops', () => {
  it('is closed, once, by the first shop whose credentials are accepted again', async () => {
    const state = await openState(':memory:');
    const events = new SyncEvents();
    const config = loaded('shops:\n  at: { baseUrl: "http://127.0.0.1:1", token: "${TOKEN}" }', ['products-at@at']);
    const legacy = { incident: 'shop-auth', kind: 'shop-auth', state: 'firing', title: "the shop refuses shopsync's credentials", text: 'products (run 3): [UNAUTHORIZED] …', at: '2026-11-01T00:00:00.000Z' };
    expect(await state.incidents.open('shop-auth', Date.parse(legacy.at), JSON.stringify(legacy), 'old-version', 60_000)).toBe(true);
    await state.incidents.sent('shop-auth', 'old-version');
    const watcher = startAlerts(alertsConfigSchema.parse({ webhook: { url: hook.url, retries: 0 } }), { events, state, scheduled: [], secrets: [], shops: alertShopsOf(config), logger: silentLogger })!;
    const before = received.length;
    try {
      for (let i = 0; i < 2; i++) {
        events.emit({ type: 'run-finished', summary: { runId: i + 1, pipeline: 'products-at', mode: 'sync', status: 'succeeded', counts: { ...emptyCounts(), requests: 1 }, durationMs: 5 } });
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(await state.incidents.listOpen()).toEqual([]);
    } finally {
      await watcher.stop();
      await state.close();
    }
    expect(received.slice(before).map((m) => [m.incident, m.state, m.since])).toEqual([['shop-auth', 'resolved', legacy.at]]);
  });
});
