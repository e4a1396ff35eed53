/**
 * A PostgreSQL state that takes no writes (issue 39, item 5): the daemon's database, of this test's
 * own on the PostgreSQL of the tests, is switched to `default_transaction_read_only = on` (what a
 * hot standby behind the URL looks like to a client) and the state's sessions are cut, so the
 * new ones come up read-only. /readyz then answers 503 saying STATE_READ_ONLY, runs fail with it
 * (not INTERNAL, nothing recorded as success), and once the setting is back and the sessions are
 * new the next run succeeds.
 */
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { startDaemon, type Daemon } from '../../src/ops/daemon.js';
import { createErp, ensureBuilt, runCli, tempDir, writeConfig } from '../cli/support.js';
import { shopEnv, useSandbox } from '../support/sandbox.js';
import { requireService } from '../support/services.js';
import { removeDir } from '../support/tmp.js';
import { until } from '../support/wait.js';

const service = await requireService('postgres');
const database = `shopsync_read_only_${process.pid}`;
const admin = `postgres://${service.user}@${service.host}:${service.port}/${service.database}`;
const stateUrl = `postgres://${service.user}@${service.host}:${service.port}/${database}`;

describe.skipIf(!service.available)('a PostgreSQL state that takes no writes', () => {
  const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });
  let dir: string;
  let config: string;
  let env: Record<string, string>;
  let daemon: Daemon;
  let db: pg.Client;

  const readyz = async () => {
    const res = await fetch(`${daemon.url}/readyz`);
    return { status: res.status, body: (await res.json()) as { checks: Record<string, { ok: boolean; detail?: string }> } };
  };
  /** Sessions read the setting when they start: cut the state's, so the pool opens new ones. */
  const setReadOnly = async (on: boolean) => {
    await db.query(`ALTER DATABASE ${database} ${on ? 'SET default_transaction_read_only = on' : 'RESET default_transaction_read_only'}`);
    await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE 'shopsync-state:%'`, [database]);
  };

  beforeAll(async () => {
    db = new pg.Client({ connectionString: admin });
    await db.connect();
    await db.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await db.query(`CREATE DATABASE ${database}`);
    dir = tempDir('shopsync-read-only-pg-');
    createErp(join(dir, 'erp.sqlite'), 5);
    config = writeConfig(dir);
    writeFileSync(config, readFileSync(config, 'utf8').replace('  path: state/shopsync.db', '  kind: postgres\n  url: ${STATE_URL}\n  schema: shopsync'));
    env = { ...shopEnv(sandbox), STATE_URL: stateUrl };
    daemon = await startDaemon(await loadConfig(config, { env: { ...process.env, ...env } }), { logger: silentLogger, startSchedule: false });
    expect((await daemon.runtime.run('products')).status).toBe('succeeded');
  }, 300_000);

  afterAll(async () => {
    await daemon?.close();
    await db?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await db?.end();
    if (dir) removeDir(dir);
  });

  it('answers /readyz with 503 naming STATE_READ_ONLY and the fix while the server refuses writes', async () => {
    // The first answer only starts the probe; the next ones report it.
    await until(async () => (await readyz()).body.checks.state?.detail === 'takes writes (postgres)', 20_000);
    expect((await readyz()).status).toBe(200);
    await setReadOnly(true);
    // The probe that met a cut session says so first (STATE_CONNECTION_LOST); the next one meets the read-only session.
    await until(async () => (await readyz()).body.checks.state?.detail?.includes('[STATE_READ_ONLY]') === true, 20_000);
    const { status, body } = await readyz();
    expect(status).toBe(503);
    const detail = body.checks.state!.detail!;
    expect(detail).toContain(`cannot be written: [STATE_READ_ONLY] the state's PostgreSQL at ${service.host}:${service.port} takes no writes (cannot execute `);
    expect(detail).toContain(`in a read-only transaction; SQLSTATE 25006)`);
    expect(detail).toContain('point state.url at the primary, or turn it off');
  });

  it('fails a run with STATE_READ_ONLY, in the daemon and from the command line, and records no success', async () => {
    const before = await daemon.runtime.state.runs.list({ pipeline: 'products' });
    await expect(daemon.runtime.run('products')).rejects.toMatchObject({ code: 'STATE_READ_ONLY', details: { sqlState: '25006' } });
    const cli = await runCli(['sync', 'products', '--config', config], { env });
    expect(cli.code, cli.stderr).toBe(1);
    expect(cli.stderr).toMatch(/shopsync: \[STATE_READ_ONLY\] the state's PostgreSQL at .* takes no writes/);
    expect(cli.stderr).not.toMatch(/INTERNAL|\n\s+at /);
    expect(await daemon.runtime.state.runs.list({ pipeline: 'products' })).toEqual(before);
  });

  it('still shows its status, read from the state that takes no writes', async () => {
    const cli = await runCli(['status', '--config', config], { env });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('products');
    expect(cli.stdout).toMatch(/succeeded/);
    expect(cli.stderr).not.toMatch(/INTERNAL|\n\s+at /);
  });

  it('is ready and runs again once the server takes writes', async () => {
    await setReadOnly(false);
    await until(async () => (await readyz()).status === 200, 20_000);
    expect((await daemon.runtime.run('products')).status).toBe('succeeded');
  });
});
