/**
 * `shopsync <cmd> | head -1` for every command: a reader that goes away (EPIPE on the next write)
 * never shows a stack trace and never changes the exit code. Each one-off command runs three
 * times through the compiled CLI: with its output read to the end (the reference), with the reader
 * gone after the first chunk (`| head -1`), and with the reader gone before the first write
 * (`| true`); all three end with the same code. Daemons (run, sandbox, demo) go on without their
 * output and stop with 0 on SIGTERM. The list of cases is checked against the program's command
 * tree, so a new command cannot be left out.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/main.js';
import { CliContext } from '../../src/cli/context.js';
import { openState } from '../../src/state/index.js';
import { useSandbox, shopEnv } from '../support/sandbox.js';
import { requireService } from '../support/services.js';
import { BIN, createErp, ensureBuilt, runCli, tempDir, writeConfig } from './support.js';

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });
// `jobs` exists only on a PostgreSQL state (on SQLite it refuses with exit 2 and prints nothing on stdout).
const pgService = await requireService('postgres');
const pgUrl = `postgres://${pgService.user}@${pgService.host}:${pgService.port}/${pgService.database}`;
const pgSchema = `pipes_${randomBytes(4).toString('hex')}`;
afterAll(async () => {
  if (!pgService.available) return;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  try {
    for (const s of [pgSchema, `${pgSchema}_jobs`]) await admin.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(s)} CASCADE`);
  } finally {
    await admin.end();
  }
});

/** How the reader of stdout goes away. */
type Reader = 'to the end' | 'after the first line' | 'before the first write';

interface Ended {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  readonly firstLine: string;
}

/**
 * When a daemon gets its SIGTERM: once it is `ready`, and, with `progress`, once that count grew after its reader
 * went away (it went on writing without the reader: a run finished). Read every 100 ms: the daemons log to
 * stdout, which the reader may have closed, so the count comes from where the daemon keeps it.
 */
interface DaemonStop {
  /** Given what the daemon wrote on stderr so far. */
  readonly ready: (stderr: string) => boolean;
  readonly progress?: () => number;
}

/** Finished runs in a SQLite state file (0 while it does not exist yet). */
function finishedRuns(file: string): number {
  if (!existsSync(file)) return 0;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare("SELECT count(*) AS n FROM runs WHERE status <> 'running'").get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0; // not migrated yet, or busy: the next poll reads it
  }
}

/** Lines matching `pattern` in a log file (0 while it does not exist yet). */
function linesIn(file: string, pattern: RegExp): number {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => pattern.test(l)).length : 0;
}

/** Spawn the compiled CLI with stdout piped and read as `reader` says; a daemon gets SIGTERM once its log says it went on without its reader. */
function spawnCli(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string, reader: Reader, daemon?: DaemonStop): Promise<Ended> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, LOG_LEVEL: undefined, FORCE_COLOR: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let out = '';
  // The daemon's progress when the reader went away: it must grow after that.
  let progressAtGone: number | undefined;
  let stopped = false;
  const maybeStop = () => {
    if (!daemon || stopped || progressAtGone === undefined || !daemon.ready(stderr)) return;
    if (daemon.progress && daemon.progress() <= progressAtGone) return;
    stopped = true;
    child.kill('SIGTERM');
  };
  const gone = () => {
    progressAtGone = daemon?.progress?.() ?? 0;
  };
  const poll = daemon === undefined ? undefined : setInterval(maybeStop, 100);
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  if (reader === 'before the first write') {
    child.stdout.destroy();
    gone();
  } else {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (reader === 'after the first line' && !child.stdout.destroyed) {
        child.stdout.destroy();
        gone();
      }
    });
    if (reader === 'to the end' && daemon) gone();
  }
  const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      clearInterval(poll);
      resolve({ code, signal, stderr, firstLine: out.split('\n')[0] ?? '' });
    });
  });
}

/** What a Node crash (or any stack) looks like on stderr. */
const STACK = /node:events|Error: write EPIPE|^\s+at .+[:(].*\d+:\d+\)?$/m;

/** One command of the tree, as the test runs it. */
interface Case {
  /** Fresh arguments for each run (a new target file, a letter to retry). */
  readonly args: () => Promise<string[]> | string[];
  /** Runs until stopped: SIGTERM once its log says so. */
  readonly daemon?: DaemonStop;
  /** Working directory. @default the fixture's folder */
  readonly cwd?: string;
  /** Why it cannot run here (a server that is not there). */
  readonly skip?: string;
}

/** Every leaf command of the program, by its words (`dlq retry`). */
function leafCommands(): string[] {
  const program = buildProgram(new CliContext({ stdout: process.stdout, stderr: process.stderr, env: {} }));
  const out: string[] = [];
  const walk = (cmd: Command, path: string[]) => {
    for (const sub of cmd.commands) {
      const words = [...path, sub.name()];
      if (sub.commands.length === 0) out.push(words.join(' '));
      walk(sub, words);
    }
  };
  walk(program, []);
  return out.sort();
}

describe('a reader of the output that goes away', { timeout: 600_000 }, () => {
  it('ends no command with a stack trace or another exit code, for every command', async () => {
    const dir = tempDir();
    createErp(join(dir, 'erp.sqlite'), 40);
    const config = writeConfig(dir, { schedule: '*/1 * * * * *' });
    const env = { ...shopEnv(sandbox), SHOPSYNC_CONFIG: config };
    const first = await runCli(['sync', 'products'], { cwd: dir, env });
    expect(first.code, first.stderr).toBe(0);
    writeFileSync(join(dir, 'sample.csv'), `sku,name,price,qty\n${Array.from({ length: 20 }, (_, i) => `S-${i},Name ${i},${i}.50,${i}`).join('\n')}\n`);

    /** A dead letter of an existing product (delivered by a retry), so retry and drop have an id of their own each time. */
    const letter = async (): Promise<string> => {
      const state = await openState(join(dir, 'state/shopsync.db'));
      try {
        const erpKey = `SKU-${String(1 + Math.floor(Math.random() * 40)).padStart(5, '0')}`;
        const record = { sku: erpKey, name: 'Neu', price: '12.50', qty: '3', updated_at: '2026-01-01 00:00:00' };
        await state.write((tx) => tx.deadLetters.add({ pipeline: 'products', resource: 'products', erpKey, record, payload: undefined, code: 'NOT_FOUND', reason: 'test', runId: undefined }));
        return String((await state.deadLetters.getByKey('products', erpKey))!.id);
      } finally {
        await state.close();
      }
    };
    /** An open conflict of a guarded field (issue 46), so each resolve has one of its own to decide. */
    const conflict = async (): Promise<string> => {
      const state = await openState(join(dir, 'state/shopsync.db'));
      try {
        const erpKey = `SKU-C${Math.floor(Math.random() * 1e9)}`;
        const at = new Date().toISOString();
        await state.write((tx) => tx.conflicts.put({ pipeline: 'products', shop: 'default', resource: 'products', erpKey, shopId: 1, field: 'products_price', erpValue: '12.50', sentValue: '11.50', shopValue: 10, status: 'open', firstSeenAt: at, lastSeenAt: at }));
        return erpKey;
      } finally {
        await state.close();
      }
    };
    let n = 0;
    const fresh = (name: string) => join(dir, `${name}-${++n}`);
    let demoDir = '';
    const stateFile = join(dir, 'state/shopsync.db');
    const onPostgres = join(dir, 'shopsync-pg.yaml');
    writeFileSync(onPostgres, readFileSync(config, 'utf8').replace(/^state:\n  path: .*$/m, `state:\n  kind: postgres\n  url: ${pgUrl}\n  schema: ${pgSchema}`));
    const noPostgres = pgService.available ? undefined : `PostgreSQL unreachable (${pgService.reason})`;
    // notify-setup prints its SQL without connecting: a PostgreSQL source that need not be there.
    const onPostgresSource = join(dir, 'shopsync-pg-source.yaml');
    writeFileSync(onPostgresSource, readFileSync(config, 'utf8').replace('erp: { kind: sqlite, path: erp.sqlite }', 'erp: { kind: postgres, host: 127.0.0.1, database: test }'));

    const cases: Record<string, Case> = {
      init: { args: () => ['init', '--dir', fresh('init'), '--yes', '--shop-url', sandbox.url, '--shop-token-env', 'SHOP_TOKEN', '--sqlite', join(dir, 'erp.sqlite'), '--table', 'products'] },
      run: { args: () => ['run', '--port', '0'], daemon: { ready: () => finishedRuns(stateFile) > 0, progress: () => finishedRuns(stateFile) } },
      sync: { args: () => ['sync', 'products', '--dry-run'] },
      backfill: { args: () => ['backfill', 'products', '--from', '2020-01-01', '--to', '2030-01-01'] },
      reconcile: { args: () => ['reconcile', 'products'] },
      status: { args: () => ['status'] },
      'dlq list': { args: async () => (await letter(), ['dlq', 'list']) },
      'dlq retry': { args: async () => ['dlq', 'retry', await letter()] },
      'dlq drop': { args: async () => ['dlq', 'drop', await letter()] },
      'conflicts list': { args: async () => (await conflict(), ['conflicts', 'list']) },
      'conflicts resolve': { args: async () => ['conflicts', 'resolve', 'products', await conflict(), '--take', 'shop'] },
      'jobs list': { args: () => ['jobs', 'list', '--config', onPostgres], skip: noPostgres },
      'jobs add': { args: () => ['jobs', 'add', 'products', '--config', onPostgres], skip: noPostgres },
      'state prune': { args: () => ['state', 'prune', '--dry-run'] },
      'state backup': { args: () => ['state', 'backup', `${fresh('backup')}.db`] },
      'state restore': { args: () => ['state', 'restore', join(dir, 'backup-for-restore.db')] },
      'state accept-restore': { args: () => ['state', 'accept-restore'] },
      'state copy': { args: () => ['state', 'copy', '--from', join(dir, 'state/shopsync.db'), '--to', `${fresh('copy')}.db`, '--dry-run'] },
      doctor: { args: () => ['doctor'] },
      'config check': { args: () => ['config', 'check'] },
      'config print': { args: () => ['config', 'print'] },
      'shops list': { args: () => ['shops', 'list'] },
      'shops resume': { args: () => ['shops', 'resume', 'default'] },
      'erp notify-setup': { args: () => ['erp', 'notify-setup', 'products', '--table', 'products', '--config', onPostgresSource] },
      'mappings check': { args: () => ['mappings', 'check'], cwd: mkdtempSync(join(tmpdir(), 'shopsync-pipes-nomappings-')) },
      'mappings preview': { args: () => ['mappings', 'preview', join(dir, 'products.yaml'), '-i', join(dir, 'sample.csv')] },
      sandbox: { args: () => ['sandbox', '--port', '0', '--memory'], daemon: { ready: (stderr) => /sandbox listening/.test(stderr) } },
      demo: {
        args: () => ['demo', '--dir', (demoDir = fresh('demo')), '--port', '0', '--sandbox-port', '0', '--interval', '1'],
        daemon: { ready: () => linesIn(join(demoDir, 'demo.log'), /shopsync daemon started/) > 0, progress: () => linesIn(join(demoDir, 'demo.log'), /"msg":"run finished"/) },
      },
    };
    expect(Object.keys(cases).sort()).toEqual(leafCommands());
    expect((await runCli(['state', 'backup', join(dir, 'backup-for-restore.db')], { cwd: dir, env })).code).toBe(0);

    const problems: string[] = [];
    const check = async (name: string, c: Case): Promise<void> => {
      if (c.skip !== undefined) {
        console.warn(`*** SKIPPED: shopsync ${name} | head -1: ${c.skip} ***`);
        return;
      }
      const cwd = c.cwd ?? dir;
      const runs: [Reader, Ended][] = [];
      for (const reader of ['to the end', 'after the first line', 'before the first write'] as const) {
        // A daemon's output is never "read to the end".
        if (c.daemon !== undefined && reader === 'to the end') continue;
        runs.push([reader, await spawnCli(await c.args(), env, cwd, reader, c.daemon)]);
      }
      const expected = c.daemon !== undefined ? 0 : runs[0]![1].code;
      for (const [reader, r] of runs) {
        if (STACK.test(r.stderr)) problems.push(`${name}, reader gone ${reader}: a stack trace on stderr:\n${r.stderr.slice(0, 1500)}`);
        if (r.code !== expected) problems.push(`${name}, reader gone ${reader}: exit ${r.code ?? r.signal}, expected ${expected} (${c.daemon !== undefined ? 'stopped by SIGTERM' : 'as with the output read to the end'}); stderr:\n${r.stderr.slice(0, 1500)}`);
      }
      // The first line is there for the reader that took it.
      const taken = runs.find(([reader]) => reader === 'after the first line')![1];
      if (taken.firstLine === '') problems.push(`${name}: printed nothing on stdout, so the test proves nothing for it`);
    };
    // Commands run side by side (each waits mostly on its own process), except: those that take the products
    // pipeline's lane, one after another (two at once, one would exit 3: lock held), `dlq drop`, whose letter a
    // sync beside it would retry and remove first (the drop then exits 2: no such letter), and the `state` commands,
    // which replace the state file under the others, one after another at the end.
    const entries = Object.entries(cases);
    const LANE = new Set(['run', 'sync', 'backfill', 'reconcile', 'dlq retry', 'dlq drop']);
    const lane = entries.filter(([name]) => LANE.has(name));
    const free = entries.filter(([name]) => !LANE.has(name) && !name.startsWith('state '));
    const drain = async (queue: [string, Case][]) => {
      for (let e = queue.shift(); e; e = queue.shift()) await check(...e);
    };
    await Promise.all([drain(lane), drain(free), drain(free)]);
    for (const [name, c] of entries.filter(([n]) => n.startsWith('state '))) await check(name, c);
    expect(problems).toEqual([]);
  });

  it('also when stderr is closed too (`2>&1 | head -1`): the run goes to its end and the exit code is its own', async () => {
    const dir = tempDir();
    createErp(join(dir, 'erp.sqlite'), 40);
    const config = writeConfig(dir);
    const env = { ...shopEnv(sandbox), SHOPSYNC_CONFIG: config, LOG_LEVEL: 'debug' };
    const child = spawn(process.execPath, [BIN, 'sync', 'products'], { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    child.stderr.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code).toBe(0);
    // The sync went to its end: every record read and settled, the run recorded as succeeded (the first test may have created these SKUs already).
    const status = await runCli(['status', '--json'], { cwd: dir, env: { ...shopEnv(sandbox), SHOPSYNC_CONFIG: config } });
    expect(JSON.parse(status.stdout)).toMatchObject({ pipelines: [{ name: 'products', lastRun: { status: 'succeeded', counts: { read: 40, failed: 0 } } }] });
  });
});
