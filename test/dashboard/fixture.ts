/**
 * A real shopsync for the browser tests: a sandbox shop, a state store and an ERP (SQLite) in a
 * temp folder, two push pipelines (manufacturers, products) run by the real pipeline code, and the
 * dashboard mounted on a fastify app the way the daemon mounts it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Fastify, { type FastifyInstance } from 'fastify';
import { dashboardActions, registerDashboard, type DashboardDeps } from '../../src/dashboard/index.js';
import { createSource } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline, SyncEvents, type PipelineDefinitionInput, type PipelineDeps, type RunSummary } from '../../src/pipeline/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { createShopClient, type ShopClient } from '../../src/shop/index.js';
import { openState, type StateStore } from '../../src/state/index.js';
import { removeDir, tempDir } from '../support/tmp.js';
import { listeningUrl } from '../support/wait.js';

export const XSS_NAME = '<img src=x onerror=alert(1)>';

const MANUFACTURERS_MAPPING = `
name: manufacturers
direction: erp-to-shop
target: { resource: manufacturers, operation: upsert }
key: code
fields:
  manufacturers_name: name
`;

const PRODUCTS_MAPPING = `
name: products
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: sku
fields:
  products_model: sku
  products_price: { from: price, type: decimal }
  products_quantity: { from: stock, type: integer }
  manufacturers_id: { from: brand, lookup: { reference: manufacturers } }
  languages.de.products_name: { from: name, truncate: 40 }
`;

/** Everything a browser test needs, and how to tear it down. */
export interface Shopsync {
  readonly url: string;
  readonly dir: string;
  readonly state: StateStore;
  readonly sandbox: SandboxHandle;
  readonly shop: ShopClient;
  /** The ERP database (tests change rows in it). */
  readonly erp: Database.Database;
  /** Run a pipeline directly, as the daemon's scheduler would (not through the dashboard). */
  run(name: string): Promise<RunSummary>;
  close(): Promise<void>;
}

/** Options of `startShopsync`. */
export interface ShopsyncOptions {
  /** Also list a push pipeline whose source table does not exist (`broken-push`) and a pull pipeline (`orders-pull`). */
  readonly extraPipelines?: boolean;
}

/** Start sandbox, state, ERP and dashboard. The ERP holds three articles; NORD-1's brand is not in the ERP yet. */
export async function startShopsync(options: ShopsyncOptions = {}): Promise<Shopsync> {
  const dir = tempDir('shopsync-dashboard-browser-');
  const erpPath = join(dir, 'erp.sqlite');
  const erp = new Database(erpPath);
  erp.exec(`
    CREATE TABLE manufacturers (code TEXT PRIMARY KEY, name TEXT NOT NULL, updated_at TEXT NOT NULL);
    CREATE TABLE articles (sku TEXT PRIMARY KEY, name TEXT NOT NULL, price TEXT NOT NULL, stock INTEGER NOT NULL, brand TEXT NOT NULL, updated_at TEXT NOT NULL);
    INSERT INTO manufacturers VALUES ('ACME', 'Acme Tools', '2026-01-01T00:00:00Z');
    INSERT INTO articles VALUES ('HAMMER-1', 'Claw hammer 500 g', '19.90', 12, 'ACME', '2026-01-01T00:00:01Z');
    INSERT INTO articles VALUES ('XSS-1', '${XSS_NAME}', '4.50', 3, 'ACME', '2026-01-01T00:00:02Z');
    INSERT INTO articles VALUES ('NORD-1', 'Nordwind rain jacket', '89.00', 5, 'NORDWIND', '2026-01-01T00:00:03Z');
  `);
  writeFileSync(join(dir, 'manufacturers.yaml'), MANUFACTURERS_MAPPING);
  writeFileSync(join(dir, 'products.yaml'), PRODUCTS_MAPPING);

  const sandbox = await startSandbox({ dbPath: join(dir, 'shop.sqlite'), seed: 'empty' });
  const state = await openState(join(dir, 'state.sqlite'));
  const events = new SyncEvents();
  const shop = createShopClient({ baseUrl: sandbox.url, auth: { kind: 'token', token: sandbox.token }, logger: silentLogger, onEvent: events.clientObserver() });
  const connection = { kind: 'sqlite' as const, name: 'erp', path: erpPath };
  const source = (query: string, key: string) => () => createSource(connection, { query, cursor: 'updated_at', key }, { logger: silentLogger, baseDir: dir });

  const definitions: PipelineDefinitionInput[] = [
    { name: 'manufacturers-push', direction: 'push', resource: 'manufacturers', mapping: 'manufacturers.yaml', source: { connection: 'erp' }, schedule: '*/10 * * * *' },
    { name: 'products-push', direction: 'push', resource: 'products', mapping: 'products.yaml', source: { connection: 'erp' }, schedule: '*/5 * * * *' },
  ];
  const pipelineDeps: Record<string, PipelineDeps> = {
    'manufacturers-push': { state, shop, events, mapping: await loadMapping(join(dir, 'manufacturers.yaml')), source: source('SELECT code, name, updated_at FROM manufacturers', 'code') },
    'products-push': { state, shop, events, mapping: await loadMapping(join(dir, 'products.yaml')), source: source('SELECT sku, name, price, stock, brand, updated_at FROM articles', 'sku') },
  };
  if (options.extraPipelines) {
    definitions.push({ name: 'broken-push', direction: 'push', resource: 'products', mapping: 'products.yaml', source: { connection: 'erp' } });
    pipelineDeps['broken-push'] = { ...pipelineDeps['products-push']!, source: source('SELECT sku, name, price, stock, brand, updated_at FROM artikel_alt', 'sku') };
    definitions.push({ name: 'orders-pull', direction: 'pull', resource: 'orders', mapping: 'orders.yaml', sink: { connection: 'erp' } });
  }
  // The pull is only listed: nothing in these tests runs it, so it needs no mapping or sink.
  const actions = dashboardActions({ state, pipelines: definitions.filter((d) => pipelineDeps[d.name]).map((definition) => ({ definition, deps: pipelineDeps[definition.name]! })) });

  const app: FastifyInstance = Fastify();
  app.get('/healthz', () => ({ ok: true }));
  const deps: DashboardDeps = {
    state,
    events,
    pipelines: definitions.map((d) => ({ name: d.name, resource: d.resource, direction: d.direction, schedule: d.schedule, nextRun: () => new Date(Math.ceil(Date.now() / 300_000) * 300_000) })),
    ...actions,
  };
  await registerDashboard(app, deps);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = listeningUrl(app.server);

  return {
    url,
    dir,
    state,
    sandbox,
    shop,
    erp,
    run: (name) => runPipeline(definitions.find((d) => d.name === name)!, pipelineDeps[name]!, { mode: 'sync' }),
    async close() {
      await app.close();
      await shop.close();
      await sandbox.close();
      await state.close();
      erp.close();
      removeDir(dir);
    },
  };
}
