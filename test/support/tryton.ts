/**
 * A real Tryton 6.0 (Debian's packages) for the real-ERP tests (`npm run test:erp`).
 *
 * `requireTryton()` finds `trytond-admin` and proteus, else skips loudly (a failing test under
 * CI=true, as `requireService` does). `trytonDatabase()` gives a database of its own, cloned from a
 * template that `trytond-admin --all` and `-u party company product stock sale` made once
 * (minutes) and kept as `shopsync_tryton_template_<hash of trytond's version and the modules>` on
 * the machine's PostgreSQL, so later runs copy it in a second. Data is made only through Tryton:
 * `test/erp/tryton/tryton_data.py` (proteus) creates it and prints Tryton's own figures.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { test } from 'vitest';
import { SERVICES } from './services.js';
import { tempDir } from './tmp.js';

const run = promisify(execFile);
const DATA_SCRIPT = resolve(import.meta.dirname, '../erp/tryton/tryton_data.py');
/** The modules the tests activate (their dependencies come along: account, currency, country…). */
export const TRYTON_MODULES = ['party', 'company', 'product', 'stock', 'sale'] as const;
const PG = SERVICES.postgres;

/** What `requireTryton` found. */
export interface TrytonProbe {
  readonly available: boolean;
  /** trytond's version, e.g. `6.0.29`. */
  readonly version?: string;
  readonly reason?: string;
}

/** Find trytond-admin and proteus; skip loudly when missing, or register a failing test under CI=true. */
export async function requireTryton(): Promise<TrytonProbe> {
  let probe: TrytonProbe;
  try {
    if (!existsSync('/usr/bin/trytond-admin')) throw new Error('/usr/bin/trytond-admin is missing');
    const { stdout } = await run('/usr/bin/python3', ['-c', 'import trytond, proteus, stdnum, psycopg2; print(trytond.__version__)']);
    probe = { available: true, version: stdout.trim() };
  } catch (err) {
    probe = { available: false, reason: (err as Error).message.split('\n').slice(-2).join(' ').trim() };
  }
  if (probe.available) return probe;
  const message = `Tryton is not installed (${probe.reason})`;
  const fix = "apt-get install --no-install-recommends tryton-server tryton-server-postgresql tryton-modules-{party,company,product,stock,sale} tryton-proteus python3-stdnum python3-psycopg2, after preseeding tryton-server-postgresql/dbconfig-install false (.ci/run's install_tryton does both)";
  if (process.env.CI === 'true') {
    test('Tryton is installed (required under CI=true)', () => {
      throw new Error(`${message}. CI must provide it: ${fix}.`);
    });
  } else {
    console.warn(`\n*** SKIPPED: ${message}; the real-ERP tests did not run. Install it: ${fix}. ***\n`);
  }
  return probe;
}

/** One product as Tryton itself computes it (proteus). */
export interface TrytonProduct {
  readonly id: number;
  readonly code: string | null;
  readonly name: string;
  /** Decimal as text, e.g. `24.9000`. */
  readonly list_price: string;
  readonly ean: string | null;
  readonly active: boolean;
  /** `Product.quantity` inside `config.context(locations=[warehouse])`. */
  readonly quantity: number;
  readonly uom: string;
}

/** The actions of `tryton_data.py`: the setup, one change each, or only the figures. */
export type TrytonAction = 'setup' | 'price' | 'move' | 'new_product' | 'reuse' | 'resolve' | 'ean_removed' | 'ean_deleted' | 'code_changed' | 'coffee' | 'figures';

/** Tryton's figures after an action of `tryton_data.py`. */
export interface TrytonFigures {
  readonly warehouse: number;
  readonly company_currency: string;
  readonly products: readonly TrytonProduct[];
}

/** A Tryton database of one test file. */
export interface TrytonDatabase {
  readonly name: string;
  /** The trytond.conf written for it. */
  readonly conf: string;
  /** The `[web] listen` port of that conf (free when the conf was written). */
  readonly port: number;
  /** Run an action of `tryton_data.py` through proteus; it answers Tryton's figures afterwards. */
  data(action: TrytonAction): Promise<TrytonFigures>;
  /** Start `trytond` (the JSON-RPC server) on `port`; its handle's `close()` stops it. */
  startServer(): Promise<TrytonServer>;
  /** Drop the database (a server still running is stopped first). */
  close(): Promise<void>;
}

/** A running trytond serving the database over JSON-RPC. */
export interface TrytonServer {
  /** `http://127.0.0.1:<port>/<database>/`, where JSON-RPC calls are POSTed. */
  readonly url: string;
  /** One call with `Authorization: Session …` of the admin's login; an `error` member throws. */
  call(method: string, params: readonly unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

async function rpc(url: string, method: string, params: readonly unknown[], headers: Record<string, string> = {}): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ id: 1, method, params }) });
  // Tryton answers errors with HTTP 200 and an `error` member.
  const body = (await res.json()) as { result?: unknown; error?: unknown };
  if (!res.ok || body.error !== undefined) throw new Error(`trytond ${method}: HTTP ${res.status} ${JSON.stringify(body.error ?? body)}`);
  return body.result;
}

async function startServer(conf: string, name: string, port: number): Promise<TrytonServer> {
  const child = spawn('/usr/bin/trytond', ['-c', conf, '-d', name], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  const url = `http://${PG.host}:${port}/${name}/`;
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  // The login is the readiness probe: it answers once trytond listens and has loaded the database.
  let session = '';
  for (const started = Date.now(); ; ) {
    try {
      const [uid, key] = (await rpc(url, 'common.db.login', ['admin', { password: 'admin' }])) as [number, string];
      session = Buffer.from(`admin:${uid}:${key}`).toString('base64');
      break;
    } catch (err) {
      if (child.exitCode !== null || Date.now() - started > 60_000) {
        await close();
        throw new Error(`trytond did not answer on ${url}: ${(err as Error).message}\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return {
    url,
    call: (method, params) => rpc(url, method, params, { authorization: `Session ${session}` }),
    close,
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ host: PG.host, port: PG.port, user: PG.user, database: 'postgres' });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function databaseExists(c: pg.Client, name: string): Promise<boolean> {
  return (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
}

function writeConf(dir: string, port: number): string {
  const conf = join(dir, 'trytond.conf');
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(conf, `[database]\nuri = postgresql://${PG.user}@${PG.host}:${PG.port}/\npath = ${join(dir, 'data')}\n\n[web]\nlisten = ${PG.host}:${port}\n`);
  writeFileSync(join(dir, 'admin-password'), 'admin\n', { mode: 0o600 });
  return conf;
}

async function trytondAdmin(dir: string, conf: string, db: string, args: readonly string[]): Promise<void> {
  try {
    await run('/usr/bin/trytond-admin', ['-c', conf, '-d', db, ...args], { env: { ...process.env, TRYTONPASSFILE: join(dir, 'admin-password') }, maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const e = err as Error & { stdout?: string; stderr?: string };
    throw new Error(`trytond-admin ${args.join(' ')} on ${db} failed: ${e.message}\n${(e.stderr ?? '').slice(-4000)}`);
  }
}

/** The template's name: a new trytond version or module list makes a new template. */
export function templateName(version: string): string {
  const hash = createHash('sha256').update(`${version} ${TRYTON_MODULES.join(' ')}`).digest('hex').slice(0, 10);
  return `shopsync_tryton_template_${hash}`;
}

/**
 * Make the template unless it exists: a database of its own name is built and only renamed to the
 * template's when trytond-admin finished, so a half-made template is never used. An advisory lock
 * makes parallel test files wait for the one that builds it.
 */
async function ensureTemplate(version: string, log: (line: string) => void): Promise<string> {
  const template = templateName(version);
  const lock = new pg.Client({ host: PG.host, port: PG.port, user: PG.user, database: 'postgres' });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock(hashtext($1))', [template]);
    if (await databaseExists(lock, template)) return template;
    const building = `${template}_building`;
    const dir = tempDir('shopsync-tryton-template-');
    const conf = writeConf(dir, await freePort());
    await lock.query(`DROP DATABASE IF EXISTS ${building}`);
    await lock.query(`CREATE DATABASE ${building} ENCODING 'UTF8' TEMPLATE template0`);
    const started = Date.now();
    await trytondAdmin(dir, conf, building, ['--all', '--email', 'admin@example.com']);
    await trytondAdmin(dir, conf, building, ['-u', ...TRYTON_MODULES, '--activate-dependencies']);
    await lock.query(`ALTER DATABASE ${building} RENAME TO ${template}`);
    log(`[tryton] template ${template} made in ${Math.round((Date.now() - started) / 1000)} s (trytond ${version}: --all, then -u ${TRYTON_MODULES.join(' ')})`);
    return template;
  } finally {
    await lock.query('SELECT pg_advisory_unlock(hashtext($1))', [template]).catch(() => undefined);
    await lock.end();
  }
}

/** A fresh Tryton database (a copy of the template, made first when missing) with a trytond.conf of its own. */
export async function trytonDatabase(probe: TrytonProbe, log: (line: string) => void = (l) => console.log(l)): Promise<TrytonDatabase> {
  if (!probe.version) throw new Error('trytonDatabase needs an available Tryton (requireTryton)');
  const template = await ensureTemplate(probe.version, log);
  const name = `shopsync_tryton_${process.pid}_${Date.now().toString(36)}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
  const dir = tempDir('shopsync-tryton-');
  const port = await freePort();
  const conf = writeConf(dir, port);
  let server: TrytonServer | undefined;
  return {
    name,
    conf,
    port,
    async startServer() {
      server = await startServer(conf, name, port);
      return server;
    },
    async data(action) {
      try {
        const { stdout } = await run('/usr/bin/python3', [DATA_SCRIPT, conf, name, action], { maxBuffer: 64 * 1024 * 1024 });
        const last = stdout.trim().split('\n').at(-1) ?? '';
        return JSON.parse(last) as TrytonFigures;
      } catch (err) {
        const e = err as Error & { stderr?: string };
        throw new Error(`tryton_data.py ${action} on ${name} failed: ${e.message}\n${(e.stderr ?? '').slice(-4000)}`);
      }
    },
    async close() {
      await server?.close();
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
