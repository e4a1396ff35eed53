/** `shopsync state copy`: a whole state moves between SQLite and PostgreSQL, row for row, ids kept. */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { StateError } from '../../src/errors.js';
import { copyState } from '../../src/state/copy.js';
import { emptyCounts, STATE_TABLES, type StateLocation, type StateRow, type StateStore, type StateTable } from '../../src/state/index.js';
import { BACKENDS, postgresAvailable, postgresLocation, sqliteLocation } from './backends.js';

/** A state with rows in every table, in two shops. */
async function fill(state: StateStore): Promise<void> {
  const outlet = state.forShop('outlet');
  await state.cursors.set('products', 'incremental', { value: '2026-01-02 10:00:00', key: 'A-7', boundary: { day: '2026-01-02' } });
  const done = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' });
  await state.write((tx) => {
    for (let i = 0; i < 250; i++) {
      tx.refs.put('products', `A-${i}`, 100 + i);
      tx.hashes.put('products', 'products', `A-${i}`, `hash-${i}`);
      tx.events.add({ runId: done, pipeline: 'products', resource: 'products', erpKey: `A-${i}`, shopId: 100 + i, outcome: 'created', payload: { products_model: `A-${i}`, note: 'ü "quoted" \\ back' }, warnings: i % 50 === 0 ? [{ code: 'W', message: 'w' }] : [] });
    }
    tx.deadLetters.add({ pipeline: 'products', resource: 'products', erpKey: 'A-13', record: { sku: 'A-13', qty: 'viele' }, code: 'INVALID_PAYLOAD', reason: 'bad qty', runId: done, origin: { file: 'erp.csv', line: 14 } });
    tx.intents.put({ resource: 'products', erpKey: 'NEW-1', pipeline: 'products', hash: 'h', naturalKey: { products_model: 'NEW-1' }, runId: done });
    tx.seen.put('orders-in', 'O-1', 'seen-hash');
    // Followed orders (issue 44): the cancelled flag is BOOLEAN on PostgreSQL, 0/1 on SQLite.
    tx.followed.put({ pipeline: 'orders-in', shop: 'default', key: '7', placedDay: '2026-01-02', status: 4, cancelled: true, snapshot: { status: 4, history: 2, tracking: ['T-1'], addresses: { billing: 'b' }, items: 'i' }, changes: [{ seq: 1, id: 'h2', kind: 'cancelled', detected_at: '2026-01-03T00:00:00.000Z', status: 4, previous_status: 1 }], firstAt: '2026-01-02T10:00:00.000Z', changedAt: '2026-01-03T00:00:00.000Z', doneAt: '2026-01-03T00:00:00.000Z', doneReason: 'final' });
    // Field conflicts and sent values (issue 46): JSON values, an unknown sent value as NULL.
    tx.sentValues.put('products', 'A-7', 'languages.de.products_description', 'Text ü');
    tx.conflicts.put({ pipeline: 'products', shop: 'default', resource: 'products', erpKey: 'A-7', shopId: 107, field: 'languages.de.products_description', erpValue: 'ERP', shopValue: 'Shop', status: 'open', firstSeenAt: '2026-01-02T10:00:00.000Z', lastSeenAt: '2026-01-03T10:00:00.000Z', runId: done });
    tx.followed.put({ pipeline: 'orders-in', shop: 'default', key: '8', placedDay: '2026-01-02', cancelled: false, snapshot: { history: 0, tracking: [], addresses: {}, items: 'i' }, changes: [], firstAt: '2026-01-02T10:00:00.000Z' });
  });
  await state.runs.finish(done, 'partial', { ...emptyCounts(), read: 250, created: 249, deadLettered: 1 });
  await outlet.runs.start({ pipeline: 'orders', mode: 'sync', lane: 'orders' });
  await outlet.write((tx) => {
    tx.refs.put('products', 'A-1', 'outlet-1');
    tx.history.mark('orders', 7, 'status-1', 'pending', { orders_status_id: 3 });
  });
  await state.rewinds.markRestored({ restoredAt: 1000, file: '/backups/monday.db' });
}

/** Every row of every table, in a comparable order. */
async function everything(state: StateStore): Promise<Record<StateTable, StateRow[]>> {
  const out = {} as Record<StateTable, StateRow[]>;
  for (const table of STATE_TABLES) {
    const rows: StateRow[] = [];
    for await (const page of state.dump.rows(table, 100)) rows.push(...page);
    out[table] = rows.map((r) => Object.fromEntries(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)))).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return out;
}

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => void (out += d.toString()));
  stderr.on('data', (d: Buffer) => void (err += d.toString()));
  const code = await main(['node', 'shopsync', ...args], { stdout, stderr, env: { ...process.env, LOG_LEVEL: 'silent' } });
  return { code, stdout: out, stderr: err };
}

describe.skipIf(!postgresAvailable)('state copy between SQLite and PostgreSQL', () => {
  it('moves every row from SQLite to PostgreSQL with ids kept, and new ids continue after them', async () => {
    const source = await BACKENDS.sqlite.open();
    await fill(source);
    const target = await BACKENDS.postgres.open();
    const copied: string[] = [];
    const report = await copyState(source, target, { pageSize: 100, onTable: (t, n) => copied.push(`${t}:${n}`) });
    expect(report.counts).toEqual(await source.dump.counts());
    expect(await target.dump.counts()).toEqual(report.counts);
    expect(report.counts).toMatchObject({ refs: 251, sent_hashes: 250, events: 250, runs: 2, dead_letters: 1, intents: 1, seen: 1, cursors: 1, history_entries: 1, state_marks: 1, followed: 2, sent_values: 1, field_conflicts: 1 });
    expect(copied).toContain('events:250');
    expect(await everything(target)).toEqual(await everything(source));

    expect(await target.refs.getMany('products', ['A-0', 'A-249'])).toEqual(await source.refs.getMany('products', ['A-0', 'A-249']));
    expect((await target.forShop('outlet').refs.get('products', 'A-1'))?.shopId).toBe('outlet-1');
    expect(await target.hashes.getMany('products', 'products', ['A-7'])).toEqual(new Map([['A-7', 'hash-7']]));
    expect(await target.deadLetters.getByKey('products', 'A-13')).toEqual(await source.deadLetters.getByKey('products', 'A-13'));
    expect(await target.events.list({ limit: 300 })).toEqual(await source.events.list({ limit: 300 }));
    expect(await target.cursors.get('products')).toEqual(await source.cursors.get('products'));
    expect(await target.followed.get('orders-in', ['7', '8'])).toEqual(await source.followed.get('orders-in', ['7', '8']));
    expect((await target.followed.get('orders-in', ['7'])).get('7')?.cancelled).toBe(true);
    // A restore nobody accepted yet still holds the pulls back after the move.
    expect(await target.rewinds.restored()).toEqual({ restoredAt: 1000, file: '/backups/monday.db' });

    const maxRun = Math.max(...(await source.runs.list()).map((r) => r.id));
    expect(await target.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' })).toBe(maxRun + 1);
    await target.write((tx) => tx.deadLetters.add({ pipeline: 'products', erpKey: 'B-1', record: {}, code: 'X', reason: 'x' }));
    expect((await target.deadLetters.getByKey('products', 'B-1'))!.id).toBeGreaterThan((await target.deadLetters.getByKey('products', 'A-13'))!.id);
  });

  it('moves it back from PostgreSQL into a new SQLite file unchanged', async () => {
    const original = await BACKENDS.sqlite.open();
    await fill(original);
    const middle = await BACKENDS.postgres.open();
    await copyState(original, middle);
    const back = await BACKENDS.sqlite.open();
    await copyState(middle, back);
    expect(await everything(back)).toEqual(await everything(original));
    expect(await back.followed.get('orders-in', ['7', '8'])).toEqual(await original.followed.get('orders-in', ['7', '8']));
    const maxRun = Math.max(...(await original.runs.list()).map((r) => r.id));
    expect(await back.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products' })).toBe(maxRun + 1);
  });

  it('only counts on a dry run and writes nothing', async () => {
    const source = await BACKENDS.sqlite.open();
    await fill(source);
    const target = await BACKENDS.postgres.open();
    const report = await copyState(source, target, { dryRun: true });
    expect(report).toMatchObject({ dryRun: true, counts: await source.dump.counts() });
    expect(Object.values(await target.dump.counts()).every((n) => n === 0)).toBe(true);
  });

  it('creates nothing on a `--dry-run`: no PostgreSQL schema, no SQLite file; a non-empty target is still refused', async () => {
    const from = sqliteLocation() as StateLocation & { kind: 'sqlite' };
    const source = await BACKENDS.sqlite.open(from);
    await fill(source);
    await source.close();
    const to = postgresLocation();
    const dry = await cli(['state', 'copy', '--from', from.path, '--to', to.url, '--schema', to.schema, '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, counts: { refs: 251, events: 250 }, to: `${to.url}#${to.schema}` });
    expect(await BACKENDS.postgres.sql({ ...to, schema: 'public' }, 'SELECT schema_name FROM information_schema.schemata WHERE schema_name = ?', to.schema)).toEqual([]);

    const file = (sqliteLocation() as StateLocation & { kind: 'sqlite' }).path;
    const toSqlite = await cli(['state', 'copy', '--from', from.path, '--to', file, '--dry-run']);
    expect(toSqlite.code, toSqlite.stderr).toBe(0);
    expect(toSqlite.stdout).toContain('would copy');
    expect(existsSync(file), 'the dry run created the SQLite file').toBe(false);
    expect(existsSync(dirname(file)), 'the dry run created the folder of the SQLite file').toBe(false);

    // A target that already holds a state: the dry run refuses it as the copy would, and leaves it as it was.
    const loc = postgresLocation();
    const full = await BACKENDS.postgres.open(loc);
    await full.write((tx) => tx.refs.put('products', 'ONLY-IN-TARGET', 1));
    const refused = await cli(['state', 'copy', '--from', from.path, '--to', loc.url, '--schema', loc.schema, '--dry-run']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('not empty (refs 1)');
    expect(await full.dump.counts()).toMatchObject({ refs: 1, events: 0 });
  });

  it('refuses a target that holds a state unless forced, and then replaces it', async () => {
    const source = await BACKENDS.sqlite.open();
    await fill(source);
    const target = await BACKENDS.postgres.open();
    await copyState(source, target);
    const refused = await copyState(source, target).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(StateError);
    expect(refused).toMatchObject({ code: 'STATE_TARGET_NOT_EMPTY', message: expect.stringContaining('--force') });
    await target.write((tx) => tx.refs.put('products', 'ONLY-IN-TARGET', 1));
    await copyState(source, target, { force: true });
    expect(await target.dump.counts()).toEqual(await source.dump.counts());
    expect(await target.refs.get('products', 'ONLY-IN-TARGET')).toBeUndefined();
    expect(await everything(target)).toEqual(await everything(source));
  });

  it('is the `shopsync state copy` command: counts per table, exit 2 for a non-empty target without --force', async () => {
    const from = sqliteLocation() as StateLocation & { kind: 'sqlite' };
    const source = await BACKENDS.sqlite.open(from);
    await fill(source);
    await source.close();
    const to = postgresLocation();
    const args = ['state', 'copy', '--from', from.path, '--to', to.url, '--schema', to.schema];

    const dry = await cli([...args, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^events\s+250$/m);
    expect(dry.stdout).toContain(`would copy ${251 + 250 + 250 + 2 + 1 + 1 + 1 + 1 + 1 + 1 + 2 + 1 + 1} rows`);

    const done = await cli([...args, '--json']);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ dryRun: false, counts: { refs: 251, events: 250 }, to: `${to.url}#${to.schema}` });

    const again = await cli(args);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('--force');
    expect((await cli([...args, '--force'])).code).toBe(0);

    const missing = await cli(['state', 'copy', '--from', `${from.path}.nothing`, '--to', to.url]);
    expect(missing.code).toBe(2);
  });

  it('names the unreachable server of a copy without its password', async () => {
    const from = sqliteLocation() as StateLocation & { kind: 'sqlite' };
    await (await BACKENDS.sqlite.open(from)).close();
    const r = await cli(['state', 'copy', '--from', from.path, '--to', 'postgres://shopsync:s3cret-pw@127.0.0.1:1/shopsync']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('STATE_UNREACHABLE');
    expect(r.stderr).toContain('127.0.0.1:1');
    expect(r.stderr).not.toContain('s3cret-pw');
  });
});
