import { describe, expect, it } from 'vitest';
import { hintFor, summaryLine } from '../../src/cli/format.js';
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
});
