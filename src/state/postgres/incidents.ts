/**
 * Alert incidents (PostgreSQL). Each claim is one statement, so of several replicas exactly one
 * wins it: PostgreSQL re-checks a conflicting row's WHERE after the other transaction committed.
 * Leases run on the database server's clock, which every replica shares.
 */
import type pg from 'pg';
import type { IncidentMessage, IncidentStore } from '../store.js';
import { execute, query, transaction } from './db.js';

const NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

interface Row {
  id: string;
  state: 'open' | 'resolved';
  since: string | number;
  message: string;
}

/** The alert_incidents table. */
export class PgIncidents implements IncidentStore {
  constructor(private readonly pool: pg.Pool) {}

  async open(id: string, since: number, message: string, claim: string, leaseMs: number, members: readonly string[] = []): Promise<boolean> {
    const rows = await query<{ id: string }>(
      this.pool,
      `INSERT INTO alert_incidents (id, state, since, message, claim, lease_until, members) VALUES ($1, 'open', $2, $3, $4, ${NOW_MS} + $5, $6)
       ON CONFLICT (id) DO UPDATE SET state = 'open', since = excluded.since, message = excluded.message, claim = excluded.claim, lease_until = excluded.lease_until, members = excluded.members
       WHERE alert_incidents.state = 'resolved'
       RETURNING id`,
      [id, since, message, claim, leaseMs, JSON.stringify(members)],
    );
    return rows.length > 0;
  }

  async join(id: string, member: string): Promise<boolean> {
    // One statement on the incident's row: replicas joining at once are serialised by its row lock, and none joins a resolved one.
    const rows = await query<{ id: string }>(
      this.pool,
      `UPDATE alert_incidents SET members = CASE WHEN coalesce(members, '[]')::jsonb ? $2 THEN members ELSE (coalesce(members, '[]')::jsonb || to_jsonb($2::text))::text END
       WHERE id = $1 AND state = 'open' RETURNING id`,
      [id, member],
    );
    return rows.length > 0;
  }

  async members(id: string): Promise<string[]> {
    const rows = await query<{ members: string | null }>(this.pool, 'SELECT members FROM alert_incidents WHERE id = $1', [id]);
    return rows[0]?.members ? (JSON.parse(rows[0].members) as string[]) : [];
  }

  async resolve(id: string, message: string, claim: string, leaseMs: number): Promise<number | undefined> {
    const rows = await query<{ since: string | number }>(
      this.pool,
      `UPDATE alert_incidents SET state = 'resolved', message = $2, claim = $3, lease_until = ${NOW_MS} + $4 WHERE id = $1 AND state = 'open' RETURNING since`,
      [id, message, claim, leaseMs],
    );
    return rows[0] === undefined ? undefined : Number(rows[0].since);
  }

  async sent(id: string, claim: string): Promise<void> {
    await execute(this.pool, `DELETE FROM alert_incidents WHERE id = $1 AND claim = $2 AND state = 'resolved'`, [id, claim]);
    await execute(this.pool, `UPDATE alert_incidents SET message = NULL, claim = NULL, lease_until = NULL WHERE id = $1 AND claim = $2 AND state = 'open'`, [id, claim]);
  }

  async takeOverdue(claim: string, leaseMs: number): Promise<IncidentMessage[]> {
    const rows = await query<Row>(
      this.pool,
      `UPDATE alert_incidents SET claim = $1, lease_until = ${NOW_MS} + $2 WHERE message IS NOT NULL AND lease_until < ${NOW_MS} RETURNING id, state, since, message`,
      [claim, leaseMs],
    );
    return rows.map((r) => ({ id: r.id, state: r.state, since: Number(r.since), message: r.message }));
  }

  async takeSendSlot(maxPerHour: number): Promise<boolean> {
    return transaction(this.pool, async (client) => {
      // Serialises the replicas' count-then-insert; per schema, so other deployments never wait.
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('shopsync:alert-sends'), hashtext(current_schema()))`);
      await client.query(`DELETE FROM alert_sends WHERE at < ${NOW_MS} - 3600000`);
      const inserted = await client.query(`INSERT INTO alert_sends (at) SELECT ${NOW_MS} WHERE (SELECT count(*) FROM alert_sends) < $1`, [maxPerHour]);
      return (inserted.rowCount ?? 0) > 0;
    });
  }

  async listOpen(): Promise<string[]> {
    return (await query<{ id: string }>(this.pool, `SELECT id FROM alert_incidents WHERE state = 'open' ORDER BY id`)).map((r) => r.id);
  }
}
