/**
 * A trigger that is down is seen, over HTTP against a real daemon: `shopsync_trigger_up` is 1 for a
 * trigger that is armed and 0 for one that is reconnecting (so an alert rule can catch it), and the
 * dashboard's card says what wakes the pipeline and since when its trigger is down. Here a short
 * poll of a SQLite source is armed, and a file watcher on an inbox that does not exist yet is down
 * until the folder appears.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { startDaemon, type Daemon } from '../../src/ops/daemon.js';
import { productsMapping } from '../support/mappings.js';
import { removeDir, tempDir } from '../support/tmp.js';
import { until } from '../support/wait.js';

const dir = tempDir('shopsync-trigger-up-');
let daemon: Daemon;

beforeAll(async () => {
  writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
  // An empty table: the probe finds nothing after the cursor, so no run starts (the shop is not there).
  const erp = new Database(join(dir, 'erp.sqlite'));
  erp.exec('CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty TEXT, updated_at TEXT)');
  erp.close();
  const text = `shop: { baseUrl: "http://127.0.0.1:9/api", token: shop-token-0001 }
connections:
  erp: { kind: sqlite, path: erp.sqlite }
  drop: { kind: files, folder: . }
pipelines:
  - name: stock
    direction: push
    resource: products
    mapping: p.yaml
    schedule: "0 3 * * *"
    source: { connection: erp, query: "SELECT * FROM products", cursor: updated_at, key: sku }
    trigger: { poll: 200ms }
  - name: drops
    direction: push
    resource: products
    mapping: p.yaml
    source: { connection: drop, folder: inbox, format: csv, key: sku }
    trigger: { watch: true }
state: { path: state.db }
dashboard: { port: 0 }
`;
  daemon = await startDaemon(parseConfigText(text, join(dir, 'shopsync.yaml'), { env: {} }), { logger: silentLogger });
}, 60_000);

afterAll(async () => {
  await daemon?.close();
  removeDir(dir);
});

/** `shopsync_trigger_up` by `pipeline/kind`, as /metrics says. */
async function upSeries(): Promise<Record<string, number>> {
  const text = await (await fetch(`${daemon.url}/metrics`)).text();
  return Object.fromEntries([...text.matchAll(/^shopsync_trigger_up\{pipeline="([^"]+)",kind="([^"]+)"\} (\d+)$/gm)].map((m) => [`${m[1]}/${m[2]}`, Number(m[3])]));
}

describe('whether each trigger is up', () => {
  it('is 1 for an armed trigger and 0 for one that is reconnecting, in /metrics', async () => {
    await until(() => daemon.triggers()?.status().find((t) => t.kind === 'poll')?.state === 'polling', 10_000);
    expect(await upSeries()).toEqual({ 'stock/poll': 1, 'drops/watch': 0 });
    expect(await (await fetch(`${daemon.url}/metrics`)).text()).toContain('# HELP shopsync_trigger_up Whether a pipeline\'s trigger is up');
  });

  it('shows on the overview\'s cards what wakes each pipeline, and since when a trigger is down', async () => {
    const page = await (await fetch(`${daemon.url}/`)).text();
    const card = (name: string) => new RegExp(`<section class="panel card \\w+" data-pipeline="${name}">[\\s\\S]*?</section>`).exec(page)?.[0] ?? '';
    expect(card('stock')).toMatch(/data-trigger="poll" data-trigger-state="polling">woken by short polling: <span class="badge b-ok">polling<\/span>/);
    expect(card('drops')).toMatch(/data-trigger="watch" data-trigger-state="reconnecting" class="issue error">woken by a file drop: <span class="badge b-bad">reconnecting<\/span> since/);
    // No schedule beside the watcher: nothing else wakes it while the watcher is down, and the card says so.
    expect(card('drops')).toContain('Nothing else wakes it meanwhile: give it a schedule as a safety net');
    const api = (await (await fetch(`${daemon.url}/api/overview`)).json()) as { pipelines: { name: string; triggers: { kind: string; state: string; since?: string }[] }[] };
    const drops = api.pipelines.find((p) => p.name === 'drops');
    expect(drops?.triggers).toEqual([expect.objectContaining({ kind: 'watch', state: 'reconnecting', since: expect.stringMatching(/^\d{4}-/) })]);
  });

  it('turns 1 once the trigger is armed again', async () => {
    mkdirSync(join(dir, 'inbox'));
    await until(() => daemon.triggers()?.status().find((t) => t.kind === 'watch')?.state === 'watching', 20_000);
    expect(await upSeries()).toEqual({ 'stock/poll': 1, 'drops/watch': 1 });
  }, 30_000);
});
