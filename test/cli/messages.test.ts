/**
 * Every command's failure paths, through the compiled CLI (issue 31): a wrong config (a YAML
 * error, an unknown key), an unreachable server (a closed port), a refused login (MariaDB, wrong
 * password), a missing object (a table not in the PostgreSQL schema, the MariaDB database, the
 * SQLite file) and bad input. Each message must say WHAT (the object's name), WHERE (file:line,
 * or host, database and schema) and HOW TO FIX it, and no message may name a variable the config
 * does not read. Every spawned process is also held to printing no runtime warning (support.ts).
 */
import { createServer } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireService } from '../support/services.js';
import { useSandbox } from '../support/sandbox.js';
import { ensureBuilt, runCli, tempDir, type CliResult } from './support.js';

const pgService = await requireService('postgres');
const myService = await requireService('mariadb');
const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });
const tag = `${process.pid}_${Math.floor(Math.random() * 1e6)}`;
const schema = `msg_${tag}`;
const myUser = `msg_${tag}`;
const PASSWORD = 'right-pass-4711';

const MAPPING = `name: msg-products
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: sku
shop_key: products_model
fields:
  products_model: sku
  products_price: { from: price, type: decimal, locale: point }
  languages.de.products_name: name
`;

/** The config's lines; tests replace one by its text. */
function configLines(pgPort: number): string[] {
  return [
    'shop:',
    '  baseUrl: ${SHOP_URL}',
    '  token: ${SHOP_TOKEN}',
    'connections:',
    '  maria:',
    '    kind: mysql',
    `    host: ${myService.host}`,
    `    port: ${myService.port}`,
    `    user: ${myUser}`,
    '    password: ${ERP_DB_PASSWORD}',
    `    database: ${myService.database}`,
    '  warehouse:',
    '    kind: postgres',
    `    host: ${pgService.host}`,
    `    port: ${pgPort}`,
    `    user: ${pgService.user}`,
    `    database: ${pgService.database}`,
    `    schema: ${schema}`,
    '  lite:',
    '    kind: sqlite',
    '    path: erp.sqlite',
    'pipelines:',
    '  - name: maria-products',
    '    direction: push',
    '    resource: products',
    '    mapping: m.yaml',
    '    source:',
    '      connection: maria',
    '      query: SELECT * FROM artikel',
    '      cursor: updated_at',
    '      key: sku',
    '  - name: pg-products',
    '    direction: push',
    '    resource: products',
    '    mapping: m.yaml',
    '    source:',
    '      connection: warehouse',
    '      query: SELECT * FROM artikel',
    '      cursor: updated_at',
    '      key: sku',
    '  - name: lite-products',
    '    direction: push',
    '    resource: products',
    '    mapping: m.yaml',
    '    source: { connection: lite, query: SELECT * FROM artikel, cursor: updated_at, key: sku }',
    'state:',
    '  path: state/shopsync.db',
    'dashboard:',
    '  port: 0',
  ];
}

/** A folder with the mapping, the SQLite ERP and a config (with `edit` applied); returns the folder, the config file and its lines. */
function project(edit: (lines: string[]) => string[] = (l) => l, pgPort = pgService.port): { dir: string; file: string; lines: string[]; lineOf: (text: string) => number } {
  const dir = tempDir('shopsync-messages-');
  writeFileSync(join(dir, 'm.yaml'), MAPPING);
  const db = new Database(join(dir, 'erp.sqlite'));
  db.exec('CREATE TABLE artikle (sku TEXT PRIMARY KEY, name TEXT, price TEXT, updated_at TEXT); CREATE TABLE kunden (id INTEGER)');
  db.close();
  const lines = edit(configLines(pgPort));
  const file = join(dir, 'shopsync.yaml');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return {
    dir,
    file,
    lines,
    lineOf(text) {
      const i = lines.indexOf(text);
      if (i < 0) throw new Error(`the config has no line ${JSON.stringify(text)}`);
      return i + 1;
    },
  };
}

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  SHOP_URL: sandbox.url,
  SHOP_TOKEN: sandbox.token,
  ERP_DB_PASSWORD: PASSWORD,
  // The fallbacks a config that sets every field must never mention.
  MYSQL_PASSWORD: undefined,
  MYSQL_USER: undefined,
  PGHOST: undefined,
  PGPORT: undefined,
  PGPASSWORD: undefined,
  ...extra,
});

async function cli(args: readonly string[], dir: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<CliResult & { out: string }> {
  const r = await runCli([...args, '--log-level', 'silent'], { cwd: dir, env: env(extraEnv), timeoutMs: 30_000 });
  return { ...r, out: r.stdout + r.stderr };
}

/** A port nothing listens on (bound, read, closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The config-reading commands, as a user would type them. */
const CONFIG_COMMANDS: readonly (readonly string[])[] = [
  ['sync', 'maria-products'],
  ['doctor'],
  ['status'],
  ['dlq', 'list'],
  ['mappings', 'check', '--source'],
  ['reconcile', 'pg-products'],
  ['backfill', 'pg-products', '--from', '2026-01-01', '--to', '2026-02-01'],
];

describe.skipIf(!pgService.available || !myService.available)('what, where and how to fix, for every command', { timeout: 120_000, concurrent: true }, () => {
  let admin: pg.Client;
  let maria: mysql.Connection;
  beforeAll(async () => {
    admin = new pg.Client({ host: pgService.host, port: pgService.port, user: pgService.user, database: pgService.database });
    await admin.connect();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    await admin.query(`CREATE TABLE "${schema}".artikle (sku TEXT PRIMARY KEY, name TEXT, price TEXT, updated_at TEXT)`);
    await admin.query(`CREATE TABLE "${schema}".kunden (id INT)`);
    maria = await mysql.createConnection({ host: myService.host, port: myService.port, user: myService.user, database: myService.database });
    for (const host of ['%', 'localhost']) {
      await maria.query(`CREATE USER '${myUser}'@'${host}' IDENTIFIED BY '${PASSWORD}'`);
      await maria.query(`GRANT SELECT ON \`${myService.database}\`.* TO '${myUser}'@'${host}'`);
    }
  });
  afterAll(async () => {
    await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.end();
    for (const host of ['%', 'localhost']) await maria?.query(`DROP USER IF EXISTS '${myUser}'@'${host}'`);
    await maria?.end();
  });

  describe('a wrong config', () => {
    it.each(CONFIG_COMMANDS)('a YAML indentation error: %s %s names the line that is wrong, shows it and says how to indent it', async (...args) => {
      const p = project((l) => l.map((line) => (line === '    password: ${ERP_DB_PASSWORD}' ? '      password: ${ERP_DB_PASSWORD}' : line)));
      const r = await cli(args, p.dir);
      const line = p.lineOf('      password: ${ERP_DB_PASSWORD}');
      expect(r.code, r.out).toBe(2);
      // What and where: the key, the file, its line and column; the line above it, which YAML blamed.
      expect(r.stderr).toContain(`${p.file}:${line}:7: YAML syntax: \`password:\` is indented deeper than \`user:\` on line ${line - 1}`);
      expect(r.stderr).toContain(`${String(line).padStart(6)} |       password: \${ERP_DB_PASSWORD}\n       |       ^`);
      // How to fix.
      expect(r.stderr).toContain('Fix: indent `password:` to column 5, like `user:`');
    });

    it.each(CONFIG_COMMANDS)('an unknown key: %s %s names the key on its line and the key it meant', async (...args) => {
      const p = project((l) => l.map((line) => (line === '      cursor: updated_at' ? '      cursr: updated_at' : line)));
      const r = await cli(args, p.dir);
      expect(r.code, r.out).toBe(2);
      const line = p.lineOf('      cursr: updated_at');
      expect(r.stderr).toContain(`${p.file}:${line}: pipelines[0].source: Unrecognized key: "cursr"; did you mean "cursor"?`);
      // One mistake, one problem each: not also "cursor: missing".
      expect(r.stderr).not.toContain('expected string, received undefined');
    });
  });

  describe('an unreachable server (a closed port)', () => {
    it.each([[['sync', 'pg-products']], [['doctor']], [['mappings', 'check', '--source']]])('%j names the connection, its line, host and port, and the settings to check', async (args) => {
      const port = await closedPort();
      const p = project(undefined, port);
      const r = await cli(args, p.dir);
      expect(r.code, r.out).not.toBe(0);
      expect(r.out).toContain(`PostgreSQL unreachable at 127.0.0.1:${port} (database ${pgService.database}, user ${pgService.user}; connection warehouse, ${p.file}:${p.lineOf('  warehouse:')})`);
      expect(r.out).toContain(`Check that the server runs at 127.0.0.1:${port} and that host 127.0.0.1 (line ${p.lineOf('  warehouse:') + 2}) and port ${port} (line ${p.lineOf(`    port: ${port}`)}) are right.`);
      // The connection sets host and port: PGHOST/PGPORT play no part and are not named.
      expect(r.out).not.toMatch(/PGHOST|PGPORT/);
    });

    it('status names the state server and says what to check', async () => {
      const port = await closedPort();
      const p = project((l) => [...l.slice(0, l.indexOf('state:')), 'state:', '  kind: postgres', `  url: postgres://postgres@127.0.0.1:${port}/test`, ...l.slice(l.indexOf('dashboard:'))]);
      const r = await cli(['status'], p.dir);
      expect(r.code, r.out).toBe(2);
      expect(r.stderr).toContain(`[STATE_UNREACHABLE] the state's PostgreSQL at 127.0.0.1:${port} cannot be reached`);
      expect(r.stderr).toContain(`check state.url (${p.file}:${p.lineOf(`  url: postgres://postgres@127.0.0.1:${port}/test`)})`);
      expect(r.stderr).not.toContain('STATE_DATABASE_URL');
    });
  });

  describe('a refused login (MariaDB, wrong password)', () => {
    it.each([[['sync', 'maria-products']], [['doctor']]])('%j names the connection, the user, and the variable the password came from', async (args) => {
      const p = project();
      const r = await cli(args, p.dir, { ERP_DB_PASSWORD: 'wrong-pass' });
      expect(r.code, r.out).toBe(1);
      expect(r.out).toContain(`MariaDB/MySQL refused the login at 127.0.0.1:${myService.port} (database ${myService.database}, user ${myUser}; connection maria, ${p.file}:${p.lineOf('  maria:')})`);
      expect(r.out).toContain(`Check the password from ERP_DB_PASSWORD (password: \${ERP_DB_PASSWORD}, line ${p.lineOf('    password: ${ERP_DB_PASSWORD}')}) and user ${myUser} (line ${p.lineOf(`    user: ${myUser}`)})`);
      expect(r.out).not.toContain('MYSQL_');
      expect(r.out).not.toContain('wrong-pass');
    });

    it('names MYSQL_PASSWORD only when the connection sets no password', async () => {
      const p = project((l) => l.filter((line) => line !== '    password: ${ERP_DB_PASSWORD}'));
      const r = await cli(['sync', 'maria-products'], p.dir, { MYSQL_PASSWORD: 'wrong-pass' });
      expect(r.code, r.out).toBe(1);
      expect(r.out).toContain('Check the password from MYSQL_PASSWORD (the connection sets no password)');
    });
  });

  describe('a missing table', () => {
    it.each([[['sync', 'pg-products']], [['doctor']]])('PostgreSQL, %j: names the schema searched, the tables there, the nearest name and schema:', async (args) => {
      const p = project();
      const r = await cli(args, p.dir);
      expect(r.code, r.out).toBe(1);
      expect(r.out).toContain('relation "artikel" does not exist (42P01)');
      expect(r.out).toContain(`Table artikel is not in schema ${schema} (set by \`schema:\` in connection warehouse, line ${p.lineOf(`    schema: ${schema}`)}). Tables there: artikle, kunden. Did you mean artikle?`);
      const place = escape(`(pipelines[1].source, ${p.file}:${p.lineOf('    source:') + 9})`);
      // Another test file's schema may hold an artikel right now: then it is named, and the schema change points there.
      expect(r.out).toMatch(
        new RegExp(`Fix the table name in the query ${place}, or change ${escape(`\`schema:\` (line ${p.lineOf(`    schema: ${schema}`)})`)} to the schema that holds it\\.|A table artikel exists in schema [\\w, ]+: change .*Otherwise fix the table name in the query ${place}\\.`),
      );
    });

    it('PostgreSQL without schema: says the search path was searched and how to set schema:', async () => {
      const p = project((l) => l.filter((line) => line !== `    schema: ${schema}`).map((line) => line.replace('FROM artikel', 'FROM artikle')));
      const r = await cli(['sync', 'pg-products'], p.dir);
      expect(r.code, r.out).toBe(1);
      expect(r.out).toContain(`Table artikle is not in schema public (the server's search path: connection warehouse (${p.file}:${p.lineOf('  warehouse:')}) sets no \`schema:\`).`);
      // Other tests' schemas may hold an artikle too: ours is among those named.
      expect(r.out).toMatch(new RegExp(`It holds no tables\\. A table artikle exists in schema [\\w, ]*\\b${schema}\\b[\\w, ]*: set \`schema: \\w+\` in connection warehouse \\(${p.file}:${p.lineOf('  warehouse:')}\\)`));
      expect(r.out).toContain(`Otherwise fix the table name in the query (pipelines[1].source, ${p.file}:`);
    });

    it('PostgreSQL, init --db-schema: names the schema and --db-schema', async () => {
      const dir = tempDir('shopsync-messages-init-');
      const r = await runCli(['init', '--yes', '--shop-url', sandbox.url, '--shop-token', sandbox.token, '--db-url', `postgres://${pgService.user}@${pgService.host}:${pgService.port}/${pgService.database}`, '--db-schema', schema, '--table', 'artikel'], { cwd: dir, env: env() });
      const out = r.stdout + r.stderr;
      expect(r.code, out).toBe(1);
      expect(out).toContain(`PostgreSQL query failed at 127.0.0.1:${pgService.port} (database ${pgService.database}, user ${pgService.user}; connection erp, init's options)`);
      expect(out).toContain(`Table artikel is not in schema ${schema} (set by --db-schema). Tables there: artikle, kunden. Did you mean artikle?`);
      // Another test file's (or a benchmark's) schema may hold an artikel right now: then it is named instead of the placeholder.
      expect(out).toMatch(/or pass --db-schema <schema>\.|A table artikel exists in schema \w+(, \w+)*: pass --db-schema \w+/);
    });

    it('MariaDB: names the database searched, its tables and database:', async () => {
      const p = project();
      const r = await cli(['sync', 'maria-products'], p.dir, { ERP_DB_PASSWORD: PASSWORD });
      expect(r.code, r.out).toBe(1);
      // The database is shared with other test files: it may hold tables of theirs right now, or none.
      expect(r.out).toMatch(
        new RegExp(`${escape(`Table '${myService.database}.artikel' doesn't exist (ER_NO_SUCH_TABLE). Table artikel is not in database ${myService.database} (set by \`database:\` in connection maria, line ${p.lineOf(`    database: ${myService.database}`)}).`)} (Tables there:|It holds no tables\\.)`),
      );
      expect(r.out).toContain(`or change \`database:\` (line ${p.lineOf(`    database: ${myService.database}`)}) to the database that holds it.`);
    });

    it('SQLite: names the file, its tables and the nearest name', async () => {
      const p = project();
      const r = await cli(['sync', 'lite-products'], p.dir);
      expect(r.code, r.out).toBe(1);
      expect(r.out).toContain(`SQLite query failed on ${join(p.dir, 'erp.sqlite')} (connection lite, ${p.file}:${p.lineOf('  lite:')}): no such table: artikel (SQLITE_ERROR).`);
      expect(r.out).toContain(`Table artikel is not in SQLite file ${join(p.dir, 'erp.sqlite')} (\`path:\` of connection lite, line ${p.lineOf('    path: erp.sqlite')}). Tables there: artikle, kunden. Did you mean artikle? Fix the table name in the query (pipelines[2].source, ${p.file}:`);
    });
  });

  describe('bad input', () => {
    it.each([[['sync', 'pg-prodcts']], [['dlq', 'list', '--pipeline', 'pg-prodcts']], [['reconcile', 'pg-prodcts']]])('%j names the pipeline, the config and the nearest pipeline', async (args) => {
      const p = project();
      const r = await cli(args, p.dir);
      expect(r.code, r.out).toBe(2);
      expect(r.stderr).toContain(`no pipeline named "pg-prodcts" in ${p.file}; known: maria-products, pg-products, lite-products`);
      expect(r.stderr).toContain('did you mean "pg-products"?');
    });

    it('mappings check names a mapping file that cannot be read, and says where it was looked for', async () => {
      const p = project();
      const r = await cli(['mappings', 'check', 'mappings/prodcts.yaml'], p.dir);
      expect(r.code, r.out).toBe(1);
      expect(r.out).toContain(`${join(p.dir, 'mappings/prodcts.yaml')}: cannot read the mapping file`);
      expect(r.out).toContain('check the path');
    });
  });
});

/** A literal text as a regular expression. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
