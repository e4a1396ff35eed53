/**
 * A paused shop and a broken shop are seen wherever an operator looks, over HTTP against a real
 * daemon: `GET /shops` names them (paused since when, why and how to resume; broken with file, line
 * and message), `/readyz` carries the broken shop in its details without turning unready, the
 * dashboard's shops page has a row for each and the overview's cards of the paused shop say
 * "paused", and `shop-broken:<shop>` opens at the start that found the shop broken and resolves at
 * the start that loads it again.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertMessage } from '../../src/alerts/index.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { startDaemon, type Daemon } from '../../src/ops/daemon.js';
import { openState } from '../../src/state/index.js';
import { productsMapping } from '../support/mappings.js';
import { removeDir, tempDir } from '../support/tmp.js';
import { until } from '../support/wait.js';

const dir = tempDir('shopsync-shop-visibility-');
const received: AlertMessage[] = [];
let receiver: Server;
let daemon: Daemon;

/** The config: one template for three shops from shops.d, alerts to the local receiver. */
function writeFiles(hookUrl: string, chBroken: boolean): void {
  writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
  writeFileSync(
    join(dir, 'shopsync.yaml'),
    `connections: { erp: { kind: sqlite, path: erp.sqlite } }
templates:
  products: { direction: push, resource: products, mapping: p.yaml, schedule: "0 3 * * *", source: { connection: erp, query: SELECT 1, cursor: c, key: k } }
state: { path: state.db }
dashboard: { port: 0 }
alerts: { webhook: { url: "${hookUrl}", retries: 0 } }
`,
  );
  mkdirSync(join(dir, 'shops.d'), { recursive: true });
  writeFileSync(join(dir, 'shops.d', 'de.yaml'), 'baseUrl: http://127.0.0.1:9/api\ntoken: de-token-0001\n');
  writeFileSync(join(dir, 'shops.d', 'at.yaml'), 'baseUrl: http://127.0.0.1:9/api\ntoken: at-token-0002\n');
  writeFileSync(join(dir, 'shops.d', 'ch.yaml'), `baseUrl: http://127.0.0.1:9/api\ntoken: ch-token-0003\n${chBroken ? 'timeoutMs: soon\n' : ''}`);
}

const start = async () => startDaemon(await loadConfig(join(dir, 'shopsync.yaml'), { env: {} }), { logger: silentLogger });
const get = async (path: string) => {
  const res = await fetch(daemon.url + path);
  return { status: res.status, text: await res.text() };
};
const json = async <T>(path: string): Promise<T> => JSON.parse((await get(path)).text) as T;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push(JSON.parse(body) as AlertMessage);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  writeFiles(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, true);
  // Shop at was paused by an earlier daemon (failingShops); shop de has failed twice in a row.
  const state = await openState(join(dir, 'state.db'));
  try {
    await state.streaks.failed('at', Date.parse('2026-03-01T10:00:00Z'), '[SHOP_UNAVAILABLE] HTTP 503');
    await state.streaks.pause('at', Date.parse('2026-03-02T10:00:00Z'), '30 runs in a row failed since 2026-03-01T10:00:00.000Z');
    await state.streaks.failed('de', Date.parse('2026-03-02T11:00:00Z'), '[NETWORK_ERROR] refused');
    await state.streaks.failed('de', Date.parse('2026-03-02T11:05:00Z'), '[NETWORK_ERROR] refused');
  } finally {
    await state.close();
  }
  daemon = await start();
}, 60_000);

afterAll(async () => {
  await daemon?.close();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  removeDir(dir);
});

interface ShopsAnswer {
  failing: string[];
  paused: string[];
  broken: string[];
  shops: { name: string; health: string; paused: { since: string; reason: string | null; resume: string } | null; streak: { failedRuns: number; since: string | null } | null; broken: { file: string; line: number; message: string; pipelines: string[] } | null }[];
}

describe('a paused shop and a broken shop, as the daemon shows them', () => {
  it('GET /shops names the paused shop (since when, why, how to resume), the failing streak and the broken shop with file:line', async () => {
    const answer = await json<ShopsAnswer>('/shops');
    expect(answer.paused).toEqual(['at']);
    expect(answer.broken).toEqual(['ch']);
    expect(answer.failing.sort()).toEqual(['at', 'ch']);
    const byName = new Map(answer.shops.map((s) => [s.name, s]));
    expect(byName.get('at')?.paused).toEqual({ since: '2026-03-02T10:00:00.000Z', reason: '30 runs in a row failed since 2026-03-01T10:00:00.000Z', resume: 'shopsync shops resume at' });
    expect(byName.get('de')).toMatchObject({ health: 'unknown', paused: null, streak: { failedRuns: 2, since: '2026-03-02T11:00:00.000Z' }, broken: null });
    expect(byName.get('ch')).toMatchObject({ health: 'broken', paused: null, broken: { file: join(dir, 'shops.d', 'ch.yaml'), line: 3, pipelines: ['products-ch'] } });
    expect(byName.get('ch')?.broken?.message).toContain('timeoutMs');
  });

  it('/readyz names the broken shop in its details and stays ready: the replica does the other shops\' work', async () => {
    const ready = await get('/readyz');
    expect(ready.status).toBe(200);
    const body = JSON.parse(ready.text) as { status: string; brokenShops: { name: string; file: string; line: number; message: string }[] };
    expect(body.status).toBe('ready');
    expect(body.brokenShops).toEqual([expect.objectContaining({ name: 'ch', file: join(dir, 'shops.d', 'ch.yaml'), line: 3, message: expect.stringContaining('timeoutMs') })]);
  });

  it('the shops page has a row for the broken shop with its message, and the paused shop\'s row says since when and how to resume', async () => {
    const page = await get('/shop-health');
    expect(page.status).toBe(200);
    const rows = [...page.text.matchAll(/<tr data-shop-row="([^"]+)" data-health="([^"]+)"/g)].map((m) => `${m[1]}:${m[2]}`);
    expect(rows).toEqual(['ch:broken', 'at:unknown', 'de:unknown']);
    const rowOf = (shop: string) => new RegExp(`<tr data-shop-row="${shop}"[\\s\\S]*?</tr>`).exec(page.text)?.[0] ?? '';
    expect(rowOf('ch')).toContain(`${join(dir, 'shops.d', 'ch.yaml')}:3`);
    expect(rowOf('ch')).toMatch(/data-shop-error[^>]*>[^<]*timeoutMs/);
    expect(rowOf('at')).toContain('data-shop-paused="2026-03-02T10:00:00.000Z"');
    expect(rowOf('at')).toContain('<code>shopsync shops resume at</code>');
    expect(rowOf('de')).toContain('data-shop-streak="2"');
    const api = await json<{ shops: { name: string; health: string; paused: unknown; broken: unknown }[] }>('/api/shops');
    expect(api.shops.map((s) => [s.name, s.health, s.paused !== null, s.broken !== null])).toEqual([
      ['ch', 'broken', false, true],
      ['at', 'unknown', true, false],
      ['de', 'unknown', false, false],
    ]);
  });

  it('the overview\'s cards of the paused shop say "paused", count as failing, and the broken shop is said above them', async () => {
    const page = await get('/');
    expect(page.text).toMatch(/<section class="panel card paused" data-pipeline="products-at">[\s\S]*?<span class="badge b-bad">paused<\/span>/);
    expect(page.text).toMatch(/data-pipeline="products-at">[\s\S]*?data-failing="shop-paused">shop at paused since 2026-03-02T10:00:00.000Z/);
    expect(page.text).toContain('<section class="panel card idle" data-pipeline="products-de">');
    expect(page.text).toMatch(/data-broken-shop="ch">Shop <b>ch<\/b> is broken/);
    const failing = await json<{ pipelines: { name: string; state: string; paused: { resume: string } | null }[] }>('/api/overview?status=failing');
    expect(failing.pipelines.map((p) => [p.name, p.state, p.paused?.resume])).toEqual([['products-at', 'paused', 'shopsync shops resume at']]);
  });

  it('opens shop-broken:ch at the start that found it broken, and resolves it at the start that loads it', async () => {
    await until(() => received.some((m) => m.incident === 'shop-broken:ch'), 10_000);
    const opened = received.filter((m) => m.kind === 'shop-broken');
    expect(opened).toEqual([expect.objectContaining({ incident: 'shop-broken:ch', state: 'firing', shop: 'ch', text: expect.stringContaining(`${join(dir, 'shops.d', 'ch.yaml')}:3 did not load`) })]);
    expect(opened[0]?.text).toContain('products-ch');

    await daemon.close();
    // The same broken file at the next start opens nothing new: one message per incident.
    daemon = await start();
    await daemon.close();
    writeFiles(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, false);
    daemon = await start();
    await until(() => received.some((m) => m.incident === 'shop-broken:ch' && m.state === 'resolved'), 10_000);
    expect(received.filter((m) => m.kind === 'shop-broken').map((m) => m.state)).toEqual(['firing', 'resolved']);
    expect((await json<ShopsAnswer>('/shops')).broken).toEqual([]);
  }, 60_000);
});
