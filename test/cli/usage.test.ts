import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

/** Run the CLI in-process and collect what it writes. */
async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (c: Buffer) => (stdout += c.toString()));
  err.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await main(['node', 'shopsync', ...args], { stdout: out as unknown as NodeJS.WriteStream, stderr: err as unknown as NodeJS.WriteStream, env });
  return { code, stdout, stderr };
}

describe('usage errors a user meets first', () => {
  it('says what to give when dlq retry has neither ids nor --all, without an error-code prefix', async () => {
    const r = await cli(['dlq', 'retry']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('shopsync: give dead-letter ids (see `shopsync dlq list`) or --all\n');
  });

  it('says where it looked for the config and how to point at one', async () => {
    const r = await cli(['status', '--config', '/nonexistent/shopsync.yaml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^shopsync: \/nonexistent\/shopsync\.yaml: cannot read config.*--config <file>.*SHOPSYNC_CONFIG/);
  });
});

describe('dead-letter ids that do not exist', () => {
  it('fail with exit 2 naming the ids instead of "nothing to retry", and a drop of a known and an unknown id names the unknown one', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { openState } = await import('../../src/state/index.js');
    const dir = mkdtempSync(join(tmpdir(), 'shopsync-dlq-'));
    const config = join(dir, 'shopsync.yaml');
    writeFileSync(
      config,
      'shop: { baseUrl: "http://127.0.0.1:9", token: "${SHOP_TOKEN}" }\nconnections:\n  erp: { kind: sqlite, path: erp.sqlite }\npipelines:\n  - name: products\n    direction: push\n    resource: products\n    mapping: products.yaml\n    source: { connection: erp, query: SELECT * FROM p, cursor: c, key: k }\n',
    );
    const state = await openState(join(dir, 'state/shopsync.db'));
    const runId = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
    await state.write((tx) => tx.deadLetters.add({ pipeline: 'products', resource: 'products', erpKey: 'A-1', runId, code: 'MAPPING_REQUIRED', reason: 'no name', record: { k: 'A-1' }, payload: undefined }));
    const letter = (await state.deadLetters.getByKey('products', 'A-1'))!;
    await state.close();
    const env = { SHOP_TOKEN: 'test-token' };

    const retry = await cli(['dlq', 'retry', '998,999', '--config', config, '--log-level', 'silent'], env);
    expect(retry.code).toBe(2);
    expect(retry.stderr).toContain('no dead letter with id 998, 999');

    const drop = await cli(['dlq', 'drop', `${letter.id}`, '999', '--config', config, '--log-level', 'silent'], env);
    expect(drop.code).toBe(0);
    expect(drop.stderr).toContain('no dead letter with id 999');
    expect(drop.stdout).toBe('dropped 1 dead letter\n');
  });
});

describe('backfill ranges', () => {
  it('refuses swapped --from/--to before reading anything, for dates and for ids', async () => {
    const dates = await cli(['backfill', 'products', '--from', '2026-12-31', '--to', '2026-01-01']);
    expect(dates.code).toBe(2);
    expect(dates.stderr).toBe('shopsync: --from 2026-12-31 is after --to 2026-01-01: the range is empty (swap them?)\n');
    const ids = await cli(['backfill', 'products', '--from', '900', '--to', '1000', '--config', '/nonexistent.yaml']);
    expect(ids.stderr).not.toContain('is after');
    expect((await cli(['backfill', 'products', '--from', '1000', '--to', '900'])).code).toBe(2);
  });
});

describe('LOG_LEVEL', () => {
  it('names the variable and the levels when it holds no level, and accepts any case', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'shopsync-loglevel-'));
    const config = join(dir, 'shopsync.yaml');
    writeFileSync(config, 'shop: { baseUrl: "http://127.0.0.1:9", token: "${SHOP_TOKEN}" }\n');
    const bad = await cli(['status', '--config', config], { SHOP_TOKEN: 'test-token', LOG_LEVEL: 'verbose' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('shopsync: LOG_LEVEL=verbose is not a log level; use one of trace, debug, info, warn, error, fatal, silent\n');
    const upper = await cli(['status', '--config', config], { SHOP_TOKEN: 'test-token', LOG_LEVEL: 'WARN' });
    expect(upper.code).toBe(0);
    expect(upper.stdout).toContain('no pipelines in');
    expect(upper.stderr).toBe('');
  });
});
