/**
 * A scheduled lane that stopped starting runs is failing, whatever stopped it: here the daemon's
 * clock never started (a dead scheduler), the last run of `products` started ten minutes ago on an
 * every-minute schedule, and `products-stuck` holds a run left `running` ten minutes ago by a
 * process on another machine that no longer holds the lane. `products-fresh` ran just now. Both
 * stopped lanes show in `status` (`--failing` exits 1), in /readyz's details (the replica stays
 * ready), on the overview API, and as `pipeline-overdue:<pipeline>` incidents that close once a run
 * of the lane starts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertsConfigSchema, startAlerts, type AlertMessage } from '../../src/alerts/index.js';
import { parseConfigText } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { startDaemon } from '../../src/ops/daemon.js';
import { scheduledLanesOf } from '../../src/pipeline/overdue.js';
import { SyncEvents } from '../../src/pipeline/index.js';
import { emptyCounts, openState } from '../../src/state/index.js';
import { ensureBuilt, runCli } from '../cli/support.js';
import { productsMapping } from '../support/mappings.js';
import { removeDir, tempDir } from '../support/tmp.js';

const TEN_MINUTES = 600_000;
const env = { SHOP_TOKEN: 'test-token' };

interface Reasoned {
  readonly name?: string;
  readonly pipeline?: string;
  readonly failing?: boolean;
  readonly reasons: { code: string; text: string }[];
}
const codes = (items: readonly Reasoned[]) => items.map((p) => [p.name ?? p.pipeline, p.reasons.map((r) => r.code)]);

let dir: string;
let file: string;
let text: string;
let stateFile: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = tempDir('shopsync-overdue-');
  const erp = new Database(join(dir, 'erp.sqlite'));
  erp.exec('CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT, price TEXT, qty TEXT, updated_at TEXT)');
  erp.close();
  writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
  const source = 'source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku }';
  const pipeline = (name: string) => `  - { name: ${name}, direction: push, resource: products, mapping: p.yaml, schedule: "* * * * *", ${source} }\n`;
  text = `shop: { baseUrl: "http://127.0.0.1:9", token: "\${SHOP_TOKEN}" }
connections: { erp: { kind: sqlite, path: erp.sqlite } }
timezone: UTC
pipelines:
${pipeline('products')}${pipeline('products-stuck')}${pipeline('products-fresh')}  - { name: products-manual, direction: push, resource: products, mapping: p.yaml, ${source} }
state: { path: state.db }
dashboard: { port: 0 }
`;
  file = join(dir, 'shopsync.yaml');
  writeFileSync(file, text);
  stateFile = join(dir, 'state.db');
  const state = await openState(stateFile);
  try {
    const stopped = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    await state.runs.finish(stopped, 'succeeded', emptyCounts());
    await state.runs.start({ pipeline: 'products-stuck', mode: 'sync', lane: 'products-stuck' });
    const fresh = await state.runs.start({ pipeline: 'products-fresh', mode: 'sync', lane: 'products-fresh' });
    await state.runs.finish(fresh, 'succeeded', emptyCounts());
    // An unscheduled pipeline is never overdue, however old its last run.
    const manual = await state.runs.start({ pipeline: 'products-manual', mode: 'sync', lane: 'products-manual' });
    await state.runs.finish(manual, 'succeeded', emptyCounts());
  } finally {
    await state.close();
  }
  const db = new Database(stateFile);
  db.prepare(`UPDATE runs SET started_at = started_at - ?, finished_at = finished_at - ? WHERE pipeline IN ('products', 'products-manual')`).run(TEN_MINUTES, TEN_MINUTES);
  // Left running by a process on another machine, which holds no lock any more.
  db.prepare(`UPDATE runs SET started_at = started_at - ?, host = 'replica-gone', pid = 4242 WHERE pipeline = 'products-stuck'`).run(TEN_MINUTES);
  db.close();
}, 300_000);

afterAll(() => {
  if (dir) removeDir(dir);
});

describe('a scheduled lane that stopped starting runs', () => {
  it('is failing in status, overdue and (with a run nobody holds) stuck, and status --failing exits 1', async () => {
    const failing = await runCli(['status', '--failing', '--json', '--config', file], { env });
    expect(failing.code, failing.stderr).toBe(1);
    const parsed = JSON.parse(failing.stdout) as { pipelines: Reasoned[] };
    expect(codes(parsed.pipelines)).toEqual([
      ['products', ['overdue']],
      ['products-stuck', ['overdue', 'stuck']],
    ]);
    expect(parsed.pipelines[0]!.reasons[0]!.text).toMatch(/^no run started since \S+: 3 or more slots of `\* \* \* \* \*` passed without one/);
    expect(parsed.pipelines[1]!.reasons[1]!.text).toMatch(/^run #\d+ is still running since \S+ and no process holds its lane/);
    const table = await runCli(['status', '--failing', '--config', file], { env });
    expect(table.code, table.stderr).toBe(1);
    expect(table.stdout).toMatch(/FAILING: 2 of 4 pipeline\(s\)/);
  });

  it('stays ready on /readyz, naming the lanes in its details, and is failing on the overview API', async () => {
    const daemon = await startDaemon(parseConfigText(text, file, { env }), { logger: silentLogger, startSchedule: false });
    try {
      const res = await fetch(`${daemon.url}/readyz`);
      const body = (await res.json()) as { status: string; overdue: Reasoned[] };
      expect(res.status).toBe(200);
      expect(body.status).toBe('ready');
      expect(codes(body.overdue)).toEqual([
        ['products', ['overdue']],
        ['products-stuck', ['overdue', 'stuck']],
      ]);
      const overview = (await (await fetch(`${daemon.url}/api/overview`)).json()) as { pipelines: Reasoned[] };
      expect(overview.pipelines.filter((p) => p.failing).map((p) => [p.name, p.reasons.map((r) => r.code)])).toEqual([
        ['products', ['overdue']],
        ['products-stuck', ['overdue', 'stuck']],
      ]);
      const page = await (await fetch(`${daemon.url}/?status=failing`)).text();
      expect(page).toContain('data-failing="overdue stuck"');
    } finally {
      await daemon.close();
    }
  }, 60_000);

  it('opens one pipeline-overdue incident per lane, and resolves it once a run of the lane starts', async () => {
    const state = await openState(stateFile);
    const events = new SyncEvents();
    const sent: AlertMessage[] = [];
    const config = parseConfigText(text, file, { env }).config;
    const watcher = startAlerts(alertsConfigSchema.parse({ webhook: { url: 'http://127.0.0.1:9/unused' } }), {
      events,
      state,
      scheduled: scheduledLanesOf(config).map((l) => l.name),
      schedules: scheduledLanesOf(config),
      secrets: [],
      logger: silentLogger,
      channels: [{ name: 'test', send: async (m) => void sent.push(m) }],
    })!;
    try {
      await watcher.checkOverdue();
      await watcher.checkOverdue();
      expect((await watcher.incidents.list()).sort()).toEqual(['pipeline-overdue:products', 'pipeline-overdue:products-stuck']);
      expect(sent.map((m) => [m.incident, m.state])).toEqual([
        ['pipeline-overdue:products', 'firing'],
        ['pipeline-overdue:products-stuck', 'firing'],
      ]);
      // products starts a run (on any replica: the minute check sees it in the state) ...
      const runId = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
      await watcher.checkOverdue();
      // ... and products-stuck's run starts here: its run-started event resolves it at once.
      events.emit({ type: 'run-started', runId: runId + 1, pipeline: 'products-stuck', mode: 'sync', lane: 'products-stuck', at: new Date().toISOString() });
      await watcher.stop();
      expect(await watcher.incidents.list()).toEqual([]);
      expect(sent.map((m) => [m.incident, m.state])).toEqual([
        ['pipeline-overdue:products', 'firing'],
        ['pipeline-overdue:products-stuck', 'firing'],
        ['pipeline-overdue:products', 'resolved'],
        ['pipeline-overdue:products-stuck', 'resolved'],
      ]);
    } finally {
      await watcher.stop();
      await state.close();
    }
  });
});
