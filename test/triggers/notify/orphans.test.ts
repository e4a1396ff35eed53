/**
 * `shopsync doctor` names the NOTIFY triggers that no pipeline of the config listens to any more
 * (its pipeline deleted, or `trigger.notify` removed), with the statement that removes each: such a
 * trigger still makes every write to its table take NOTIFY's commit lock. Real PostgreSQL.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../src/config/index.js';
import { postgresConnectionSchema } from '../../../src/erp/connection.js';
import { runDoctor } from '../../../src/ops/doctor.js';
import { applyNotifySetupTo } from '../../../src/triggers/notify/index.js';
import { productsMapping } from '../../support/mappings.js';
import { requireService } from '../../support/services.js';
import { tempDir } from '../../support/tmp.js';

const postgres = await requireService('postgres');
const schema = `notify_orphans_${process.pid}`;
let admin: pg.Client;

beforeAll(async () => {
  if (!postgres.available) return;
  admin = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await admin.query(`CREATE TABLE "${schema}".artikel (sku TEXT PRIMARY KEY, changed TIMESTAMPTZ NOT NULL DEFAULT now())`);
  const connection = postgresConnectionSchema.parse({ kind: 'postgres', host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database, schema });
  await applyNotifySetupTo(connection, { channel: 'shopsync_kept', tables: ['artikel'] });
  await applyNotifySetupTo(connection, { channel: 'shopsync_gone', tables: ['artikel'] });
});

afterAll(async () => {
  if (!postgres.available) return;
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

describe.skipIf(!postgres.available)('doctor: NOTIFY triggers without a pipeline', { timeout: 60_000 }, () => {
  it('fails on a shopsync trigger whose channel no pipeline listens on, naming the DROP TRIGGER, and passes the one that is listened to', async () => {
    const dir = tempDir('shopsync-notify-orphans-');
    writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
    const text = `shop: { baseUrl: "http://127.0.0.1:9", token: "t" }
connections: { erp: { kind: postgres, host: ${postgres.host}, port: ${postgres.port}, user: ${postgres.user}, database: ${postgres.database}, schema: ${schema} } }
pipelines:
  - { name: kept, direction: push, resource: products, mapping: p.yaml, source: { connection: erp, query: "SELECT * FROM artikel", cursor: changed, key: sku }, trigger: { notify: true } }
state: { path: state.db }
`;
    const checks = await runDoctor(parseConfigText(text, join(dir, 'shopsync.yaml'), { env: {} }));
    const mine = checks.filter((c) => c.name.startsWith('erp erp: NOTIFY trigger') && c.name.includes(`"${schema}"`));
    expect(mine.map((c) => ({ name: c.name, ok: c.ok }))).toEqual([{ name: `erp erp: NOTIFY trigger shopsync_gone on "${schema}"."artikel"`, ok: false }]);
    expect(mine[0]?.detail).toContain('no pipeline of this config listens on its channel shopsync_gone');
    expect(mine[0]?.detail).toContain(`DROP TRIGGER "shopsync_gone" ON "${schema}"."artikel";`);
  });
});
