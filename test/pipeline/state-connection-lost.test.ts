/**
 * The PostgreSQL state's connections are cut in the middle of a push (pg_terminate_backend, as a
 * failover or a restarted server would). The lane lock's session is among them, so the run stops at
 * its next checkpoint and fails with LOCK_LOST (another process may own the lane now); a transaction
 * that was cut fails the run too. Nothing past what the shop confirmed is recorded, and the next run
 * (on new connections) continues from the checkpoint: every product lands exactly once.
 */
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { requireService } from '../support/services.js';
import { clientFor, createErp, mappingFile, PRODUCT_MAPPING, setFaults, shopRecords, sku, sqliteSource, tempDir, upsertProducts } from './support.js';

const service = await requireService('postgres');
const schema = `shopsync_lost_${process.pid}_${Math.floor(Math.random() * 1e6)}`;
const url = `postgres://${service.user}@${service.host}:${service.port}/${service.database}`;
const N = 3000;

describe.skipIf(!service.available)('a PostgreSQL state whose connections are cut mid-run', () => {
  let admin: pg.Client;
  let sandbox: SandboxHandle;
  const dir = tempDir();
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // Latency keeps the push running long enough to be cut in the middle.
    sandbox = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
  });
  afterAll(async () => {
    await sandbox?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.end();
  });

  it('fails the run cleanly, and the next run lands every product exactly once', async () => {
    const erpFile = join(dir, 'erp.db');
    const erp = createErp(erpFile);
    upsertProducts(erp, 1, N);
    erp.close();
    const mapping = await mappingFile(dir, 'products', PRODUCT_MAPPING);
    const def = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products', batchSize: 50, options: { concurrency: 2 } };
    await setFaults(sandbox, { latency_ms: 15 });
    const shop = clientFor(sandbox);

    const first: StateStore = await openState({ kind: 'postgres', url, schema });
    const cut = setInterval(() => {
      // Cut once some batches have settled: every backend of this schema's pool, except the admin's own.
      void first.runs.list({ limit: 1 }).then(async ([run]) => {
        if ((run?.counts.created ?? 0) < 200) return;
        clearInterval(cut);
        await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [`shopsync-state:${schema}`]);
      }).catch(() => undefined);
    }, 20);
    const broken = await runPipeline(def, { state: first, shop, mapping, source: sqliteSource(erpFile) }, { heartbeatMs: 100 });
    clearInterval(cut);
    await first.close().catch(() => undefined);
    expect(broken.status).toBe('failed');
    expect(broken.counts.created).toBeLessThan(N);
    expect(['LOCK_LOST', 'STATE_UNREACHABLE', 'STATE_CONNECTION_LOST', '57P01']).toContain(broken.error?.code);

    await setFaults(sandbox, { latency_ms: 0 });
    const second = await openState({ kind: 'postgres', url, schema });
    try {
      const again = await runPipeline(def, { state: second, shop, mapping, source: sqliteSource(erpFile) });
      expect(again.status).toBe('succeeded');
      const models = new Map<string, number>();
      for (const p of await shopRecords(shop, 'products')) models.set(String(p.products_model), (models.get(String(p.products_model)) ?? 0) + 1);
      expect(models.size).toBe(N);
      expect([...models.values()].every((n) => n === 1)).toBe(true);
      expect(await second.refs.count('products')).toBe(N);
      expect(await second.refs.get('products', sku(N))).toBeDefined();
      expect(await second.intents.list('products')).toEqual([]);
    } finally {
      await second.close();
    }
  }, 120_000);
});
