/**
 * Alert incidents (SQLite). The same statements as on PostgreSQL; a SQLite state has one daemon,
 * so the claims never compete, but the incidents outlive a restart.
 */
import type { IncidentMessage, IncidentStore } from '../store.js';
import type { Db } from './db.js';

interface Row {
  id: string;
  state: 'open' | 'resolved';
  since: number;
  message: string;
}

/** The alert_incidents table. */
export class SqliteIncidents implements IncidentStore {
  constructor(private readonly db: Db) {}

  async open(id: string, since: number, message: string, claim: string, leaseMs: number, members: readonly string[] = []): Promise<boolean> {
    const row = this.db
      .prepare(
        `INSERT INTO alert_incidents (id, state, since, message, claim, lease_until, members) VALUES (?, 'open', ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET state = 'open', since = excluded.since, message = excluded.message, claim = excluded.claim, lease_until = excluded.lease_until, members = excluded.members
         WHERE alert_incidents.state = 'resolved'
         RETURNING id`,
      )
      .get(id, since, message, claim, Date.now() + leaseMs, JSON.stringify(members));
    return row !== undefined;
  }

  async join(id: string, member: string): Promise<boolean> {
    const row = this.db
      .prepare(
        `UPDATE alert_incidents SET members = CASE WHEN EXISTS (SELECT 1 FROM json_each(coalesce(alert_incidents.members, '[]')) WHERE value = ?) THEN members ELSE json_insert(coalesce(members, '[]'), '$[#]', ?) END
         WHERE id = ? AND state = 'open' RETURNING id`,
      )
      .get(member, member, id);
    return row !== undefined;
  }

  async members(id: string): Promise<string[]> {
    const row = this.db.prepare<[string], { members: string | null }>('SELECT members FROM alert_incidents WHERE id = ?').get(id);
    return row?.members ? (JSON.parse(row.members) as string[]) : [];
  }

  async resolve(id: string, message: string, claim: string, leaseMs: number): Promise<number | undefined> {
    const row = this.db
      .prepare<[string, string, number, string], { since: number }>(`UPDATE alert_incidents SET state = 'resolved', message = ?, claim = ?, lease_until = ? WHERE id = ? AND state = 'open' RETURNING since`)
      .get(message, claim, Date.now() + leaseMs, id);
    return row?.since;
  }

  async sent(id: string, claim: string): Promise<void> {
    this.db.prepare(`DELETE FROM alert_incidents WHERE id = ? AND claim = ? AND state = 'resolved'`).run(id, claim);
    this.db.prepare(`UPDATE alert_incidents SET message = NULL, claim = NULL, lease_until = NULL WHERE id = ? AND claim = ? AND state = 'open'`).run(id, claim);
  }

  async takeOverdue(claim: string, leaseMs: number): Promise<IncidentMessage[]> {
    const now = Date.now();
    return this.db
      .prepare<[string, number, number], Row>(`UPDATE alert_incidents SET claim = ?, lease_until = ? WHERE message IS NOT NULL AND lease_until < ? RETURNING id, state, since, message`)
      .all(claim, now + leaseMs, now);
  }

  async takeSendSlot(maxPerHour: number): Promise<boolean> {
    const now = Date.now();
    return this.db
      .transaction(() => {
        this.db.prepare('DELETE FROM alert_sends WHERE at < ?').run(now - 3_600_000);
        return this.db.prepare('INSERT INTO alert_sends (at) SELECT ? WHERE (SELECT count(*) FROM alert_sends) < ?').run(now, maxPerHour).changes > 0;
      })
      .immediate();
  }

  async listOpen(): Promise<string[]> {
    return this.db
      .prepare<[], { id: string }>(`SELECT id FROM alert_incidents WHERE state = 'open' ORDER BY id`)
      .all()
      .map((r) => r.id);
  }
}
