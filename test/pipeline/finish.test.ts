/**
 * A run's final write refused by the state (a PostgreSQL state whose server is away at that moment:
 * a trigger on the runs table answers the status update with SQLSTATE 08006, "connection failure",
 * as the driver reports a server that went away). The write is tried again until the state takes
 * it, so the run does not stay `running` while its process goes on; a one-off command gives up after
 * `finishRetryMs`, leaving the row for the next run of the lane to mark crashed.
 */
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { requireService } from '../support/services.js';
import { until } from '../support/wait.js';
import { clientFor, createErp, mappingFile, PRODUCT_MAPPING, sqliteSource, tempDir, upsertProducts } from './support.js';

const service = await requireService('postgres');
const schema = `shopsync_finish_${process.pid}_${Math.floor(Math.random() * 1e6)}`;
const url = `postgres://${service.user}@${service.host}:${service.port}/${service.database}`;
const q = pg.escapeIdentifier(schema);

describe.skipIf(!service.available)('a run whose final write the state refuses', () => {
  let admin: pg.Client;
  let sandbox: SandboxHandle;
  let state: StateStore;
  const dir = tempDir();
  const erpFile = join(dir, 'erp.db');
  const def = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products', batchSize: 5 };

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    sandbox = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
    const erp = createErp(erpFile);
    upsertProducts(erp, 1, 10);
    erp.close();
    state = await openState({ kind: 'postgres', url, schema });
    await admin.query(`CREATE SEQUENCE ${q}.finish_attempts`);
    // nextval is not rolled back with the refused statement: it counts the attempts.
    await admin.query(`CREATE FUNCTION ${q}.refuse_finish() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM nextval('${schema}.finish_attempts'); RAISE EXCEPTION 'the state is away' USING ERRCODE = '08006'; END $$`);
  });
  afterAll(async () => {
    await state?.close();
    await sandbox?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS ${q} CASCADE`);
    await admin?.end();
  });

  const refuse = () => admin.query(`CREATE TRIGGER refuse_finish BEFORE UPDATE ON ${q}.runs FOR EACH ROW WHEN (NEW.status <> 'running') EXECUTE FUNCTION ${q}.refuse_finish()`);
  const accept = () => admin.query(`DROP TRIGGER IF EXISTS refuse_finish ON ${q}.runs`);
  const attempts = async () => Number((await admin.query<{ n: string }>(`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM ${q}.finish_attempts`)).rows[0]!.n);

  it('tries it again until the state takes it: the run ends succeeded, not running', async () => {
    const shop = clientFor(sandbox);
    const mapping = await mappingFile(dir, 'products', PRODUCT_MAPPING);
    await refuse();
    try {
      const running = runPipeline(def, { state, shop, mapping, source: sqliteSource(erpFile) }, { finishRetryMs: Infinity });
      await until(async () => (await attempts()) >= 2, 30_000, 50);
      const [row] = await state.runs.list({ pipeline: 'products', limit: 1 });
      expect(row?.status).toBe('running');
      await accept();
      const summary = await running;
      expect(summary.status).toBe('succeeded');
      expect((await state.runs.get(summary.runId))?.status).toBe('succeeded');
    } finally {
      await accept();
      await shop.close();
    }
  }, 60_000);

  it('gives up after finishRetryMs in a one-off run, and the next run of the lane marks it crashed', async () => {
    const shop = clientFor(sandbox);
    const mapping = await mappingFile(dir, 'products', PRODUCT_MAPPING);
    await refuse();
    let failedRun: number | undefined;
    try {
      await expect(runPipeline(def, { state, shop, mapping, source: sqliteSource(erpFile) }, { finishRetryMs: 0 })).rejects.toMatchObject({ code: 'STATE_CONNECTION_LOST' });
      failedRun = (await state.runs.list({ pipeline: 'products', limit: 1 }))[0]?.id;
      expect((await state.runs.get(failedRun!))?.status).toBe('running');
    } finally {
      await accept();
    }
    const next = await runPipeline(def, { state, shop, mapping, source: sqliteSource(erpFile) });
    expect(next.status).toBe('succeeded');
    expect((await state.runs.get(failedRun!))?.status).toBe('crashed');
    await shop.close();
  }, 60_000);
});
