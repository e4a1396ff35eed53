/**
 * The image merchants deploy, built from the real Dockerfile and run as a merchant would: the CLI
 * in the image, `shopsync doctor`, and the daemon with a mounted config and the state in a host
 * folder, syncing a SQLite ERP into the sandbox on the host. Slow (minutes): it runs only through
 * `npm run test:container` (SHOPSYNC_CONTAINER_TEST=1); `.ci/run` installs buildah and runs it.
 *
 * No Docker engine here: buildah builds on a local stand-in for node:20-bookworm-slim
 * (scripts/container-base.sh) and runs containers with chroot isolation on the host's network
 * (test/container/buildah.ts). What that cannot show: PID 1 semantics (no PID namespace) and a
 * private network (the dashboard's port is the host's).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { removeDir, tempDir } from '../support/tmp.js';
import { sleep, until } from '../support/wait.js';
import { changedPaths, Container, containerToolsMissing, imageConfig, mainProcess, snapshot, uidsOf, type Mount, type Started } from './buildah.js';

const ROOT = join(import.meta.dirname, '..', '..');
const IMAGE = 'localhost/shopsync:test';
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
/** More than a run reads before it checkpoints (1000 rows), so a SIGTERM stops a run half done. */
const ARTICLES = 2500;
/** The daemon's default `daemon.shutdownGraceMs`, which this test's config keeps. */
const GRACE_MS = 30_000;
/** Each check's time limit: buildah starts a container in seconds, and a sync of the articles takes some more. */
const STEP_MS = 180_000;

const requested = process.env.SHOPSYNC_CONTAINER_TEST === '1';
const missing = requested ? containerToolsMissing() : undefined;

/** One line of the test's report, on the test run's own output. */
function report(line: string): void {
  console.log(`[container] ${line}`);
}

/** A TCP port nobody listens on now. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Whether 127.0.0.1:port can be bound (the containers share the host's network). */
async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

if (!requested) {
  describe.skip('the container image: run `npm run test:container` to build and run it (minutes, needs buildah)', () => {
    it('is built and run by npm run test:container', () => {});
  });
} else if (missing && process.env.CI === 'true') {
  describe('the container image', () => {
    it('has buildah and mmdebstrap, which .ci/run installs', () => {
      throw new Error(`cannot build the image: ${missing}. .ci/run installs them with apt-get (its log: /tmp/ci-apt.log)`);
    });
  });
} else if (missing) {
  console.warn(`\n[container] SKIPPED: the image is not built or run here: ${missing}\n`);
  describe.skip(`the container image (SKIPPED: ${missing})`, () => {
    it('is built and run where buildah is', () => {});
  });
} else {
  describe('the container image, built from the Dockerfile and run as a merchant would', () => {
    let dir: string;
    let sandbox: SandboxHandle;
    let healthPort = 8080;
    let mounts: Mount[];
    let env: Record<string, string>;
    const containers: Container[] = [];
    const running: Started[] = [];

    const erpPath = () => join(dir, 'erp', 'erp.db');
    const statePath = () => join(dir, 'state', 'shopsync.db');
    const container = (name: string): Container => {
      const c = Container.create(IMAGE, `shopsync-test-${name}`);
      containers.push(c);
      return c;
    };
    /** Read the state on the host folder the container writes (read-only, closed at once). */
    const inState = <T>(read: (db: Database.Database) => T): T => {
      const db = new Database(statePath(), { readonly: true, fileMustExist: true });
      try {
        return read(db);
      } finally {
        db.close();
      }
    };
    const runs = () => inState((db) => db.prepare('SELECT id, status, created, updated, unchanged, requests FROM runs ORDER BY id').all() as { id: number; status: string; created: number; updated: number; unchanged: number; requests: number }[]);
    const shopProducts = async (): Promise<Map<string, number>> => {
      const out = new Map<string, number>();
      for (let offset = 0; ; offset += 250) {
        const res = await fetch(`${sandbox.url}/export/json/products?limit=250&offset=${offset}`, { headers: { authorization: `Bearer ${sandbox.token}` } });
        const body = (await res.json()) as { data: { products_model: string; products_price: number | string }[] };
        for (const p of body.data) out.set(p.products_model, Number(p.products_price));
        if (body.data.length < 250) return out;
      }
    };
    /** Start the daemon in a fresh container and wait until it says it started. */
    const startDaemon = async (c: Container): Promise<Started> => {
      const d = c.start({ mounts, env });
      running.push(d);
      await until(() => d.output().includes('shopsync daemon started') || d.child.exitCode !== null, 60_000);
      expect(d.output(), d.output()).toContain('shopsync daemon started');
      return d;
    };
    /** What `docker stop` does: SIGTERM to the main process; how long it took and its exit code. */
    const stop = async (d: Started): Promise<{ ms: number; code: number | string }> => {
      const pid = mainProcess(d);
      expect(pid, 'the daemon process').toBeDefined();
      const t0 = Date.now();
      process.kill(pid!, 'SIGTERM');
      const code = await Promise.race([d.exited, sleep(GRACE_MS + 10_000).then(() => 'still running' as const)]);
      return { ms: Date.now() - t0, code };
    };

    beforeAll(async () => {
      const t0 = Date.now();
      const out = execFileSync('bash', [join(ROOT, 'scripts', 'container-build.sh'), IMAGE], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
      for (const line of out.trim().split('\n')) report(line);
      report(`base and image ready in ${Math.round((Date.now() - t0) / 1000)} s`);

      dir = tempDir('shopsync-container-');
      chmodSync(dir, 0o755); // the container's user (uid 1000) must reach the mounted folders
      mkdirSync(join(dir, 'erp'));
      mkdirSync(join(dir, 'state'));
      // As docs/operations.md says: a host folder for the state belongs to the image's user.
      chownSync(join(dir, 'state'), 1000, 1000);
      const erp = new Database(erpPath());
      erp.exec('CREATE TABLE artikel (ARTNR TEXT PRIMARY KEY, Bezeichnung TEXT NOT NULL, VK_Netto TEXT NOT NULL, Geaendert TEXT NOT NULL)');
      const insert = erp.prepare('INSERT INTO artikel VALUES (?, ?, ?, ?)');
      for (let i = 1; i <= ARTICLES; i++) insert.run(`C-${String(i).padStart(4, '0')}`, `Artikel ${i}`, `${i},50`, '2026-01-01 00:00:00');
      erp.close();

      sandbox = await startSandbox({ port: 0, dbPath: ':memory:', seed: 'empty' });
      // The containers share the host's network: the dashboard's default port may be taken here.
      if (!(await portIsFree(8080))) healthPort = await freePort();
      writeFileSync(
        join(dir, 'shopsync.yaml'),
        [
          'shop:',
          '  baseUrl: ${SHOP_URL}',
          '  token: ${SHOP_TOKEN}',
          '  concurrency: 1                 # one request at a time: a SIGTERM lands mid-run',
          'connections:',
          '  erp: { kind: sqlite, path: /app/erp/erp.db }',
          ...(healthPort === 8080 ? [] : [`dashboard: { port: ${healthPort} }`]),
          'pipelines:',
          '  - name: products',
          '    direction: push',
          '    resource: products',
          '    mapping: mappings/products.yaml   # the shipped mapping, in the image',
          '    source:',
          '      connection: erp',
          '      query: SELECT ARTNR, Bezeichnung, VK_Netto, Geaendert FROM artikel',
          '      cursor: Geaendert',
          '      key: ARTNR',
          '    schedule: "*/2 * * * * *"',
          '',
        ].join('\n'),
      );
      mounts = [
        { host: join(dir, 'shopsync.yaml'), at: '/app/shopsync.yaml', readOnly: true },
        { host: join(dir, 'state'), at: '/app/state' },
        { host: join(dir, 'erp'), at: '/app/erp', readOnly: true },
      ];
      env = {
        SHOP_URL: sandbox.url,
        SHOP_TOKEN: sandbox.token,
        ...(healthPort === 8080 ? {} : { SHOPSYNC_HEALTH_URL: `http://127.0.0.1:${healthPort}/healthz` }),
      };
      if (healthPort !== 8080) report(`port 8080 is taken on this host (shared network): dashboard.port ${healthPort} and SHOPSYNC_HEALTH_URL set to match`);
    }, 30 * 60_000);

    afterAll(async () => {
      for (const d of running) if (d.child.exitCode === null) d.child.kill('SIGKILL');
      for (const c of containers) c.remove();
      await sandbox?.close();
      if (dir) removeDir(dir);
    });

    it('is configured as the Dockerfile says: user node, /app, state volume, HEALTHCHECK, CMD shopsync run', () => {
      const config = imageConfig(IMAGE);
      expect(config.User).toBe('node');
      expect(config.WorkingDir).toBe('/app');
      expect(Object.keys(config.Volumes ?? {})).toEqual(['/app/state']);
      expect(config.Cmd).toEqual(['shopsync', 'run']);
      expect(config.Healthcheck?.Test[0]).toBe('CMD');
      expect(config.Env).toContain('SHOPSYNC_HEALTH_URL=http://127.0.0.1:8080/healthz');
      report(`config: user ${config.User}, workdir ${config.WorkingDir}, volume /app/state, entrypoint ${JSON.stringify(config.Entrypoint)}, cmd ${JSON.stringify(config.Cmd)}, healthcheck every ${config.Healthcheck!.Interval / 1e9} s`);
    }, STEP_MS);

    it('prints its version and has the files the CLI points to', async () => {
      const c = container('cli');
      const ran = await c.run({ cmd: ['shopsync', '--version'] });
      expect(ran.stdout.trim()).toBe(VERSION);
      report(`shopsync --version: ${ran.stdout.trim()}`);
      const ls = await c.exec(['sh', '-c', 'ls -d /app/schemas/shopsync.schema.json /app/schemas/mapping.schema.json /app/mappings/products.yaml /app/docs/operations.md /app/shopsync.example.yaml && ls /app/dist/src/state/sqlite/migrations | wc -l']);
      expect(ls.status, ls.stderr).toBe(0);
      expect(Number(ls.stdout.trim().split('\n').at(-1))).toBeGreaterThan(0);
      report(`files: schemas, shipped mappings, docs/*.md, example config and ${ls.stdout.trim().split('\n').at(-1)} SQLite migrations are in /app`);
    }, STEP_MS);

    it('passes shopsync doctor with the mounted config, ERP and state folder', async () => {
      const ran = await container('doctor').run({ mounts, env, cmd: ['shopsync', 'doctor'] });
      expect(ran.status, ran.stdout + ran.stderr).toBe(0);
      const lines = ran.stdout.trim().split('\n');
      for (const line of lines) report(`doctor: ${line}`);
      expect(lines.at(-1)).toMatch(/^all \d+ checks passed$/);
    }, STEP_MS);

    describe('the daemon (shopsync run, the image CMD)', () => {
      let first: Container;
      let daemon: Started;
      let before: Map<string, string>;
      let stoppedRun = 0;

      it('syncs the ERP into the shop, runs as uid 1000 and answers the HEALTHCHECK', async () => {
        first = container('daemon-1');
        // What the runtime itself puts into the container's file system (the mount points of the
        // bind mounts, as docker creates them too) is there before the snapshot.
        await first.exec(['true'], { mounts });
        before = snapshot(first.mount());
        daemon = await startDaemon(first);
        await until(() => runs().some((r) => r.status === 'succeeded' && r.created > 0), 120_000, 250);
        expect((await shopProducts()).size).toBe(ARTICLES);
        const synced = runs().find((r) => r.created > 0);
        expect(synced).toMatchObject({ status: 'succeeded', created: ARTICLES });
        report(`shopsync run: run ${synced!.id} ${synced!.status}, ${synced!.created} products created in the sandbox in ${synced!.requests} requests`);

        const pid = mainProcess(daemon)!;
        expect(uidsOf(pid)).toEqual([1000, 1000, 1000, 1000]);
        report(`process: node (pid ${pid} on the host) runs as uid ${uidsOf(pid).join('/')}`);

        const hc = first.config.Healthcheck!.Test;
        const probe = await container('healthcheck').exec(hc.slice(1), { env });
        expect(probe.status, probe.stderr).toBe(0);
        const body = (await (await fetch(`http://127.0.0.1:${healthPort}/healthz`)).json()) as { status: string };
        expect(body.status).toBe('ok');
        report(`HEALTHCHECK (${hc.slice(1, 3).join(' ')} … at ${env.SHOPSYNC_HEALTH_URL ?? 'the image default http://127.0.0.1:8080/healthz'}): exit ${probe.status}; /healthz ${JSON.stringify(body)}`);
      }, STEP_MS);

      it('ends on SIGTERM within the grace period, exit 0, with the run in flight stopped at its next checkpoint', async () => {
        // A slow shop and a change of every price: the run is mid-way when the signal comes.
        await fetch(`${sandbox.url}/sandbox/faults`, { method: 'PUT', headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ latency_ms: 400 }) });
        const erp = new Database(erpPath());
        erp.exec(`UPDATE artikel SET VK_Netto = REPLACE(VK_Netto, ',50', ',90'), Geaendert = '2026-02-01 00:00:00'`);
        erp.close();
        await until(() => inState((db) => (db.prepare(`SELECT count(*) AS n FROM events WHERE outcome = 'updated'`).get() as { n: number }).n) >= 100, 60_000, 100);
        const { ms, code } = await stop(daemon);
        await fetch(`${sandbox.url}/sandbox/faults`, { method: 'PUT', headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ latency_ms: 0 }) });
        expect(code).toBe(0);
        expect(ms).toBeLessThan(GRACE_MS);
        const last = runs().at(-1)!;
        stoppedRun = last.id;
        expect(last.status).toBe('aborted');
        expect(last.updated).toBeGreaterThan(0);
        expect(last.updated).toBeLessThan(ARTICLES);
        expect(runs().filter((r) => r.status === 'running')).toEqual([]);
        const stopping = daemon.output().split('\n').filter((l) => /"msg":"(stopping|shopsync daemon stopped)/.test(l));
        expect(stopping).toHaveLength(2);
        report(`SIGTERM: exit ${code} after ${ms} ms (grace ${GRACE_MS} ms); the run in flight (run ${last.id}) checkpointed and ended ${last.status} with ${last.updated} of ${ARTICLES} updated`);
      }, STEP_MS);

      it('writes nothing in the container but /app/state', () => {
        const changed = changedPaths(before, snapshot(first.mount()));
        expect(changed).toEqual([]);
        report('file system: nothing changed outside /app/state (a host folder) while the daemon ran');
      }, STEP_MS);

      it('continues after a restart on the same state volume without resending anything', async () => {
        const again = await startDaemon(container('daemon-2'));
        // Every price now ends in ,90 (C-0007: 7,50 became 7,90).
        await until(async () => [...(await shopProducts())].every(([model, price]) => price === Number(`${Number(model.slice(2))}.9`)), 120_000, 500);
        // A run after the catch-up: nothing changed, nothing sent.
        const caughtUp = runs().at(-1)!.id;
        await until(() => runs().some((r) => r.id > caughtUp && r.status === 'succeeded'), 30_000, 250);
        const idle = runs().find((r) => r.id > caughtUp && r.status === 'succeeded')!;
        expect(idle).toMatchObject({ created: 0, updated: 0, requests: 0 });
        const sends = inState((db) => db.prepare(`SELECT erp_key, outcome, count(*) AS n FROM events WHERE outcome IN ('created', 'updated') GROUP BY erp_key, outcome HAVING n > 1`).all());
        expect(sends, 'records sent twice').toEqual([]);
        const totals = inState((db) => db.prepare(`SELECT outcome, count(*) AS n FROM events WHERE outcome IN ('created', 'updated') GROUP BY outcome ORDER BY outcome`).all() as { outcome: string; n: number }[]);
        expect(totals).toEqual([
          { outcome: 'created', n: ARTICLES },
          { outcome: 'updated', n: ARTICLES },
        ]);
        expect(runs().filter((r) => r.status === 'crashed')).toEqual([]);
        const afterRestart = runs().filter((r) => r.id > stoppedRun).reduce((n, r) => n + r.updated, 0);
        report(`restart on the same volume: ${afterRestart} updated after the restart, ${ARTICLES - afterRestart} before the SIGTERM; every article created once and updated once over all runs (${totals.map((t) => `${t.n} ${t.outcome}`).join(', ')}); run ${idle.id} after the catch-up sent ${idle.requests} requests`);
        const { ms, code } = await stop(again);
        expect(code).toBe(0);
        report(`second SIGTERM: exit ${code} after ${ms} ms`);
      }, STEP_MS);
    });
  });
}
