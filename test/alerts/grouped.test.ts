/**
 * One message per cause (issue 45): a shop refusing the token is one incident, `shop-auth:at`,
 * that holds every pipeline of the shop failing for it: one firing message naming the setting to
 * fix, none per pipeline, one recovery listing the pipelines it held. A pipeline failing for a
 * reason of its own alerts on its own. Through real daemons, two sandbox shops over HTTP and a
 * local webhook receiver.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertMessage } from '../../src/alerts/index.js';
import { parseConfigText } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { startDaemon } from '../../src/ops/daemon.js';
import { productsMapping } from '../support/mappings.js';
import { useSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

const at = useSandbox();
const de = useSandbox();
const WRONG = 'not-the-token-of-at';
const AT_PIPELINES = ['products-at', 'outlet-at', 'archive-at'];
const OK = ['succeeded', 'partial'];

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
alerts: { webhook: { url: "${hookUrl}", retries: 0 } }
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
