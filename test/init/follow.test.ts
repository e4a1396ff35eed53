/**
 * The follow question of `shopsync init` (issue 44, must-do 3): with the orders pull, init proposes
 * `follow:` on it, asks on a terminal (its statuses with the shop's default ids proposed), takes
 * `--follow yes|no`, and without either writes it and says so. Every config it writes loads with
 * the pipeline schema's own `follow:` block, and the files pass `mappings check` and the dry run
 * against the sandbox.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/index.js';
import { runInit, type AnswersInput, type FollowAnswer, type FollowQuestion } from '../../src/init/index.js';
import { askFollow } from '../../src/init/prompts.js';
import { silentLogger } from '../../src/log.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { tempDir } from '../pipeline/support.js';
import { ensureBuilt, runCli } from '../cli/support.js';

let sandbox: SandboxHandle;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
});
afterAll(async () => {
  await sandbox.close();
});

function erpFolder(): string {
  const dir = tempDir('shopsync-init-follow-');
  const db = new Database(join(dir, 'erp.sqlite'));
  db.exec('CREATE TABLE artikel (artnr TEXT PRIMARY KEY, bezeichnung TEXT NOT NULL, preis TEXT NOT NULL, geaendert TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO artikel VALUES (?, ?, ?, ?)');
  for (let i = 1; i <= 3; i++) insert.run(`A-${i}`, `Tisch ${i}`, `${10 + i}.50`, `2026-01-0${i} 10:00:00`);
  db.close();
  return dir;
}

function answers(dir: string, extra: Partial<AnswersInput> = {}): AnswersInput {
  return { shop: { url: sandbox.url, auth: { kind: 'token', token: sandbox.token } }, source: { kind: 'sqlite', path: join(dir, 'erp.sqlite'), table: 'artikel' }, resource: 'products', name: 'artikel', dir, ordersPull: true, ...extra };
}

async function init(dir: string, extra: Partial<AnswersInput> = {}, askFollowHook?: (q: FollowQuestion) => Promise<FollowAnswer>) {
  const lines: string[] = [];
  const result = await runInit(answers(dir, extra), { say: (l) => lines.push(l), logger: silentLogger, env: {}, cwd: dir }, askFollowHook ? { askFollow: askFollowHook } : {});
  const configText = readFileSync(result.configFile, 'utf8');
  const config = parse(configText) as { pipelines: { name: string; follow?: Record<string, unknown> }[] };
  const loaded = await loadConfig(result.configFile, { env: {} });
  return { result, lines, configText, comment: configText.replace(/\n# /g, ' '), written: config.pipelines.find((p) => p.name === 'orders-to-erp')!, loaded: loaded.config.pipelines.find((p) => p.name === 'orders-to-erp')! };
}

describe('init proposes following orders after checkout', () => {
  it('without a terminal or --follow, writes follow: with the default statuses on the orders pull and says it did not ask', async () => {
    const dir = erpFolder();
    const r = await init(dir);
    expect(r.written.follow).toEqual({ every: '1h', until: [4, 5], cancelled: [4], returned: [5], maxAgeDays: 14 });
    // The config loads: the pipeline schema parsed the block (every in milliseconds).
    expect(r.loaded.follow).toEqual({ every: 3_600_000, until: [4, 5], cancelled: [4], returned: [5], maxAgeDays: 14 });
    expect(r.lines).toContain('follow: yes (until 4, 5, cancelled 4, returned 5, 14 days, every 1h) (not asked: the default; --follow no leaves it out)');
    expect(r.comment).toContain('init did not ask (no terminal, or --yes) and turned it on; --follow no leaves it out.');
    expect(r.comment).toContain("the shop's default status ids (its API lists none, so init could not read yours)");
    expect(r.comment).toContain('Cost: one request per page of 250 orders');
    expect(r.result.verification?.checkOk).toBe(true);
    expect(r.result.ok).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });

  it('asks once on a terminal, proposing the default ids, and writes the statuses answered', async () => {
    const dir = erpFolder();
    const asked: FollowQuestion[] = [];
    const r = await init(dir, { verify: false }, async (q) => {
      asked.push(q);
      return { follow: true, statuses: { until: [3, 6], cancelled: [6], returned: [] } };
    });
    expect(asked).toEqual([{ defaults: { until: [4, 5], cancelled: [4], returned: [5] }, fromShop: false }]);
    expect(r.loaded.follow).toMatchObject({ until: [3, 6], cancelled: [6], returned: [], maxAgeDays: 14 });
    expect(r.comment).not.toContain('init did not ask');
    expect(r.lines).toContain('follow: yes (until 3, 6, cancelled 6, returned none, 14 days, every 1h)');
    rmSync(dir, { recursive: true, force: true });
  });

  it('with --follow no, writes no follow:, asks nothing, and the comment says what the pull then misses and how to turn it on', async () => {
    const dir = erpFolder();
    const r = await init(dir, { follow: 'no', verify: false }, async () => {
      throw new Error('asked although --follow was given');
    });
    expect(r.written.follow).toBeUndefined();
    expect(r.loaded.follow).toBeUndefined();
    expect(r.lines).toContain('follow: no (the orders pull sees new orders only)');
    expect(r.comment).toContain('Follow: off, as answered');
    expect(r.comment).toContain('follow: { until: [4, 5], cancelled: [4], returned: [5], maxAgeDays: 14 }');
    rmSync(dir, { recursive: true, force: true });
  });

  it('with --follow yes, follows without asking', async () => {
    const dir = erpFolder();
    const r = await init(dir, { follow: 'yes', verify: false }, async () => {
      throw new Error('asked although --follow was given');
    });
    expect(r.loaded.follow).toMatchObject({ until: [4, 5], cancelled: [4] });
    expect(r.comment).not.toContain('init did not ask');
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses --follow without the orders pull, and a cancelled status that is not final, before writing anything', async () => {
    const dir = erpFolder();
    await expect(runInit(answers(dir, { ordersPull: false, follow: 'yes' }), { say: () => undefined, logger: silentLogger, env: {}, cwd: dir })).rejects.toThrow(/follow: --follow says whether the orders pull follows orders after checkout: give --orders-pull too/);
    await expect(runInit(answers(dir, { follow: 'maybe' as never }), { say: () => undefined, logger: silentLogger, env: {}, cwd: dir })).rejects.toThrow(/follow: expected yes .* or no/);
    await expect(runInit(answers(dir, { verify: false }), { say: () => undefined, logger: silentLogger, env: {}, cwd: dir }, { askFollow: async () => ({ follow: true, statuses: { until: [5], cancelled: [4], returned: [] } }) })).rejects.toThrow(/cancelled: status 4 means cancelled but is not final/);
    expect(() => readFileSync(join(dir, 'shopsync.yaml'))).toThrow();
    rmSync(dir, { recursive: true, force: true });
  });

  it('asks nothing about following without the orders pull', async () => {
    const dir = erpFolder();
    const lines: string[] = [];
    const result = await runInit(answers(dir, { ordersPull: false, verify: false }), { say: (l) => lines.push(l), logger: silentLogger, env: {}, cwd: dir }, { askFollow: async () => { throw new Error('asked about following without an orders pull'); } });
    expect(readFileSync(result.configFile, 'utf8')).not.toContain('follow');
    expect(lines.some((l) => l.startsWith('follow:'))).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });
});

async function answer(keys: readonly string[]): Promise<{ answer: FollowAnswer; shown: string }> {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (c: Buffer) => (shown += c.toString()));
  const asked = askFollow({ defaults: { until: [4, 5], cancelled: [4], returned: [5] }, fromShop: false }, { input, output });
  for (const k of keys) {
    await new Promise((r) => setTimeout(r, 30));
    input.write(k);
  }
  return { answer: await asked, shown };
}

describe('the follow prompt', () => {
  it('follows on Enter and takes the proposed statuses on Enter each', async () => {
    const r = await answer(['\r', '\r', '\r', '\r']);
    expect(r.answer).toEqual({ follow: true, statuses: { until: [4, 5], cancelled: [4], returned: [5] } });
    expect(r.shown).toContain('Follow orders after checkout');
  });

  it('does not follow on n, and asks no statuses then', async () => {
    expect((await answer(['n', '\r'])).answer).toEqual({ follow: false });
  });
});

describe('shopsync init --follow (spawned)', () => {
  const flags = (dir: string) => ['init', '--yes', '--shop-url', sandbox.url, '--shop-token', sandbox.token, '--sqlite', join(dir, 'erp.sqlite'), '--table', 'artikel', '--no-verify', '--dir', dir];

  it('--follow no writes the orders pull without follow:, --follow yes with it, and --follow without --orders-pull is a usage error (exit 2)', { timeout: 300_000 }, async () => {
    await ensureBuilt();
    const off = erpFolder();
    const no = await runCli([...flags(off), '--orders-pull', '--follow', 'no'], { cwd: off });
    expect(no.code, no.stdout + no.stderr).toBe(0);
    expect(no.stdout).toContain('follow: no (the orders pull sees new orders only)');
    const offConfig = parse(readFileSync(join(off, 'shopsync.yaml'), 'utf8')) as { pipelines: { name: string; follow?: unknown }[] };
    expect(offConfig.pipelines.find((p) => p.name === 'orders-to-erp')).toBeDefined();
    expect(offConfig.pipelines.find((p) => p.name === 'orders-to-erp')?.follow).toBeUndefined();

    const on = erpFolder();
    const yes = await runCli([...flags(on), '--orders-pull', '--follow', 'yes'], { cwd: on });
    expect(yes.code, yes.stdout + yes.stderr).toBe(0);
    const onConfig = parse(readFileSync(join(on, 'shopsync.yaml'), 'utf8')) as { pipelines: { name: string; follow?: unknown }[] };
    expect(onConfig.pipelines.find((p) => p.name === 'orders-to-erp')?.follow).toEqual({ every: '1h', until: [4, 5], cancelled: [4], returned: [5], maxAgeDays: 14 });
    const check = await runCli(['config', 'check', '--config', join(on, 'shopsync.yaml')], { cwd: on, env: { SHOP_TOKEN: sandbox.token } });
    expect(check.code, check.stdout + check.stderr).toBe(0);

    const alone = erpFolder();
    const refused = await runCli([...flags(alone), '--follow', 'yes'], { cwd: alone });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--follow says whether the orders pull follows orders after checkout: give --orders-pull too');
    const unknown = await runCli([...flags(alone), '--orders-pull', '--follow', 'maybe'], { cwd: alone });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--follow.*maybe.*yes, no|Allowed choices are yes, no/);
    for (const d of [off, on, alone]) rmSync(d, { recursive: true, force: true });
  });
});
