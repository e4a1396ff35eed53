/**
 * `shopsync erp notify-setup` through the compiled CLI against a real PostgreSQL: printing changes
 * nothing, `--apply` installs statement-level triggers that notify once per statement with the
 * table's name, runs again safely, `--drop` removes them, and the refusals say what to do.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli } from '../../cli/support.js';
import { productsMapping } from '../../support/mappings.js';
import { requireService } from '../../support/services.js';
import { tempDir } from '../../support/tmp.js';
import { sleep } from '../../support/wait.js';

const postgres = await requireService('postgres');
const schema = `notify_setup_${process.pid}`;
const role = `shopsync_nosetup_${process.pid}`;

let admin: pg.Client;
let dir: string;

beforeAll(async () => {
  if (!postgres.available) return;
  await ensureBuilt();
  admin = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await admin.query(`CREATE TABLE "${schema}".artikel (sku TEXT PRIMARY KEY, qty INT NOT NULL, changed TIMESTAMPTZ NOT NULL DEFAULT now())`);
  await admin.query(`CREATE TABLE "${schema}".lager (sku TEXT PRIMARY KEY, qty INT NOT NULL)`);
  await admin.query(`INSERT INTO "${schema}".artikel (sku, qty) VALUES ('A-1', 1), ('A-2', 2), ('A-3', 3)`);
  await admin.query(`DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE "${role}" LOGIN; END IF; END $$`);
  await admin.query(`GRANT USAGE ON SCHEMA "${schema}" TO "${role}"`);
  await admin.query(`GRANT SELECT ON ALL TABLES IN SCHEMA "${schema}" TO "${role}"`);
  dir = tempDir('shopsync-notify-setup-');
  writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
  const server = `host: ${postgres.host}, port: ${postgres.port}, database: ${postgres.database}, schema: ${schema}`;
  const source = 'source: { connection: %s, query: "SELECT a.*, l.qty AS stock FROM artikel a JOIN lager l ON l.sku = a.sku", cursor: changed, key: sku }';
  writeFileSync(
    join(dir, 'shopsync.yaml'),
    `shop: { baseUrl: "http://127.0.0.1:9", token: "t" }
connections:
  erp: { kind: postgres, user: ${postgres.user}, ${server} }
  clerk: { kind: postgres, user: ${role}, ${server} }
  lite: { kind: sqlite, path: erp.sqlite }
pipelines:
  - { name: products, direction: push, resource: products, mapping: p.yaml, ${source.replace('%s', 'erp')}, trigger: { notify: true } }
  - { name: clerk-products, direction: push, resource: products, mapping: p.yaml, ${source.replace('%s', 'clerk')} }
  - { name: scheduled, direction: push, resource: products, mapping: p.yaml, ${source.replace('%s', 'erp')}, schedule: "*/5 * * * *", trigger: { notify: true } }
  - { name: lite, direction: push, resource: products, mapping: p.yaml, ${source.replace('%s', 'lite')}, trigger: { notify: true } }
state: { path: state.db }
`,
  );
}, 300_000);

afterAll(async () => {
  if (!postgres.available) return;
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.query(`DROP OWNED BY "${role}"`).catch(() => undefined);
  await admin.query(`DROP ROLE IF EXISTS "${role}"`);
  await admin.end();
});

const cli = (...args: string[]) => runCli(['erp', 'notify-setup', ...args], { cwd: dir });

/** shopsync's triggers on the schema's tables: name, table, and whether each fires per row. */
async function installed(): Promise<{ name: string; table: string; perRow: boolean; events: string[] }[]> {
  const r = await admin.query<{ name: string; table: string; tgtype: number }>(
    `SELECT t.tgname AS name, c.relname AS table, t.tgtype FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND NOT t.tgisinternal ORDER BY c.relname`,
    [schema],
  );
  // tgtype bits: 1 row-level, 4 insert, 8 delete, 16 update.
  return r.rows.map((t) => ({ name: t.name, table: t.table, perRow: (t.tgtype & 1) === 1, events: ['INSERT', 'DELETE', 'UPDATE'].filter((_, i) => (t.tgtype & (4 << i)) !== 0) }));
}

const functionExists = async () => (await admin.query(`SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proname = 'shopsync_notify'`, [schema])).rows.length === 1;

describe.skipIf(!postgres.available)('shopsync erp notify-setup', { timeout: 120_000 }, () => {
  it('prints the function and one statement-level trigger per table, and changes nothing', async () => {
    const r = await cli('products', '--table', 'artikel,lager');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`CREATE OR REPLACE FUNCTION "${schema}"."shopsync_notify"() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp`);
    expect(r.stdout).toContain('PERFORM pg_catalog.pg_notify(TG_ARGV[0], TG_TABLE_NAME::text);');
    expect(r.stdout).toContain("BEGIN;\nSET LOCAL lock_timeout = '5000ms';");
    expect(r.stdout).toContain("-- Run it as the tables' owner (or a temporary setup role that is a member of the owner role), never as shopsync's sync user");
    expect(r.stdout).toContain(`DROP TRIGGER IF EXISTS "shopsync_products" ON "${schema}"."lager";`);
    expect(r.stdout).toContain(`CREATE TRIGGER "shopsync_products" AFTER INSERT OR UPDATE OR DELETE ON "${schema}"."artikel" FOR EACH STATEMENT EXECUTE FUNCTION "${schema}"."shopsync_notify"('shopsync_products');`);
    expect(r.stdout).not.toMatch(/FOR EACH ROW/);
    expect(r.stderr).toMatch(/nothing changed/);
    expect(await installed()).toEqual([]);
    expect(await functionExists()).toBe(false);
  });

  it('--apply installs statement-level triggers that notify once per statement with the table name, and may run again', async () => {
    const r = await cli('products', '--table', 'artikel,lager', '--apply');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('function');
    expect(r.stdout).toMatch(/trigger shopsync_products on "[^"]+"\."artikel": created/);
    expect(await installed()).toEqual([
      { name: 'shopsync_products', table: 'artikel', perRow: false, events: ['INSERT', 'DELETE', 'UPDATE'] },
      { name: 'shopsync_products', table: 'lager', perRow: false, events: ['INSERT', 'DELETE', 'UPDATE'] },
    ]);

    const listener = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (m) => heard.push(`${m.channel}:${m.payload ?? ''}`));
    await listener.query('LISTEN shopsync_products');
    // One UPDATE of three rows: one notification, never three.
    await admin.query(`UPDATE "${schema}".artikel SET qty = qty + 1`);
    await admin.query(`INSERT INTO "${schema}".lager (sku, qty) VALUES ('A-1', 5)`);
    await sleep(500);
    await listener.end();
    expect(heard).toEqual(['shopsync_products:artikel', 'shopsync_products:lager']);

    const again = await cli('products', '--table', 'artikel,lager', '--apply');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/function "[^"]+"\."shopsync_notify"\(\): replaced/);
    expect(again.stdout).toMatch(/on "[^"]+"\."lager": replaced/);
    expect(await installed()).toHaveLength(2);
  });

  it('--drop prints the removal, and with --apply removes the triggers and then the unused function', async () => {
    await cli('products', '--table', 'artikel,lager', '--apply');
    const printed = await cli('products', '--table', 'artikel,lager', '--drop');
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain(`DROP TRIGGER IF EXISTS "shopsync_products" ON "${schema}"."artikel";`);
    expect(await installed()).toHaveLength(2);

    const r = await cli('products', '--table', 'artikel,lager', '--drop', '--apply');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/on "[^"]+"\."artikel": dropped/);
    expect(r.stdout).toMatch(/shopsync_notify"\(\): dropped/);
    expect(await installed()).toEqual([]);
    expect(await functionExists()).toBe(false);
    // products has no schedule: nothing else wakes it now.
    expect(r.stderr).toContain('pipeline "products" still has trigger.notify and no schedule: without the triggers nothing wakes it but a reconnect of its listener; give it a schedule or remove trigger.notify');
  });

  it('--drop --apply of a scheduled pipeline that keeps trigger.notify says it still runs on its schedule, not "give it a schedule"', async () => {
    await cli('scheduled', '--table', 'artikel', '--apply');
    const r = await cli('scheduled', '--table', 'artikel', '--drop', '--apply');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('pipeline "scheduled" still has trigger.notify: it still runs on its schedule */5 * * * *; notify without triggers only wakes it after a reconnect of its listener: remove trigger.notify');
    expect(r.stderr).not.toContain('give it a schedule');
    expect(await installed()).toEqual([]);
  });

  it('asks for --table for a query source, naming the tables its query reads', async () => {
    const r = await cli('products');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('--table artikel,lager');
    expect(await installed()).toEqual([]);
  });

  it('refuses a SQLite source, naming poll: instead', async () => {
    const r = await cli('lite', '--table', 'artikel');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/connection "lite" is sqlite, which cannot NOTIFY\. Use `poll:` for MariaDB\/MySQL and SQLite/);
  });

  it("tells a user without privileges (42501) to run the SQL as the tables' owner, and never to grant the sync user TRIGGER or CREATE", async () => {
    const r = await cli('clerk-products', '--table', 'artikel', '--apply');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('[NOTIFY_SETUP_PRIVILEGES]');
    expect(r.stderr).toContain(`Run the printed SQL as "${postgres.user}" (the tables' owner), or as a temporary setup role that is a member of it`);
    expect(r.stderr).toContain(`psql -U ${postgres.user} -f notify.sql`);
    expect(r.stderr).toContain("Do not grant TRIGGER on the tables or CREATE on the schema to shopsync's sync user");
    expect(r.stderr).not.toMatch(/GRANT (TRIGGER|CREATE) ON/);
    expect(await installed()).toEqual([]);
    const help = await runCli(['erp', 'notify-setup', '--help'], { cwd: dir });
    expect(help.stdout).toContain('never as shopsync\'s sync user');
    expect(help.stdout).not.toMatch(/needs CREATE on the schema and the TRIGGER privilege/);
  });

  it('gives up after --lock-timeout while an open ERP transaction holds a table lock, names that session, and lets the writers queued behind it go on', async () => {
    const holder = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database, application_name: 'erp-month-end-report' });
    const writer = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database });
    await holder.connect();
    await writer.connect();
    try {
      await holder.query('BEGIN');
      // An ERP transaction left open after a write: its ROW EXCLUSIVE lock lets other writers in, but not CREATE TRIGGER's SHARE ROW EXCLUSIVE, and the writers queue behind the DDL.
      await holder.query(`UPDATE "${schema}".artikel SET qty = qty WHERE sku = 'A-2'`);
      const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
      const started = Date.now();
      const apply = cli('products', '--table', 'artikel', '--apply', '--lock-timeout', '1500ms');
      // Once the DDL waits for the lock, a writer comes.
      let waiting = false;
      for (let i = 0; i < 100 && !waiting; i++) {
        await sleep(100);
        waiting = (await admin.query("SELECT 1 FROM pg_locks WHERE NOT granted AND relation = $1::regclass", [`"${schema}".artikel`])).rows.length > 0;
      }
      expect(waiting).toBe(true);
      const wrote = writer.query(`UPDATE "${schema}".artikel SET qty = qty WHERE sku = 'A-1'`).then(() => Date.now());
      const result = await Promise.race([apply, sleep(20_000).then(() => 'still waiting' as const)]);
      expect(result).not.toBe('still waiting');
      const r = result as Awaited<typeof apply>;
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('[NOTIFY_SETUP_LOCK_TIMEOUT]');
      expect(r.stderr).toContain('waited 1500 ms for a table lock and gave up');
      expect(r.stderr).toContain(`pid ${holderPid} (user ${postgres.user}, application_name "erp-month-end-report", state idle in transaction`);
      expect(r.stderr).toContain('RowExclusiveLock on artikel');
      expect(r.stderr).toContain('--lock-timeout 30s');
      // The writer went on while the report still holds its lock: it waited for the DDL's timeout, not for the report.
      const wroteAt = await Promise.race([wrote, sleep(5_000).then(() => undefined)]);
      expect(wroteAt).toBeDefined();
      expect((wroteAt as number) - started).toBeLessThan(15_000);
      expect(await installed()).toEqual([]);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
      await writer.end();
    }
  });
});
