import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';
import { createLogger } from '../../src/log.js';
import { startDaemon, type Daemon } from '../../src/ops/daemon.js';
import { productsMapping } from '../support/mappings.js';
import { useSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';
import { sleep, until } from '../support/wait.js';

const sandbox = useSandbox();
const SECRET = 'hook-secret-0123456789abcdef';

/** A daemon whose products pipeline (SQLite ERP) has only a hook (no schedule), with its log lines kept. */
async function startHooked(): Promise<{ daemon: Daemon; erp: Database.Database; lines: string[] }> {
  const dir = tempDir('shopsync-hook-');
  const erp = new Database(join(dir, 'erp.sqlite'));
  erp.exec("CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty TEXT, updated_at TEXT); INSERT INTO products VALUES ('H-1','Eins','1.00','3','2026-01-01T00:00:00')");
  writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
  const text = `shop: { baseUrl: "${sandbox.url}", token: "\${T}", retry: { baseDelayMs: 5 } }
connections: { erp: { kind: sqlite, path: erp.sqlite } }
pipelines:
  - name: products
    direction: push
    resource: products
    mapping: p.yaml
    source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku }
    trigger: { hook: { secret: "\${HOOK_SECRET}" }, debounce: 50ms }
  - { name: plain, direction: push, resource: products, mapping: p.yaml, source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku } }
  - name: sibling
    direction: push
    resource: products
    mapping: p.yaml
    source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku }
    trigger: { hook: { secret: "\${HOOK_SECRET}" }, debounce: 50ms }
state: { path: state.db }
dashboard: { port: 0 }
`;
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger({ level: 'debug', destination });
  const daemon = await startDaemon(parseConfigText(text, join(dir, 'shopsync.yaml'), { env: { T: sandbox.token, HOOK_SECRET: SECRET } }), { logger });
  return { daemon, erp, lines };
}

function post(daemon: Daemon, pipeline: string, headers: Record<string, string>, body = '{"table":"products"}'): Promise<Response> {
  return fetch(`${daemon.url}/hooks/${pipeline}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

/** The headers of a wake-up for `pipeline`, signed as docs/triggers.md tells a caller to: HMAC-SHA256 of `<timestamp>.<pipeline>.<body>`. */
function signed(body: string, at = Math.floor(Date.now() / 1000), secret = SECRET, pipeline = 'products'): Record<string, string> {
  const timestamp = String(at);
  const signature = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${pipeline}.${body}`).digest('hex')}`;
  return { 'x-shopsync-timestamp': timestamp, 'x-shopsync-signature': signature };
}

async function shopHas(model: string, price: string): Promise<boolean> {
  const res = await fetch(`${sandbox.url}/export/json/products?limit=250`, { headers: { authorization: `Bearer ${sandbox.token}` } });
  const body = (await res.json()) as { data: { products_model: string; products_price: unknown }[] };
  return body.data.some((p) => p.products_model === model && Number(p.products_price) === Number(price));
}

describe('the wake-up hook (POST /hooks/<pipeline>)', () => {
  it('answers a validly signed wake-up with 202 and runs the pipeline, so the shop gets the change', async () => {
    const { daemon, erp } = await startHooked();
    try {
      const body = '{"table":"products"}';
      const res = await post(daemon, 'products', signed(body), body);
      expect(res.status).toBe(202);
      expect(await res.json()).toEqual({ woken: 'products' });
      await until(() => shopHas('H-1', '1.00'), 10_000);
      erp.exec("UPDATE products SET price = '7.25', updated_at = '2026-01-02T00:00:00' WHERE sku = 'H-1'");
      const again = '{}';
      expect((await post(daemon, 'products', signed(again), again)).status).toBe(202);
      await until(() => shopHas('H-1', '7.25'), 10_000);
      expect(daemon.triggers()?.status().filter((t) => t.pipeline === 'products')).toEqual([expect.objectContaining({ pipeline: 'products', kind: 'hook', state: 'armed', lastWakeAt: expect.any(String) })]);
    } finally {
      await daemon.close();
      erp.close();
    }
  });

  it('refuses a wrong, missing, replayed or stale signature with 401 and starts no run, logging why without the secret or the signature', async () => {
    const { daemon, erp, lines } = await startHooked();
    try {
      const body = '{"table":"products"}';
      const wrong = signed(body, undefined, 'another-secret-0123456789');
      expect((await post(daemon, 'products', wrong, body)).status).toBe(401);
      expect((await post(daemon, 'products', {}, body)).status).toBe(401);
      // Signed for another body: the body is part of what is signed.
      expect((await post(daemon, 'products', signed('{}'), body)).status).toBe(401);
      const stale = signed(body, Math.floor(Date.now() / 1000) - 301);
      expect((await post(daemon, 'products', stale, body)).status).toBe(401);
      await sleep(300);
      expect(await daemon.runtime.state.runs.list({ pipeline: 'products' })).toEqual([]);

      const good = signed(body);
      expect((await post(daemon, 'products', good, body)).status).toBe(202);
      expect((await post(daemon, 'products', good, body)).status).toBe(401);

      const refusals = lines.filter((l) => l.includes('wake-up refused'));
      // The second bad signature from the same client is counted, not logged again (issue 42 finding 7: src/ops/refusals.ts).
      expect(refusals.map((l) => (JSON.parse(l) as { reason: string }).reason)).toEqual(['bad-signature', 'no-signature', 'stale-timestamp', 'replayed']);
      expect(refusals.every((l) => JSON.parse(l).level === 40)).toBe(true);
      // The secret is one of the config's secrets, so every message is scrubbed of it too.
      expect(daemon.runtime.loaded.secrets).toContain(SECRET);
      const everything = lines.join('\n');
      expect(everything).not.toContain(SECRET);
      expect(everything).not.toContain(wrong['x-shopsync-signature']!.slice(7));
      expect(everything).not.toContain(good['x-shopsync-signature']!.slice(7));
    } finally {
      await daemon.close();
      erp.close();
    }
  });

  it('answers 404 alike for an unknown pipeline and one without a hook, and 413 for a large body', async () => {
    const { daemon, erp } = await startHooked();
    try {
      const body = '{}';
      const unknown = await post(daemon, 'nope', signed(body, undefined, SECRET, 'nope'), body);
      const plain = await post(daemon, 'plain', signed(body, undefined, SECRET, 'plain'), body);
      expect([unknown.status, plain.status]).toEqual([404, 404]);
      expect((await plain.json()) as { message: string }).toEqual({ ...((await unknown.json()) as object), message: 'Route POST:/hooks/plain not found' });
      const large = 'x'.repeat(17 * 1024);
      expect((await post(daemon, 'products', signed(large), large)).status).toBe(413);
    } finally {
      await daemon.close();
      erp.close();
    }
  });

  it('refuses a wake-up signed for another pipeline that has the same secret, so one shared secret does not let one shop wake another', async () => {
    const { daemon, erp, lines } = await startHooked();
    try {
      const body = '{"table":"products"}';
      // Signed for products, sent to sibling first (a template's pipeline of another shop, with the template's one secret)…
      const forProducts = signed(body);
      expect((await post(daemon, 'sibling', forProducts, body)).status).toBe(401);
      await sleep(300);
      expect(await daemon.runtime.state.runs.list({ pipeline: 'sibling' })).toEqual([]);
      expect(lines.filter((l) => l.includes('wake-up refused')).map((l) => JSON.parse(l) as { pipeline: string; reason: string })).toEqual([
        expect.objectContaining({ pipeline: 'sibling', reason: 'bad-signature' }),
      ]);
      // …while it is good for the pipeline it was signed for.
      expect((await post(daemon, 'products', forProducts, body)).status).toBe(202);
      expect((await post(daemon, 'sibling', signed(body, undefined, SECRET, 'sibling'), body)).status).toBe(202);
    } finally {
      await daemon.close();
      erp.close();
    }
  });

  it('refuses a signature of the old format (timestamp and body, no pipeline) with 401 and an answer that says how to sign now', async () => {
    const { daemon, erp, lines } = await startHooked();
    try {
      const body = '{"table":"products"}';
      const timestamp = String(Math.floor(Date.now() / 1000));
      const old = `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.${body}`).digest('hex')}`;
      const res = await post(daemon, 'products', { 'x-shopsync-timestamp': timestamp, 'x-shopsync-signature': old }, body);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: string }).error).toMatch(/old format.*"<timestamp>\.<pipeline>\.<body>"/);
      await sleep(300);
      expect(await daemon.runtime.state.runs.list({ pipeline: 'products' })).toEqual([]);
      expect(lines.filter((l) => l.includes('wake-up refused')).map((l) => (JSON.parse(l) as { reason: string }).reason)).toEqual(['old-format']);
    } finally {
      await daemon.close();
      erp.close();
    }
  });
});
