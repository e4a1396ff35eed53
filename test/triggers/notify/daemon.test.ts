/**
 * `trigger: { notify: true }` against a real PostgreSQL ERP and the sandbox shop, through the
 * daemon with no schedule at all: a change is woken into a run by its NOTIFY, a change committed
 * while the listener was disconnected still goes out (the catch-up run after the reconnect), a
 * burst coalesces, and an idle ERP costs the shop nothing.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../src/config/index.js';
import { ConfigError } from '../../../src/errors.js';
import { silentLogger, type Logger } from '../../../src/log.js';
import { startDaemon, type Daemon } from '../../../src/ops/daemon.js';
import { applyNotifySetupTo, LISTENER_APPLICATION_NAME, NOTIFY_CODES } from '../../../src/triggers/notify/index.js';
import { postgresConnectionSchema } from '../../../src/erp/connection.js';
import { productsMapping } from '../../support/mappings.js';
import { shopEnv, useSandbox } from '../../support/sandbox.js';
import { requireService } from '../../support/services.js';
import { tempDir } from '../../support/tmp.js';
import { sleep, until } from '../../support/wait.js';

const postgres = await requireService('postgres');
const sandbox = useSandbox();
const schema = `notify_daemon_${process.pid}`;

let admin: pg.Client;
const daemons: Daemon[] = [];

beforeAll(async () => {
  if (!postgres.available) return;
  admin = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database, application_name: 'shopsync-test-admin' });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.query(`CREATE SCHEMA "${schema}"`);
  // The writer does not wait for the disk at each commit: the burst is 1,000 commits in well under a second.
  await admin.query('SET synchronous_commit = off');
});
afterEach(async () => {
  for (const d of daemons.splice(0)) await d.close();
});
afterAll(async () => {
  if (!postgres.available) return;
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

const connection = () => ({ kind: 'postgres' as const, host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database, schema });

/** An ERP table `name` with `rows` products `<name>-1…`, its NOTIFY triggers installed for pipeline `name`. */
async function erpTable(name: string, rows: number): Promise<void> {
  await admin.query(`CREATE TABLE "${schema}"."${name}" (sku TEXT PRIMARY KEY, name TEXT NOT NULL, price TEXT NOT NULL, qty INT NOT NULL, changed TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())`);
  await admin.query(`INSERT INTO "${schema}"."${name}" (sku, name, price, qty) SELECT '${name}-' || g, 'Artikel ' || g, '9.90', 1 FROM generate_series(1, ${rows}) g`);
  await applyNotifySetupTo(postgresConnectionSchema.parse(connection()), { channel: `shopsync_${name}`, tables: [name] });
}

/** A daemon whose only pipeline `name` reads that table, with `trigger:` and no schedule. */
async function daemonFor(name: string, options: { trigger?: string; source?: 'postgres' | 'sqlite'; logger?: Logger } = {}): Promise<Daemon> {
  const dir = tempDir('shopsync-notify-');
  writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
  const c = connection();
  const erp = options.source === 'sqlite' ? '{ kind: sqlite, path: erp.sqlite }' : `{ kind: postgres, host: ${c.host}, port: ${c.port}, user: ${c.user}, database: ${c.database}, schema: ${schema} }`;
  const text = `shop: { baseUrl: "\${SHOP_URL}", token: "\${SHOP_TOKEN}", retry: { baseDelayMs: 5 } }
connections: { erp: ${erp} }
pipelines:
  - { name: ${name}, direction: push, resource: products, mapping: p.yaml, source: { connection: erp, query: "SELECT * FROM ${name}", cursor: changed, key: sku }, trigger: ${options.trigger ?? '{ notify: true }'} }
state: { path: state.db }
dashboard: { port: 0 }
`;
  const daemon = await startDaemon(parseConfigText(text, join(dir, 'shopsync.yaml'), { env: shopEnv(sandbox) }), { logger: options.logger ?? (process.env.NOTIFY_DEBUG ? pino({ level: 'debug' }) : silentLogger) });
  daemons.push(daemon);
  return daemon;
}

async function shopQuantities(daemon: Daemon, prefix: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for await (const p of daemon.runtime.shop('default').exportAll('products')) {
    const model = String(p.products_model);
    if (model.startsWith(`${prefix}-`)) out.set(model, Number(p.products_quantity));
  }
  return out;
}

async function traffic(): Promise<number> {
  const res = await fetch(`${sandbox.url}/sandbox/traffic`, { headers: { authorization: `Bearer ${sandbox.token}` } });
  return ((await res.json()) as { requests: number }).requests;
}

const runsOf = async (daemon: Daemon, name: string) => (await daemon.runtime.state.runs.list({ pipeline: name })).filter((r) => r.pipeline === name);

/** Wait until the pipeline has finished `count` runs and none is going. */
async function settled(daemon: Daemon, name: string, count = 1): Promise<void> {
  await until(async () => !daemon.scheduler.isRunning(name) && (await runsOf(daemon, name)).filter((r) => r.status !== 'running').length >= count, 20_000);
}

describe.skipIf(!postgres.available)('the NOTIFY trigger of a PostgreSQL source', { timeout: 60_000 }, () => {
  it('runs once after the listener connects (the catch-up read) and delivers an UPDATE within seconds, with no schedule', async () => {
    await erpTable('live', 5);
    const daemon = await daemonFor('live');
    await settled(daemon, 'live');
    expect((await shopQuantities(daemon, 'live')).size).toBe(5);
    expect(daemon.triggers()?.status()).toEqual([expect.objectContaining({ pipeline: 'live', kind: 'notify', state: 'listening' })]);

    await admin.query(`UPDATE "${schema}".live SET qty = 42, changed = clock_timestamp() WHERE sku = 'live-3'`);
    // A liveness bound, generous for a loaded machine: the trigger's own latency is measured by the bench.
    await until(async () => (await shopQuantities(daemon, 'live')).get('live-3') === 42, 15_000, 250);
    const metrics = await daemon.runtime.metrics.render();
    expect(metrics).toMatch(/shopsync_wakeups_total\{shop="default",pipeline="live",cause="reconnect"\} 1/);
    expect(metrics).toMatch(/shopsync_wakeups_total\{shop="default",pipeline="live",cause="notify"\} [1-9]/);
  });

  it('delivers a change committed while the listener was disconnected, by the catch-up run after its reconnect', async () => {
    await erpTable('gap', 3);
    const daemon = await daemonFor('gap');
    await settled(daemon, 'gap');
    const before = (await runsOf(daemon, 'gap')).length;

    const killed = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query ILIKE 'LISTEN%' AND query LIKE '%shopsync_gap%'`,
      [LISTENER_APPLICATION_NAME],
    );
    expect(killed.rows).toHaveLength(1);
    await admin.query('SELECT pg_terminate_backend($1)', [killed.rows[0]?.pid]);
    // Committed with nobody listening: its NOTIFY goes nowhere.
    const committed = await admin.query<{ at: Date }>(`UPDATE "${schema}".gap SET qty = 77, changed = clock_timestamp() WHERE sku = 'gap-2' RETURNING clock_timestamp() AS at`);

    await until(async () => (await shopQuantities(daemon, 'gap')).get('gap-2') === 77, 20_000, 250);
    // The listener that came back connected after the commit: the change was not notified to it.
    const again = await admin.query<{ started: Date }>(`SELECT backend_start AS started FROM pg_stat_activity WHERE application_name = $1 AND query LIKE '%shopsync_gap%'`, [LISTENER_APPLICATION_NAME]);
    expect(again.rows).toHaveLength(1);
    expect(again.rows[0]!.started.getTime()).toBeGreaterThan(committed.rows[0]!.at.getTime());
    expect((await runsOf(daemon, 'gap')).length).toBe(before + 1);
    expect(await daemon.runtime.metrics.render()).toMatch(/shopsync_wakeups_total\{shop="default",pipeline="gap",cause="reconnect"\} 2/);
    expect(daemon.triggers()?.status()[0]).toMatchObject({ state: 'listening' });
  });

  it('turns a burst of 1,000 single-row UPDATE commits into at most 2 runs and delivers every change', async () => {
    await erpTable('burst', 50);
    // The burst comes within the debounce and one run: the bound it is held to (docs/triggers.md).
    const daemon = await daemonFor('burst', { trigger: '{ notify: true, debounce: 500ms }' });
    await settled(daemon, 'burst');
    const before = (await runsOf(daemon, 'burst')).length;

    // 1,000 transactions of one UPDATE each, in one round trip: 1,000 commits, 1,000 notifications.
    const statements = Array.from({ length: 1000 }, (_, i) => `BEGIN; UPDATE "${schema}".burst SET qty = ${i}, changed = clock_timestamp() WHERE sku = 'burst-${(i % 50) + 1}'; COMMIT;`);
    await admin.query(statements.join('\n'));
    const expected = new Map(Array.from({ length: 50 }, (_, k) => [`burst-${k + 1}`, 950 + k]));

    await until(async () => {
      const shop = await shopQuantities(daemon, 'burst');
      return [...expected].every(([sku, qty]) => shop.get(sku) === qty);
    }, 30_000, 250);
    await sleep(1500);
    await settled(daemon, 'burst', before + 1);
    const runs = (await runsOf(daemon, 'burst')).length - before;
    expect(runs).toBeGreaterThanOrEqual(1);
    expect(runs).toBeLessThanOrEqual(2);
    expect(await daemon.runtime.metrics.render()).toMatch(/shopsync_wakeups_total\{shop="default",pipeline="burst",cause="notify"\} (\d{3,4})/);
  });

  it('costs the shop nothing while the ERP is idle: no request and no run after the catch-up', async () => {
    await erpTable('idle', 3);
    const daemon = await daemonFor('idle');
    await settled(daemon, 'idle');
    const runs = (await runsOf(daemon, 'idle')).length;
    const requests = await traffic();
    const since = (await admin.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0]!.now;
    await sleep(4000);
    expect(await traffic()).toBe(requests);
    expect((await runsOf(daemon, 'idle')).length).toBe(runs);
    // Nor does the ERP see a query of the pipeline: only the listener's session stays, waiting.
    const erpQueries = await admin.query(`SELECT pid, query FROM pg_stat_activity WHERE application_name IN ('shopsync', 'shopsync-listen') AND pid <> pg_backend_pid() AND query_start > $1 AND query ILIKE '%idle%'`, [since]);
    expect(erpQueries.rows.map((r) => String(r.query).slice(0, 300))).toEqual([]);
  });

  it('holds the wake-ups of NOTIFYs an unprivileged role sends with nothing changed: a bounded number of runs, and a real change still goes out', async () => {
    await erpTable('forged', 3);
    const role = `shopsync_notifier_${process.pid}`;
    await admin.query(`DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE "${role}" LOGIN; END IF; END $$`);
    const notifier = new pg.Client({ host: postgres.host, port: postgres.port, user: role, database: postgres.database });
    await notifier.connect();
    try {
      const daemon = await daemonFor('forged', { trigger: '{ notify: true, debounce: 200ms }' });
      await settled(daemon, 'forged');
      const before = (await runsOf(daemon, 'forged')).length;
      const requests = await traffic();
      // 12 s of NOTIFY every 100 ms, from a role with no privilege on any table: without the hold one run per debounce, some 40.
      const until12 = Date.now() + 12_000;
      while (Date.now() < until12) {
        await notifier.query(`NOTIFY shopsync_forged, 'forged'`);
        await sleep(100);
      }
      await sleep(500);
      await until(async () => !daemon.scheduler.isRunning('forged'), 20_000);
      const runs = (await runsOf(daemon, 'forged')).length - before;
      // Woken at once, then after holds of 5 s and 10 s: at most one follow-up beside each.
      expect(runs).toBeGreaterThanOrEqual(1);
      expect(runs).toBeLessThanOrEqual(5);
      expect(await traffic()).toBe(requests);
      expect(daemon.triggers()?.status()[0]?.detail).toMatch(/wake-ups held until/);

      // A real change among the forged notifications waits for the hold at most, then goes out.
      await admin.query(`UPDATE "${schema}".forged SET qty = 42, changed = clock_timestamp() WHERE sku = 'forged-1'`);
      await until(async () => (await shopQuantities(daemon, 'forged')).get('forged-1') === 42, 30_000, 250);
    } finally {
      await notifier.end();
      await admin.query(`DROP ROLE IF EXISTS "${role}"`);
    }
  });

  it('keeps the daemon up when the ERP is unreachable: one warning, state reconnecting, retrying', async () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
    const dir = tempDir('shopsync-notify-down-');
    writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
    const text = `shop: { baseUrl: "\${SHOP_URL}", token: "\${SHOP_TOKEN}" }
connections: { erp: { kind: postgres, host: 127.0.0.1, port: 1, user: postgres, database: test, connectTimeoutMs: 500 } }
pipelines:
  - { name: down, direction: push, resource: products, mapping: p.yaml, source: { connection: erp, query: SELECT * FROM down, cursor: changed, key: sku }, trigger: { notify: true } }
state: { path: state.db }
dashboard: { port: 0 }
`;
    const daemon = await startDaemon(parseConfigText(text, join(dir, 'shopsync.yaml'), { env: shopEnv(sandbox) }), { logger });
    daemons.push(daemon);
    await until(() => daemon.triggers()?.status()[0]?.state === 'reconnecting' && /down, retrying/.test(daemon.triggers()?.status()[0]?.detail ?? ''), 10_000);
    await sleep(2500);
    const warnings = lines.filter((l) => l.level === 40 && /LISTEN/.test(l.msg));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toMatch(/unreachable; retrying with backoff/);
  });

  it('refuses notify on a SQLite source, naming poll:, watch: and hook: instead', async () => {
    const refused = await daemonFor('lite', { source: 'sqlite' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).code).toBe(NOTIFY_CODES.notPostgres);
    expect((refused as Error).message).toMatchInlineSnapshot(
      `"pipeline "lite": trigger.notify needs a PostgreSQL source (LISTEN/NOTIFY); its connection "erp" is sqlite, which cannot NOTIFY. Use \`poll:\` for MariaDB/MySQL and SQLite (e.g. \`trigger: { poll: 2s }\`, a cheap "anything newer than the cursor?" query), \`watch:\` for file drops, \`hook:\` for HTTP and anything else (docs/triggers.md)."`,
    );
  });
});
