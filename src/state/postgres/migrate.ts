/**
 * Creating and migrating the state's schema. `schema_version` holds the highest applied step (a
 * state written by a newer shopsync is refused, never half-understood). Everything runs in one
 * transaction under a transaction-level advisory lock keyed by the schema, so replicas starting
 * together take turns: the first migrates, the others then find nothing left to do.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import type { Logger } from '../../log.js';
import { loadMigrations, logMigrated, tooNew, type Migration } from '../migrations.js';
import { quoteSchema, transaction } from './db.js';

/** The PostgreSQL migrations shipped with this module. */
export function postgresMigrations(): Migration[] {
  return loadMigrations(join(dirname(fileURLToPath(import.meta.url)), 'migrations'));
}

/** Create the schema when missing, apply pending migrations; returns the version now in place. */
export async function migrate(pool: pg.Pool, schema: string, logger: Logger, migrations: readonly Migration[] = postgresMigrations()): Promise<number> {
  const q = quoteSchema(schema);
  const latest = migrations.length === 0 ? 0 : migrations[migrations.length - 1]!.version;
  const { current } = await transaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', ['shopsync:migrate', schema]);
    // Checked first: CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege even when the schema is there.
    const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (found.rowCount === 0) await client.query(`CREATE SCHEMA ${q}`);
    await client.query(`SET LOCAL search_path TO ${q}`);
    // Created only when missing: a current state then opens without a write (a read-only server, a full disk).
    const table = await client.query('SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = $2', [schema, 'schema_version']);
    if (table.rowCount === 0) await client.query(`CREATE TABLE ${q}.schema_version (version INTEGER NOT NULL)`);
    const row = (await client.query<{ version: number }>(`SELECT version FROM ${q}.schema_version`)).rows[0];
    if (!row) await client.query(`INSERT INTO ${q}.schema_version (version) VALUES (0)`);
    const current = row?.version ?? 0;
    if (current > latest) throw tooNew(current, latest, `in PostgreSQL schema ${schema}`);
    for (const m of migrations) {
      if (m.version <= current) continue;
      await client.query(m.sql);
      await client.query(`UPDATE ${q}.schema_version SET version = $1`, [m.version]);
      logger.debug({ version: m.version, migration: m.name, schema }, 'state migration applied');
    }
    return { current };
  });
  // Said once the transaction committed: the schema exists only from then on.
  logMigrated(logger, current, latest);
  return Math.max(current, latest);
}
