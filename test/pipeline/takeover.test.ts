/**
 * A run taken over while its process could not answer (frozen by SIGSTOP, a paused VM): another
 * process took the lane, marked the run `crashed` and ran the lane itself. When the first process
 * wakes, its run's final write must not overwrite the taker's `crashed` (that left two runs of one
 * lane overlapping in the runs table), nothing more may leave for the shop, and the run is not
 * reported as finished by it. Here the freeze is a source that stops at a latch the test holds,
 * and the server ending the frozen process's sessions is the test ending its lane lock's session
 * (PostgreSQL) or a taker finding the lock's holder gone (SQLite); the same with real processes
 * and SIGSTOP is test/jobs/zombie.infra.test.ts.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Source, SourceItem } from '../../src/erp/types.js';
import { createLogger, type Logger } from '../../src/log.js';
import { runPipeline, SyncEvents } from '../../src/pipeline/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import type { StateLocation } from '../../src/state/index.js';
import { sleep } from '../support/wait.js';
import { forEachBackend, type Backend } from '../state/backends.js';
import { clientFor, createErp, mappingFile, PRODUCT_MAPPING, shopRecords, sqliteSource, tempDir, upsertProducts } from './support.js';

const N = 60;
const def = { name: 'products', direction: 'push' as const, source: { connection: 'erp' }, mapping: 'products.yaml', resource: 'products', batchSize: 10 };

let sandbox: SandboxHandle;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
});
afterAll(async () => {
  await sandbox?.close();
});

/** A source that stops before its `at`-th record until the test lets it go on: the frozen process. */
function frozenAt(inner: () => Promise<Source>, at: number): { source: () => Promise<Source>; reached: Promise<void>; wake: () => void } {
  let reach!: () => void;
  let wake!: () => void;
  const reached = new Promise<void>((r) => (reach = r));
  const woken = new Promise<void>((r) => (wake = r));
  const source = async (): Promise<Source> => {
    const s = await inner();
    return {
      kind: s.kind,
      ...(s.readsAll !== undefined ? { readsAll: s.readsAll } : {}),
      async *read(options): AsyncIterable<SourceItem> {
        let i = 0;
        for await (const item of s.read(options)) {
          if (i++ === at) {
            reach();
            await woken;
          }
          yield item;
        }
      },
      ...(s.commit ? { commit: (p) => s.commit!(p) } : {}),
      close: () => s.close(),
    };
  };
  return { source, reached, wake };
}

/** The server ends the frozen process's lock session (PostgreSQL), or its lock is found abandoned (SQLite): the lane is free to take. */
async function freeTheLane(backend: Backend, location: StateLocation, lane: string): Promise<void> {
  if (location.kind === 'postgres') {
    await backend.sql(
      location,
      `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = hashtext(?)::oid AND objid = hashtext(?)::oid`,
      `shopsync:${location.schema}`,
      lane,
    );
  } else {
    // An owner no process here holds under this pid: what a lock left by a dead process with a reused pid looks like.
    await backend.sql(location, `UPDATE locks SET owner = 'gone' WHERE name = ?`, lane);
  }
}

function capture(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ level: 'info', destination: sink }), lines };
}

forEachBackend('a run taken over while its process was frozen', (backend) => {
  it('keeps the crashed status its taker wrote when the first owner finishes late, and says who took it', async () => {
    const state = await backend.open();
    const lane = 'products';
    const id = await state.runs.start({ pipeline: 'products', mode: 'sync', lane, owner: 'replica-a:101:aaaa' });
    expect(await state.runs.markCrashed(lane, 'replica-b:202:bbbb')).toBe(1);
    const crashed = await state.runs.get(id);
    const late = await state.runs.finish(id, 'succeeded', { read: 5, created: 5, updated: 0, unchanged: 0, failed: 0, deadLettered: 0, unreadable: 0, warnings: 0, requests: 1 }, undefined, 'replica-a:101:aaaa');
    expect(late).toEqual({ finished: false, status: 'crashed', owner: 'replica-b:202:bbbb' });
    const after = await state.runs.get(id);
    expect(after).toMatchObject({ status: 'crashed', owner: 'replica-b:202:bbbb', finishedAt: crashed?.finishedAt, counts: { created: 0 } });
    expect(await state.runs.list({ pipeline: 'products', status: ['running', 'succeeded'] })).toEqual([]);
  });

  it('finishes its own running run, never before it started', async () => {
    const location = backend.location();
    const state = await backend.open(location);
    const id = await state.runs.start({ pipeline: 'products', mode: 'sync', lane: 'products', owner: 'replica-a:101:aaaa' });
    // The stamp of a start written by a clock that was ahead (or a clock stepped back since).
    await backend.sql(location, 'UPDATE runs SET started_at = started_at + 3600000 WHERE id = ?', id);
    expect(await state.runs.finish(id, 'succeeded', zero(), undefined, 'replica-a:101:aaaa')).toEqual({ finished: true });
    const run = await state.runs.get(id);
    expect(run?.status).toBe('succeeded');
    expect(Date.parse(run!.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(run!.startedAt));
    // Another owner's finish of the same run does nothing now.
    expect(await state.runs.finish(id, 'failed', zero(), undefined, 'replica-a:101:aaaa')).toMatchObject({ finished: false, status: 'succeeded' });
  });

  it('stops the woken run before its next request and reports it as taken over, not finished: one crashed run, the taker\'s run, no overlap', async () => {
    const dir = tempDir();
    const erpFile = `${dir}/erp.sqlite`;
    const erp = createErp(erpFile);
    upsertProducts(erp, 1, N);
    erp.close();
    const mapping = await mappingFile(dir, 'products', PRODUCT_MAPPING);
    const location = backend.location();
    const zombieState = await backend.open(location);
    const takerState = await backend.open(location);
    const shop = clientFor(sandbox);
    const events = new SyncEvents();
    let zombieBatches = 0;
    let woken = false;
    events.on('batch-sent', () => void (woken ? zombieBatches++ : undefined));
    const frozen = frozenAt(sqliteSource(erpFile), 25);
    const { logger, lines } = capture();
    // No heartbeat while frozen, as with a stopped process: the lock is asked only when the run goes on.
    const zombie = runPipeline(def, { state: zombieState, shop, mapping, source: frozen.source, logger, events }, { heartbeatMs: 3_600_000 }).then(
      () => undefined,
      (err: unknown) => err as Error & { code?: string },
    );
    await frozen.reached;
    const [frozenRun] = await takerState.runs.list({ pipeline: 'products', status: 'running' });
    expect(frozenRun).toBeDefined();

    await freeTheLane(backend, location, 'products');
    const taker = await runPipeline(def, { state: takerState, shop, mapping, source: sqliteSource(erpFile) });
    expect(taker.status).toBe('succeeded');
    const cursor = await takerState.cursors.get('products');
    // Past the zombie's confirmation window (1 s, monotonic), as any freeze long enough for a takeover is.
    await sleep(1200);
    woken = true;
    frozen.wake();
    const err = await zombie;

    expect(err?.code).toBe('RUN_TAKEN_OVER');
    expect(zombieBatches).toBe(0);
    const runs = await takerState.runs.list({ pipeline: 'products' });
    expect(runs.map((r) => [r.id, r.status])).toEqual([
      [taker.runId, 'succeeded'],
      [frozenRun!.id, 'crashed'],
    ]);
    const [mine, theirs] = [runs[1]!, runs[0]!];
    expect(Date.parse(mine.finishedAt!)).toBeLessThanOrEqual(Date.parse(theirs.startedAt));
    expect(mine.owner).toBe(theirs.owner);
    expect(await takerState.cursors.get('products')).toEqual(cursor);
    const warning = lines.find((l) => l.level === 40 && l.runId === frozenRun!.id && String(l.msg).includes('taken over'));
    expect(warning).toMatchObject({ runId: frozenRun!.id, takenBy: theirs.owner, statusNow: 'crashed' });
    expect(lines.some((l) => l.runId === frozenRun!.id && l.msg === 'run finished')).toBe(false);
    const models = (await shopRecords(shop, 'products')).map((p) => String(p.products_model));
    expect(models.length).toBe(N);
    expect(new Set(models).size).toBe(N);
    await shop.close();
  }, 60_000);
});

const zero = () => ({ read: 0, created: 0, updated: 0, unchanged: 0, failed: 0, deadLettered: 0, unreadable: 0, warnings: 0, requests: 0 });
