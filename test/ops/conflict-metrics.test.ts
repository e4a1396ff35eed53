/** /metrics counts the open field conflicts (`owner: guard`) of each pipeline from the state, so a monitor sees edits waiting for a person. */
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { openRuntime, type Runtime } from '../../src/ops/runtime.js';
import type { FieldConflict } from '../../src/state/index.js';
import { removeDir, tempDir } from '../support/tmp.js';

const dir = tempDir('shopsync-conflict-metrics-');
let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.close();
  removeDir(dir);
});

const conflict = (pipeline: string, erpKey: string, status: FieldConflict['status']): FieldConflict => ({
  pipeline,
  shop: 'default',
  resource: 'products',
  erpKey,
  shopId: 11,
  field: 'languages.de.products_description',
  erpValue: 'ERP v2',
  sentValue: 'ERP v1',
  shopValue: 'edited in the shop',
  status,
  firstSeenAt: '2026-12-01T10:00:00.000Z',
  lastSeenAt: '2026-12-01T10:00:00.000Z',
  ...(status === 'resolved' ? { resolution: 'shop' as const, resolvedAt: '2026-12-02T10:00:00.000Z' } : {}),
});

it('exports shopsync_open_conflicts per pipeline: the open ones counted, resolved ones not, a pipeline without any at 0', async () => {
  const source = (name: string) => `  - { name: ${name}, direction: push, resource: products, mapping: products.yaml, source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku } }`;
  const text = `shop:\n  baseUrl: https://shop.example.com/api\n  token: t\nconnections:\n  erp: { kind: sqlite, path: erp.sqlite }\npipelines:\n${source('articles')}\n${source('outlet')}\nstate:\n  path: ${join(dir, 'state.db')}\n`;
  runtime = await openRuntime(parseConfigText(text, join(dir, 'shopsync.yaml')), { logger: silentLogger });
  await runtime.state.write((tx) => {
    tx.conflicts.put(conflict('articles', 'SKU-1', 'open'));
    tx.conflicts.put(conflict('articles', 'SKU-2', 'open'));
    tx.conflicts.put(conflict('articles', 'SKU-3', 'resolved'));
  });
  const metrics = await runtime.metrics.registry.metrics();
  expect(metrics).toContain('shopsync_open_conflicts{shop="default",pipeline="articles"} 2');
  expect(metrics).toContain('shopsync_open_conflicts{shop="default",pipeline="outlet"} 0');
});
