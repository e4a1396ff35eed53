/**
 * The NOTIFY trigger function cannot be turned against the ERP's owner by another database user
 * (issue 42, finding 1), with two real PostgreSQL roles in a database of this file's own: a low
 * role with CREATE on `public` plants `public.pg_notify(text, name)` (the better match for
 * `TG_TABLE_NAME`, a `name`) and, separately, its own `public.shopsync_notify()` before the setup.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli } from '../../cli/support.js';
import { productsMapping } from '../../support/mappings.js';
import { requireService } from '../../support/services.js';
import { tempDir } from '../../support/tmp.js';
import { sleep } from '../../support/wait.js';

const postgres = await requireService('postgres');
const database = `shopsync_hijack_${process.pid}`;
const owner = `shopsync_erpowner_${process.pid}`;
const low = `shopsync_low_${process.pid}`;

let admin: pg.Client;
let dir: string;

const connect = async (user: string): Promise<pg.Client> => {
  const c = new pg.Client({ host: postgres.host, port: postgres.port, user, database });
  await c.connect();
  return c;
};
const as = async <T>(user: string, fn: (c: pg.Client) => Promise<T>): Promise<T> => {
  const c = await connect(user);
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
};

beforeAll(async () => {
  if (!postgres.available) return;
  await ensureBuilt();
  const server = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database });
  await server.connect();
  await server.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  for (const role of [owner, low]) await server.query(`DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE "${role}" LOGIN; END IF; END $$`);
  await server.query(`CREATE DATABASE "${database}"`);
  await server.end();
  admin = await connect(postgres.user);
  // PostgreSQL before 15 granted CREATE on public to everyone; many ERP databases still do.
  await admin.query(`GRANT CREATE ON SCHEMA public TO "${owner}", "${low}"`);
  await admin.query(`CREATE SCHEMA erp AUTHORIZATION "${owner}"`);
  await as(owner, async (c) => {
    await c.query('CREATE TABLE erp.artikel (sku TEXT PRIMARY KEY, qty INT NOT NULL, changed TIMESTAMPTZ NOT NULL DEFAULT now())');
    await c.query("INSERT INTO erp.artikel (sku, qty) VALUES ('A-1', 1)");
  });
  await as(low, async (c) => {
    // Whoever this runs as leaves its name here: the proof that the low role's code ran as the writer.
    await c.query('CREATE TABLE public.ran (who TEXT NOT NULL, what TEXT NOT NULL)');
    await c.query('GRANT INSERT ON public.ran TO PUBLIC');
  });
  dir = tempDir('shopsync-notify-hijack-');
  writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
  const at = `host: ${postgres.host}, port: ${postgres.port}, database: ${database}`;
  const source = (connection: string) => `source: { connection: ${connection}, query: "SELECT * FROM erp.artikel", cursor: changed, key: sku }`;
  writeFileSync(
    join(dir, 'shopsync.yaml'),
    `shop: { baseUrl: "http://127.0.0.1:9", token: "t" }
connections:
  erp: { kind: postgres, user: ${owner}, ${at}, schema: erp }
  erp_path: { kind: postgres, user: ${owner}, ${at} }
  dba: { kind: postgres, user: ${postgres.user}, ${at} }
pipelines:
  - { name: products, direction: push, resource: products, mapping: p.yaml, ${source('erp')}, trigger: { notify: true } }
  - { name: by-owner, direction: push, resource: products, mapping: p.yaml, ${source('erp_path')}, trigger: { notify: true } }
  - { name: by-dba, direction: push, resource: products, mapping: p.yaml, ${source('dba')}, trigger: { notify: true } }
state: { path: state.db }
`,
  );
}, 300_000);

afterAll(async () => {
  if (!postgres.available) return;
  await admin.end();
  const server = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database });
  await server.connect();
  await server.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  for (const role of [owner, low]) await server.query(`DROP ROLE IF EXISTS "${role}"`);
  await server.end();
});

beforeEach(async () => {
  if (!postgres.available) return;
  await admin.query('DELETE FROM public.ran');
  await admin.query('DROP FUNCTION IF EXISTS public.pg_notify(text, name)');
  await admin.query('DROP FUNCTION IF EXISTS public.shopsync_notify() CASCADE');
  await admin.query('DROP FUNCTION IF EXISTS erp.shopsync_notify() CASCADE');
});

const cli = (...args: string[]) => runCli(['erp', 'notify-setup', ...args], { cwd: dir });
const ran = async () => (await admin.query<{ who: string; what: string }>('SELECT who, what FROM public.ran')).rows;
const triggersOnArtikel = async () =>
  (await admin.query<{ fn: string }>("SELECT t.tgfoid::regprocedure::text AS fn FROM pg_trigger t WHERE t.tgrelid = 'erp.artikel'::regclass AND NOT t.tgisinternal")).rows.map((r) => r.fn);
const functionOwner = async (schema: string) =>
  (await admin.query<{ owner: string }>("SELECT pg_get_userbyid(p.proowner) AS owner FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proname = 'shopsync_notify'", [schema])).rows[0]?.owner;

/** The low role's `shopsync_notify()`, planted before the setup: it records who ran it. */
const plantFunction = () =>
  as(low, (c) => c.query("CREATE FUNCTION public.shopsync_notify() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO public.ran (who, what) VALUES (current_user, 'shopsync_notify'); RETURN NULL; END $$"));

describe.skipIf(!postgres.available)('the NOTIFY trigger function against the ERP\'s other database users', { timeout: 120_000 }, () => {
  it("does not run a pg_notify(text, name) another role planted in public when the ERP's owner writes the table, and still notifies", async () => {
    await as(low, (c) => c.query("CREATE FUNCTION public.pg_notify(text, name) RETURNS void LANGUAGE sql AS $$ INSERT INTO public.ran (who, what) VALUES (current_user, 'pg_notify') $$"));
    const r = await cli('products', '--table', 'artikel', '--apply');
    expect(r.code, r.stderr).toBe(0);

    const listener = await connect(postgres.user);
    const heard: string[] = [];
    listener.on('notification', (m) => heard.push(`${m.channel}:${m.payload ?? ''}`));
    await listener.query('LISTEN shopsync_products');
    await as(owner, (c) => c.query('UPDATE erp.artikel SET qty = qty + 1'));
    await sleep(300);
    await listener.end();

    expect(await ran()).toEqual([]);
    expect(heard).toEqual(['shopsync_products:artikel']);
    const drop = await cli('products', '--table', 'artikel', '--drop', '--apply');
    expect(drop.code, drop.stderr).toBe(0);
  });

  it('--apply as the tables\' owner refuses a shopsync_notify() another role created first, naming its owner and the fix', async () => {
    await plantFunction();
    const r = await cli('by-owner', '--table', 'erp.artikel', '--apply');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('[NOTIFY_SETUP_FOREIGN_FUNCTION]');
    expect(r.stderr).toContain(`owned by "${low}", not by "${owner}"`);
    expect(r.stderr).toContain('DROP FUNCTION "public"."shopsync_notify"();');
    expect(await triggersOnArtikel()).toEqual([]);
    expect(await functionOwner('public')).toBe(low);
  });

  it('--apply as a superuser (who could replace it) refuses it too: the planted function keeps its owner and gets no trigger', async () => {
    await plantFunction();
    const r = await cli('by-dba', '--table', 'erp.artikel', '--apply');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('[NOTIFY_SETUP_FOREIGN_FUNCTION]');
    expect(r.stderr).toContain(`owned by "${low}"`);
    expect(r.stdout).not.toMatch(/replaced/);
    expect(await triggersOnArtikel()).toEqual([]);
    await as(owner, (c) => c.query('UPDATE erp.artikel SET qty = qty + 1'));
    expect(await ran()).toEqual([]);
  });

  it('the printed SQL, run with psql by a superuser, stops at the same foreign function before changing anything', async () => {
    await plantFunction();
    const printed = await cli('by-dba', '--table', 'erp.artikel');
    expect(printed.code).toBe(0);
    await expect(admin.query(printed.stdout)).rejects.toThrow(new RegExp(`shopsync: (public\\.)?shopsync_notify\\(\\) exists and is owned by ${low}, not by ${postgres.user}`));
    await admin.query('ROLLBACK').catch(() => undefined);
    expect(await triggersOnArtikel()).toEqual([]);
    expect(await functionOwner('public')).toBe(low);
  });

  it('an installed function has a fixed search_path, belongs to the installer and is what the trigger names, schema and all', async () => {
    const r = await cli('by-owner', '--table', 'erp.artikel', '--apply');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('function "public"."shopsync_notify"(): created');
    const [fn] = (await admin.query<{ config: string[]; owner: string }>("SELECT proconfig AS config, pg_get_userbyid(proowner) AS owner FROM pg_proc WHERE oid = 'public.shopsync_notify()'::regprocedure")).rows;
    expect(fn).toEqual({ config: ['search_path=pg_catalog, pg_temp'], owner });
    expect(await triggersOnArtikel()).toEqual(['shopsync_notify()']);
    // CREATE on public went to two roles, not to PUBLIC: no note about it.
    expect(r.stderr).not.toContain('CREATE granted to PUBLIC');
    const drop = await cli('by-owner', '--table', 'erp.artikel', '--drop', '--apply');
    expect(drop.code, drop.stderr).toBe(0);
  });
});
