/**
 * What SQL connector errors say (issue 31 items 3 and 4), without a server: each setting named as
 * the config sets it (the field and its line, the `${VAR}` it came from, a PGHOST/MYSQL_PASSWORD-style fallback
 * only when the connection leaves the field unset), and a missing table with the schema searched,
 * the tables there, the nearest name and the setting that chooses the schema.
 */
import { describe, expect, it } from 'vitest';
import { connectionOrigin, parseConfigText } from '../../src/config/index.js';
import { identifierAt, missingTableHint } from '../../src/erp/sql/missing.js';
import { MYSQL_DEFAULTS } from '../../src/erp/sql/mysql.js';
import { POSTGRES_DEFAULTS } from '../../src/erp/sql/postgres.js';
import { describeServer, describeSetting, resolveServer } from '../../src/erp/sql/settings.js';

const FILE = '/etc/shopsync/shopsync.yaml';

function loaded(connection: string, env: NodeJS.ProcessEnv = {}) {
  const text = `shop:\n  baseUrl: https://shop.example.com/api\n  token: \${SHOP_TOKEN}\nconnections:\n  erp:\n${connection}`;
  return parseConfigText(text, FILE, { env: { SHOP_TOKEN: 'tok-123456', ...env } });
}

describe('the settings a connection used, as its errors name them', () => {
  it('names the variable a ${VAR} password came from, with its line, and the user as written', () => {
    const l = loaded('    kind: mysql\n    host: db.example\n    user: shop\n    password: ${ERP_DB_PASSWORD}\n    database: erp\n', { ERP_DB_PASSWORD: 'x' });
    const origin = connectionOrigin(l, 'erp');
    const used = resolveServer(l.config.connections.erp as never, { MYSQL_PASSWORD: 'other' }, MYSQL_DEFAULTS);
    expect(describeServer(used, origin)).toBe(`db.example:3306 (database erp, user shop; connection erp, ${FILE}:5)`);
    expect(describeSetting('password', used, origin)).toBe('the password from ERP_DB_PASSWORD (password: ${ERP_DB_PASSWORD}, line 9)');
    expect(describeSetting('user', used, origin)).toBe('user shop (line 8)');
    expect(describeSetting('port', used, origin)).toBe('port 3306 (the default: the connection sets no port and MYSQL_PORT is unset)');
  });

  it('names a NAME_FILE variable, a ${file:…} and a default the config fell back to', () => {
    const l = loaded('    kind: postgres\n    host: ${ERP_DB_HOST:-127.0.0.1}\n    password: ${ERP_DB_PASSWORD}\n', { ERP_DB_PASSWORD_FILE: '/dev/null' });
    const origin = connectionOrigin(l, 'erp');
    const used = resolveServer(l.config.connections.erp as never, {}, POSTGRES_DEFAULTS);
    expect(describeSetting('password', used, origin)).toBe('the password from ERP_DB_PASSWORD_FILE (password: ${ERP_DB_PASSWORD}, line 8)');
    expect(describeSetting('host', used, origin)).toBe('host 127.0.0.1 (the default of host: ${ERP_DB_HOST:-127.0.0.1}, line 7: ERP_DB_HOST unset)');
  });

  it('names PG*/MYSQL_* only for the fields the connection leaves unset', () => {
    const l = loaded('    kind: postgres\n    host: db.example\n');
    const origin = connectionOrigin(l, 'erp');
    const used = resolveServer(l.config.connections.erp as never, { PGHOST: 'elsewhere', PGPORT: '6543', PGPASSWORD: 'pw' }, POSTGRES_DEFAULTS);
    expect(describeSetting('host', used, origin)).toBe('host db.example (line 7)');
    expect(describeSetting('port', used, origin)).toBe('port 6543 from PGPORT (the connection sets no port)');
    expect(describeSetting('password', used, origin)).toBe('the password from PGPASSWORD (the connection sets no password)');
    const none = resolveServer(l.config.connections.erp as never, {}, POSTGRES_DEFAULTS);
    expect(describeSetting('password', none, origin)).toBe('no password (the connection sets none and PGPASSWORD is unset: add `password: ${…}` to connection erp)');
  });

  it('reads host, port, database and user out of a url, and names the variable of MYSQL_URL', () => {
    const used = resolveServer({}, { MYSQL_URL: 'mysql://shop:pw@db.example:3307/erp' }, MYSQL_DEFAULTS);
    expect(describeServer(used, undefined)).toBe('db.example:3307 (database erp, user shop)');
    expect(describeSetting('password', used, undefined)).toBe('the password in url (from MYSQL_URL)');
  });
});

describe('a missing table', () => {
  const tables = ['erp.artikle', 'erp.kunden', 'public.t', 'archiv.artikel'];

  it('names the schema searched and what set it, lists its tables, the nearest name and the schema holding that name', () => {
    const origin = connectionOrigin(loaded('    kind: postgres\n    schema: erp\n'), 'erp', { pipeline: 0, side: 'source' });
    expect(missingTableHint({ kind: 'postgres', table: 'artikel', searched: ['erp'], asked: 'erp', tables, origin })).toBe(
      `Table artikel is not in schema erp (set by \`schema:\` in connection erp, line 7). Tables there: artikle, kunden. Did you mean artikle? A table artikel exists in schema archiv: change \`schema:\` (line 7) to archiv, or write archiv.artikel in the query. Otherwise fix the table name in the query (pipelines[0].source).`,
    );
  });

  it('says which schema of the search path does not exist', () => {
    const origin = connectionOrigin(loaded('    kind: postgres\n    schema: erpp\n'), 'erp');
    expect(missingTableHint({ kind: 'postgres', table: 'artikle', searched: [], asked: 'erpp', tables, origin })).toContain(
      'Table artikle is not in the search path (erpp; none of its schemas exists). Schema erpp of the search path does not exist; the schemas with tables are erp, public, archiv.',
    );
  });

  it('points init at --db-schema and --table', () => {
    expect(missingTableHint({ kind: 'postgres', table: 'artikel', searched: ['public'], tables, origin: { name: 'erp', init: true } })).toContain(
      'A table artikel exists in schema archiv: pass --db-schema archiv, or give --table archiv.artikel. Otherwise fix the table name (--table, --query).',
    );
    expect(missingTableHint({ kind: 'postgres', table: 'kunde', searched: ['public'], tables, origin: { name: 'erp', init: true } })).toBe(
      'Table kunde is not in schema public (the search path: no --db-schema given). Tables there: t. Fix the table name (--table, --query), or pass --db-schema <schema>.',
    );
  });

  it('finds the relation a PostgreSQL error points at in the statement', () => {
    const sql = 'SELECT * FROM (SELECT * FROM "Erp".artikel a JOIN preise p ON p.id = a.id) q';
    expect(identifierAt(sql, String(sql.indexOf('"Erp"') + 1))).toBe('"Erp".artikel');
    expect(identifierAt(sql, String(sql.indexOf('preise') + 1))).toBe('preise');
    expect(identifierAt(sql, undefined)).toBeUndefined();
  });
});
