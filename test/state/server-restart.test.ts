/**
 * A PostgreSQL state server that restarts between two runs: every session of the state ends
 * (`pg_terminate_backend`, the FATAL a shutdown sends), and the pool learns of it only when each
 * idle socket's end is processed. The next read and the next transaction must not fail on such a
 * session: a read is tried again on a new one, and so is a transaction whose BEGIN met a session
 * that was already gone (nothing of it ran). Found by the simulation (kept history
 * 2026-12-02-state-server-restarts.json failed in CI when the next run came first).
 */
import pg from 'pg';
import { expect, it } from 'vitest';
import { postgresAvailable, postgresUrl, BACKENDS } from './backends.js';

const restart = async (schema: string): Promise<number> => {
  const admin = new pg.Client({ connectionString: postgresUrl() });
  await admin.connect();
  try {
    const r = await admin.query<{ n: string }>("SELECT count(pg_terminate_backend(pid))::text AS n FROM pg_stat_activity WHERE application_name = $1", [`shopsync-state:${schema}`.slice(0, 63)]);
    return Number(r.rows[0]?.n ?? 0);
  } finally {
    await admin.end();
  }
};

it.skipIf(!postgresAvailable)('reads and writes go on right after the state server ended every session, without a failed statement', async () => {
  const location = BACKENDS.postgres.location();
  if (location.kind !== 'postgres') throw new Error('a PostgreSQL location');
  const state = await BACKENDS.postgres.open(location);
  for (let round = 0; round < 5; round++) {
    // Several idle sessions in the pool, then all of them ended by the server, then at once a read and a write.
    await Promise.all([1, 2, 3, 4].map(() => state.cursors.get(`warm-${round}`)));
    expect(await restart(location.schema)).toBeGreaterThan(0);
    await Promise.all([state.cursors.set(`after-${round}`, 'main', { value: `v${round}`, key: null }), state.cursors.get('products'), state.runs.list({ pipeline: 'products' })]);
    expect((await state.cursors.get(`after-${round}`, 'main'))?.value).toBe(`v${round}`);
  }
});
