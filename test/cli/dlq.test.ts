/** `shopsync dlq list` says when a sync tries each letter again, or that only a person will. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { openState } from '../../src/state/index.js';

async function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (c: Buffer) => (stdout += c.toString()));
  err.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await main(['node', 'shopsync', ...args], { stdout: out as unknown as NodeJS.WriteStream, stderr: err as unknown as NodeJS.WriteStream, env });
  return { code, stdout, stderr };
}

describe('dlq list', () => {
  it('shows the next automatic try of a letter that waits for another record, and "by hand" for one no sync retries', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shopsync-dlq-next-'));
    const config = join(dir, 'shopsync.yaml');
    writeFileSync(
      config,
      'shop: { baseUrl: "http://127.0.0.1:9", token: "${SHOP_TOKEN}" }\nconnections:\n  erp: { kind: sqlite, path: erp.sqlite }\npipelines:\n  - name: stock\n    direction: push\n    resource: products\n    mapping: stock.yaml\n    source: { connection: erp, query: SELECT * FROM p, cursor: c, key: k }\n',
    );
    const state = await openState(join(dir, 'state/shopsync.db'));
    const runId = await state.runs.start({ pipeline: 'stock', mode: 'sync', lane: 'stock' });
    const letter = (erpKey: string, code: string) => ({ pipeline: 'stock', resource: 'products', erpKey, runId, code, reason: 'r', record: { k: erpKey }, payload: undefined });
    await state.write((tx) => {
      tx.deadLetters.add(letter('WAITS', 'NOT_FOUND'));
      tx.deadLetters.add(letter('WAITS', 'NOT_FOUND'));
      tx.deadLetters.add(letter('GUARDED', 'GUARD_SUPPLIER_WITHOUT_NUMBER'));
    });
    const waits = (await state.deadLetters.getByKey('stock', 'WAITS'))!;
    await state.close();
    const env = { SHOP_TOKEN: 'test-token' };

    const json = await cli(['dlq', 'list', '--json', '--config', config, '--log-level', 'silent'], env);
    expect(json.code, json.stderr).toBe(0);
    const byKey = new Map((JSON.parse(json.stdout) as { erpKey: string; nextAutoRetryAt: string | null }[]).map((l) => [l.erpKey, l.nextAutoRetryAt]));
    expect(byKey.get('WAITS')).toBe(new Date(Date.parse(waits.lastFailedAt) + 60_000).toISOString());
    expect(byKey.get('GUARDED')).toBeNull();

    const table = await cli(['dlq', 'list', '--config', config, '--log-level', 'silent'], env);
    const [header, ...rows] = table.stdout.trim().split('\n');
    expect(header).toMatch(/ATTEMPTS\s+LAST FAILED\s+NEXT TRY\s+REASON/);
    expect(rows.find((r) => r.includes('GUARDED'))).toMatch(/by hand\s+r$/);
    expect(rows.find((r) => r.includes('WAITS'))).toMatch(/\s2\s+\S+ \S+Z\s+\S+ \S+Z\s+r$/);
  });
});
