/** PostgreSQL fixtures of the job tests: a state schema of their own (and its `_jobs` schema), dropped after the file. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll } from 'vitest';
import { requireService } from '../support/services.js';

const service = await requireService('postgres');

/** Whether PostgreSQL is there (the file's suites skip loudly otherwise). */
export const postgresAvailable = service.available;

/** The test database's URL. */
export const POSTGRES_URL = `postgres://${service.user}@${service.host}:${service.port}/${service.database}`;

const schemas: string[] = [];

/** A fresh state schema name; it and `<name>_jobs` are dropped after the file's tests. */
export function freshSchema(prefix = 'shopsync_j'): string {
  const schema = `${prefix}_${randomBytes(4).toString('hex')}`;
  schemas.push(schema, `${schema}_jobs`);
  return schema;
}

/** Run one SQL statement against the test database. */
export async function sql<R extends pg.QueryResultRow = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  if (!postgresAvailable) return;
  for (const s of schemas.splice(0)) await sql(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(s)} CASCADE`);
});
