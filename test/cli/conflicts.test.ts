/** `shopsync conflicts list|resolve` and the open conflicts of `shopsync status` (issue 46), on a SQLite state. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { openState, type FieldConflict } from '../../src/state/index.js';

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (c: Buffer) => (stdout += c.toString()));
  err.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await main(['node', 'shopsync', ...args, '--config', config, '--log-level', 'silent'], { stdout: out as unknown as NodeJS.WriteStream, stderr: err as unknown as NodeJS.WriteStream, env: { SHOP_TOKEN: 'test-token' } });
  return { code, stdout, stderr };
}

const conflict = (erpKey: string, field: string, extra: Partial<FieldConflict> = {}): FieldConflict => ({
  pipeline: 'articles',
  shop: 'default',
  resource: 'products',
  erpKey,
  shopId: 7,
  field,
  erpValue: 'ERP text v2',
  sentValue: 'ERP text v1',
  shopValue: 'Shop text',
  status: 'open',
  firstSeenAt: '2026-12-01T10:00:00.000Z',
  lastSeenAt: '2026-12-01T10:00:00.000Z',
  ...extra,
});

let dir: string;
let config: string;
const statePath = () => join(dir, 'state/shopsync.db');

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'shopsync-conflicts-'));
  config = join(dir, 'shopsync.yaml');
  writeFileSync(
    config,
    'shop: { baseUrl: "http://127.0.0.1:9", token: "${SHOP_TOKEN}" }\nconnections:\n  erp: { kind: sqlite, path: erp.sqlite }\npipelines:\n  - name: articles\n    direction: push\n    resource: products\n    mapping: products.yaml\n    source: { connection: erp, query: SELECT * FROM p, cursor: c, key: k }\n',
  );
  const state = await openState(statePath());
  await state.write((tx) => {
    tx.conflicts.put(conflict('A-1', 'languages.de.products_description'));
    tx.conflicts.put(conflict('A-1', 'products_price', { erpValue: '21.90', sentValue: '19.90', shopValue: 18.5, lastSeenAt: '2026-12-02T10:00:00.000Z' }));
    tx.conflicts.put(conflict('A-9', 'products_price', { status: 'resolved', resolution: 'agreed', resolvedAt: '2026-12-02T10:00:00.000Z' }));
  });
  await state.close();
});

describe('shopsync conflicts', () => {
  it('lists the open conflicts with their three values and says how to decide; --all adds the resolved ones; --json has them whole', async () => {
    const list = await cli(['conflicts', 'list']);
    expect(list.code, list.stderr).toBe(0);
    const [header, first, second, , hint] = list.stdout.trim().split('\n');
    expect(header).toMatch(/^PIPELINE\s+ERP KEY\s+SHOP ID\s+FIELD\s+SHOP\s+LAST SENT\s+ERP\s+STATE\s+LAST SEEN$/);
    expect(first).toMatch(/^articles\s+A-1\s+7\s+products_price\s+18\.5\s+19\.90\s+21\.90\s+open\s/);
    expect(second).toMatch(/languages\.de\.products_description\s+Shop text\s+ERP text v1\s+ERP text v2\s+open/);
    expect(hint).toBe('decide: shopsync conflicts resolve articles A-1 products_price --take erp|shop');
    expect((await cli(['conflicts', 'list', 'articles', '--all'])).stdout).toContain('resolved: agreed');
    const json = JSON.parse((await cli(['conflicts', 'list', 'articles', '--json'])).stdout) as FieldConflict[];
    expect(json.map((c) => c.field)).toEqual(['products_price', 'languages.de.products_description']);
  });

  it('keeps the shop value of one field, and marks the other taken from the ERP until the next sync sends it', async () => {
    const keep = await cli(['conflicts', 'resolve', 'articles', 'A-1', 'products_price', '--take', 'shop']);
    expect(keep.code, keep.stderr).toBe(0);
    expect(keep.stdout).toContain("kept the shop's value of `products_price` of A-1");
    const take = await cli(['conflicts', 'resolve', 'articles', 'A-1', '--take', 'erp']);
    expect(take.code, take.stderr).toBe(0);
    expect(take.stdout).toContain('the next sync of articles sends it once');
    const state = await openState(statePath());
    try {
      expect((await state.sentValues.get('articles', ['A-1'])).get('A-1')?.get('products_price')).toEqual({ value: 18.5, erp: '21.90' });
      expect(await state.conflicts.list({ pipeline: 'articles', erpKey: 'A-1' })).toMatchObject([
        { field: 'languages.de.products_description', status: 'open', resolution: 'erp' },
        { field: 'products_price', status: 'resolved', resolution: 'shop' },
      ]);
    } finally {
      await state.close();
    }
    expect((await cli(['conflicts', 'list'])).stdout).toContain('open: taking ERP (next sync)');
  });

  it('exits 2 naming what is missing: no open conflict as named, no key and no --all, an unknown pipeline', async () => {
    const none = await cli(['conflicts', 'resolve', 'articles', 'A-9', '--take', 'erp']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no open conflict of articles for A-9');
    const bare = await cli(['conflicts', 'resolve', 'articles', '--take', 'shop']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('or --all');
    expect((await cli(['conflicts', 'resolve', 'nope', 'A-1', '--take', 'shop'])).code).toBe(2);
    expect((await cli(['conflicts', 'resolve', 'articles', 'A-1'])).code).toBe(2);
  });

  it('decides every open conflict of a pipeline with --all', async () => {
    const all = await cli(['conflicts', 'resolve', 'articles', '--all', '--take', 'shop', '--json']);
    expect(all.code, all.stderr).toBe(0);
    expect((JSON.parse(all.stdout) as FieldConflict[]).map((c) => c.resolution)).toEqual(['shop', 'shop']);
    expect((await cli(['conflicts', 'list'])).stdout.trim()).toBe('no open conflicts');
  });
});

describe('shopsync status', () => {
  it('shows the open conflicts per pipeline, in the table, under it with the commands, and in --json', async () => {
    const text = await cli(['status']);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toMatch(/DEAD LETTERS\s+CONFLICTS$/);
    expect(lines[1]).toMatch(/\s0\s+2$/);
    expect(text.stdout).toContain('articles: 2 open; `shopsync conflicts list articles`');
    const json = JSON.parse((await cli(['status', '--json'])).stdout) as { pipelines: { name: string; conflicts: number }[] };
    expect(json.pipelines).toMatchObject([{ name: 'articles', conflicts: 2 }]);
  });
});
