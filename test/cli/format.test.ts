import { describe, expect, it } from 'vitest';
import { missingLine } from '../../src/cli/commands/sync.js';
import { hintFor, summaryLine } from '../../src/cli/format.js';
import { hintSettingsOf } from '../../src/cli/hints.js';
import { parseConfigText } from '../../src/config/index.js';
import type { RunSummary } from '../../src/pipeline/index.js';

const failed = (code: string, message: string): RunSummary =>
  ({
    runId: 7,
    pipeline: 'products',
    mode: 'sync',
    status: 'failed',
    counts: { read: 2, created: 0, updated: 0, unchanged: 0, failed: 0, deadLettered: 0, unreadable: 0, warnings: 0, requests: 1 },
    durationMs: 1200,
    error: { code, message },
  }) as unknown as RunSummary;

describe('the setting a hint names', () => {
  const twoShops = `shops:
  de:
    baseUrl: https://de.example.com/api
    token: \${DE_TOKEN}
  at:
    baseUrl: https://at.example.com/api
    token: \${AT_TOKEN}
connections:
  erp: { kind: sqlite, path: erp.sqlite }
pipelines:
  - { name: products-de, shop: de, direction: push, resource: products, mapping: products.yaml, source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku } }
  - { name: products-at, shop: at, direction: push, resource: products, mapping: products.yaml, source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku } }
`;

  it("is the pipeline's own shop's token and base URL when the config has several shops, with file, line and variable", () => {
    const loaded = parseConfigText(twoShops, '/etc/shopsync/shopsync.yaml', { env: { DE_TOKEN: 'd', AT_TOKEN: 'a' } });
    const settings = hintSettingsOf(loaded, 'products-at');
    expect(settings.credentials).toContain('shops.at.token');
    expect(settings.credentials).toContain('AT_TOKEN');
    expect(settings.url).toContain('shops.at.baseUrl');
    const line = summaryLine(failed('UNAUTHORIZED', 'Invalid bearer token'), settings);
    expect(line).toMatch(/hint: the shop refused the credentials: check shops\.at\.token/);
    expect(line).not.toContain('shop.token (or shop.oauth)');
    expect(summaryLine(failed('NETWORK_ERROR', 'connect ECONNREFUSED'), hintSettingsOf(loaded, 'products-de'))).toMatch(/hint: the shop did not answer: check shops\.de\.baseUrl/);
  });
});

describe('run summary lines', () => {
  it('tells how to fix a refused token', () => {
    const line = summaryLine(failed('UNAUTHORIZED', 'PUT /import/json/products: Invalid bearer token'));
    expect(line).toContain('error: [UNAUTHORIZED] PUT /import/json/products');
    expect(line).toMatch(/\n {2}hint: .*shop\.token/);
  });

  it('points at shop.baseUrl when the shop does not answer', () => {
    expect(summaryLine(failed('NETWORK_ERROR', 'connect ECONNREFUSED 127.0.0.1:1'))).toMatch(/hint: .*shop\.baseUrl/);
  });

  it('points at shop.baseUrl when the shop does not know the route (a base URL with a path too many)', () => {
    expect(summaryLine(failed('METHOD_NOT_FOUND', 'Method not found: PUT /api/import/json/products'))).toMatch(/hint: .*shop\.baseUrl is the API root/);
  });

  it('adds no hint to errors without a known remedy', () => {
    expect(hintFor('SOURCE_QUERY_FAILED')).toBeUndefined();
    expect(summaryLine(failed('SOURCE_QUERY_FAILED', 'no such table'))).not.toContain('hint:');
  });

  it('says a dry run\'s counts as what it would do, a sync\'s as what it did (the JSON keeps its keys)', () => {
    const counts = { read: 188, created: 185, updated: 3, unchanged: 0, failed: 1, deadLettered: 0, unreadable: 0, warnings: 0, requests: 0 };
    const dry = { runId: 0, pipeline: 'products', mode: 'dry-run', status: 'succeeded', counts, durationMs: 900 } as unknown as RunSummary;
    expect(summaryLine(dry)).toBe('products dry-run succeeded in 0.9 s: read 188, would create 185, would update 3, unchanged 0, would fail 1, would dead-letter 0');
    expect(summaryLine({ ...dry, mode: 'sync', runId: 4 })).toBe('products sync succeeded (run 4) in 0.9 s: read 188, created 185, updated 3, unchanged 0, failed 1, dead-lettered 0');
    const gone = { action: 'deactivate', candidates: 4, total: 190, decided: true, deactivated: 0, deleted: 0, failed: 0 } as unknown as Parameters<typeof missingLine>[0];
    expect(missingLine(gone, 'dry-run')).toBe('  gone from the ERP (onMissing: deactivate): 4 of 190; would deactivate 4');
    expect(missingLine({ ...gone, deactivated: 4 }, 'sync')).toBe('  gone from the ERP (onMissing: deactivate): 4 of 190; deactivated 4, deleted 0, failed 0');
  });
});
