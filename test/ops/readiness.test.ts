/**
 * Readiness of a daemon with two shops when one goes down: the replica stays ready (it can do its
 * work), /readyz names the shop that is down in its details, and /shops reports each shop's
 * health; a request to the other shop never hides the one that is down. And the state check, which
 * asks the state database rather than assuming it answers.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { startDaemon } from '../../src/ops/daemon.js';
import { probedCheck } from '../../src/ops/readiness.js';
import { StateError } from '../../src/errors.js';
import type { ShopHealth } from '../../src/ops/shopHealth.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { productsMapping } from '../support/mappings.js';
import { useSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

const de = useSandbox();

function config(atUrl: string, extra = ''): { file: string; text: string } {
  const dir = tempDir('shopsync-readiness-');
  const erp = new Database(join(dir, 'erp.sqlite'));
  erp.exec("CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty TEXT, updated_at TEXT); INSERT INTO products VALUES ('R-1','Eins','1.00','3','2026-01-01')");
  erp.close();
  writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
  const source = 'source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku }';
  const text = `shops:
  at: { baseUrl: "${atUrl}", token: "\${AT_TOKEN}", retry: { retries: 1, baseDelayMs: 5 } }
  de: { baseUrl: "${de.url}", token: "\${DE_TOKEN}", retry: { retries: 1, baseDelayMs: 5 } }
connections: { erp: { kind: sqlite, path: erp.sqlite } }
pipelines:
  - { name: products-at, shop: at, direction: push, resource: products, mapping: p.yaml, ${source} }
  - { name: products-de, shop: de, direction: push, resource: products, mapping: p.yaml, ${source} }
state: { path: state.db }
dashboard: { port: 0, enabled: false }
${extra}`;
  return { file: join(dir, 'shopsync.yaml'), text };
}

interface ReadyBody {
  readonly status: string;
  readonly checks: Record<string, { ok: boolean; detail: string }>;
  readonly shops: ShopHealth[];
}

describe('readiness of a replica with several shops', () => {
  it('stays ready while shop at is down, names at in the details and on /shops, and a request to de never hides it', { timeout: 60_000 }, async () => {
    const at = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
    const atUrl = at.url;
    const { file, text } = config(atUrl);
    const daemon = await startDaemon(parseConfigText(text, file, { env: { AT_TOKEN: at.token, DE_TOKEN: de.token } }), { logger: silentLogger, startSchedule: false });
    const ready = async () => {
      const res = await fetch(`${daemon.url}/readyz`);
      return { status: res.status, body: (await res.json()) as ReadyBody };
    };
    const shops = async () => ((await (await fetch(`${daemon.url}/shops`)).json()) as { failing: string[]; shops: ShopHealth[] });
    try {
      expect((await daemon.runtime.run('products-at')).status).toBe('succeeded');
      expect((await shops()).shops.map((s) => [s.name, s.health])).toEqual([['at', 'ok'], ['de', 'unknown']]);
      await at.close();
      // A changed row, so the next run of at has something to send.
      const erp = new Database(join(dirname(file), 'erp.sqlite'));
      erp.exec("UPDATE products SET price = '1.50', updated_at = '2026-01-02'");
      erp.close();
      expect((await daemon.runtime.run('products-at')).error?.code).toBe('NETWORK_ERROR');
      for (let i = 0; i < 3; i++) {
        // The last request went to de, which answers: at is still down.
        expect(['succeeded', 'partial']).toContain((await daemon.runtime.run('products-de')).status);
        const r = await ready();
        expect(r.status).toBe(200);
        expect(r.body.status).toBe('ready');
        expect(r.body.checks.shops).toMatchObject({ ok: true, detail: '1 of 2 shop(s) answer; failing: at' });
        expect(r.body.shops.find((s) => s.name === 'at')).toMatchObject({ health: 'failing', reachable: false, lastError: { status: 'network' } });
        const list = await shops();
        expect(list.failing).toEqual(['at']);
        expect(list.shops).toMatchObject([
          { name: 'at', health: 'failing', reachable: false, tokenAccepted: true, lastSuccessAt: expect.any(String), failingSince: expect.any(String), lastError: { status: 'network', resource: 'products' } },
          { name: 'de', health: 'ok', reachable: true, tokenAccepted: true, lastError: null },
        ]);
      }
      expect((await ready()).body.checks.state).toMatchObject({ ok: true });
    } finally {
      await daemon.close();
    }
  });

  it('drops the shops check with daemon.readyNeedsShop: false, and still shows the shops in the details', { timeout: 60_000 }, async () => {
    const { file, text } = config('http://127.0.0.1:9', 'daemon: { readyNeedsShop: false }\n');
    const daemon = await startDaemon(parseConfigText(text, file, { env: { AT_TOKEN: 'x-token', DE_TOKEN: de.token } }), { logger: silentLogger, startSchedule: false });
    try {
      expect((await daemon.runtime.run('products-at')).status).toBe('failed');
      const res = await fetch(`${daemon.url}/readyz`);
      const body = (await res.json()) as ReadyBody;
      expect(res.status).toBe(200);
      expect(Object.keys(body.checks)).toEqual(['state']);
      expect(body.shops.map((s) => [s.name, s.health])).toEqual([['at', 'failing'], ['de', 'unknown']]);
    } finally {
      await daemon.close();
    }
  });
});

describe('the state check of /readyz', () => {
  it('answers from a probe younger than its interval, and probes again once the last result is older (a process woken from a freeze)', async () => {
    let clock = 0;
    let probes = 0;
    let answer: () => Promise<unknown> = async () => 3;
    const check = probedCheck(() => (probes++, answer()), 'answers (postgres)', { timeoutMs: 5000, intervalMs: 5000, now: () => clock });
    expect(await check()).toEqual({ ok: true, detail: 'answers (postgres)' });
    answer = async () => {
      throw new Error('connect ECONNREFUSED 10.0.0.5:5432');
    };
    clock += 4000;
    expect(await check()).toEqual({ ok: true, detail: 'answers (postgres)' });
    expect(probes).toBe(1);
    // An hour on the monotonic clock: the process was frozen; the "ready" from before is not served again.
    clock += 3_600_000;
    expect(await check()).toEqual({ ok: false, detail: 'does not answer: connect ECONNREFUSED 10.0.0.5:5432' });
    expect(probes).toBe(2);
  });

  it('fails a probe that hangs past its limit, and the probe\'s late answer serves the next check', async () => {
    let clock = 0;
    let release: () => void = () => undefined;
    const check = probedCheck(() => new Promise<void>((resolve) => (release = resolve)), 'answers (postgres)', { timeoutMs: 50, intervalMs: 5000, now: () => clock });
    const hung = check();
    clock += 6000;
    expect(await hung).toEqual({ ok: false, detail: 'no answer for 6 s' });
    release();
    await new Promise((r) => setImmediate(r));
    expect(await check()).toEqual({ ok: true, detail: 'answers (postgres)' });
  });

  it('says what a probe that names its fault found (a full disk), and keeps "does not answer" for the rest', async () => {
    const full = new StateError('STATE_DISK_FULL', 'the disk under the state /srv/state/shopsync.db is full (SQLite: SQLITE_FULL); 0 B free on /srv');
    let fault: Error = full;
    let clock = 0;
    // A result answers the checks within its interval; the next check after it probes again.
    const check = probedCheck(() => Promise.reject(fault), 'takes writes (sqlite)', { now: () => clock, intervalMs: 1000, failed: (err) => (err instanceof StateError ? `cannot be written: ${err.toLine()}` : undefined) });
    expect(await check()).toEqual({ ok: false, detail: 'cannot be written: [STATE_DISK_FULL] the disk under the state /srv/state/shopsync.db is full (SQLite: SQLITE_FULL); 0 B free on /srv' });
    fault = new Error('connect ECONNREFUSED 10.0.0.5:5432');
    clock += 1000;
    expect(await check()).toEqual({ ok: false, detail: 'does not answer: connect ECONNREFUSED 10.0.0.5:5432' });
  });
});
