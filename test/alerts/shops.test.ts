/**
 * Alerts of a deployment with several shops: an incident that concerns a shop is that shop's
 * (`shop-auth:at`), names the setting to fix, carries `shop` in its body, and only that shop's
 * recovery closes it. Through a real daemon, two sandbox shops and a local webhook receiver.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertMessage } from '../../src/alerts/index.js';
import { parseConfigText } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { startDaemon } from '../../src/ops/daemon.js';
import { openState } from '../../src/state/index.js';
import { productsMapping } from '../support/mappings.js';
import { useSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

const at = useSandbox();
const de = useSandbox();
const WRONG = 'not-the-token-of-at';

let received: AlertMessage[];
let hook: Server;
let hookUrl: string;
beforeAll(async () => {
  received = [];
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(JSON.parse(body) as AlertMessage);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => hook.close(() => resolve()));
});

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
alerts: { webhook: { url: "${hookUrl}", retries: 0 } }
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
    expect(seen('run-failed:products-at')).toEqual(['firing']);
    expect(received).toHaveLength(2);
    const auth = received.find((m) => m.incident === 'shop-auth:at')!;
    expect(auth).toMatchObject({ kind: 'shop-auth', shop: 'at', title: "shop at refuses shopsync's credentials" });
    expect(auth).not.toHaveProperty('pipeline');
    expect(auth.text).toContain('products-at (shop at, run ');
    expect(auth.text).toContain(`Check shops.at.token (${file}:4, from AT_TOKEN)`);
    expect(auth.text).not.toContain('shop.token');
    expect(auth.text).not.toContain(WRONG);
    expect(received.find((m) => m.incident === 'run-failed:products-at')).toMatchObject({ pipeline: 'products-at', shop: 'at' });

    // Fixed: the same deployment restarted with at's real token.
    const fixed = await startDaemon(parseConfigText(text, file, { env: env(at.token) }), { logger: silentLogger, startSchedule: false });
    try {
      expect(await fixed.runtime.state.incidents.listOpen()).toEqual(['run-failed:products-at', 'shop-auth:at']);
      for (let i = 0; i < 2; i++) {
        expect(['succeeded', 'partial']).toContain((await fixed.runtime.run('products-de')).status);
        expect(['succeeded', 'partial']).toContain((await fixed.runtime.run('products-at')).status);
      }
    } finally {
      await fixed.close();
    }
    expect(seen('shop-auth:at')).toEqual(['firing', 'resolved']);
    expect(seen('run-failed:products-at')).toEqual(['firing', 'resolved']);
    expect(received).toHaveLength(4);
    const resolved = received.find((m) => m.incident === 'shop-auth:at' && m.state === 'resolved')!;
    expect(resolved).toMatchObject({ shop: 'at', title: "shop at accepts shopsync's credentials again" });
    expect(resolved.text).toMatch(/^products-at \(shop at, run \d+\) finished/);
    const state = await openState(join(dirname(file), 'state.db'));
    try {
      expect(await state.incidents.listOpen()).toEqual([]);
    } finally {
      await state.close();
    }
  });
});
