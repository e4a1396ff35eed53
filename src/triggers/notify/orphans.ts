/**
 * `shopsync doctor`: NOTIFY triggers that nobody listens to. A trigger installed by
 * `notify-setup` stays when its pipeline is deleted or loses `trigger.notify`, and every write to
 * its table still notifies and so takes NOTIFY's commit lock (docs/triggers.md, "The cost to the
 * ERP"). Each PostgreSQL database of the config's connections is asked once for the triggers that
 * call `shopsync_notify()`, and each whose channel no pipeline of this config listens on is named
 * with the statement that removes it.
 */
import pg from 'pg';
import type { LoadedConfig } from '../../config/index.js';
import type { PostgresConnection } from '../../erp/connection.js';
import { openPostgres } from '../../erp/sql/postgres.js';
import { errorLine } from '../../errors.js';
import type { Logger } from '../../log.js';
import { NOTIFY_FUNCTION } from './setup.js';
import { notifySourceOf } from './source.js';

/** One finding, in doctor's shape. */
export interface OrphanCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** The channels this config's pipelines listen on, per PostgreSQL connection name. */
function listened(loaded: LoadedConfig): Set<string> {
  const out = new Set<string>();
  for (const p of loaded.config.pipelines) {
    if (!p.trigger?.notify) continue;
    try {
      out.add(notifySourceOf(p, loaded.config.connections).channel);
    } catch {
      // A notify on a source that cannot have it is reported by the trigger checks already.
    }
  }
  return out;
}

/** Check every PostgreSQL database the config reaches for shopsync NOTIFY triggers without a listener. */
export async function orphanedNotifyTriggers(loaded: LoadedConfig, logger: Logger): Promise<OrphanCheck[]> {
  const channels = listened(loaded);
  const seen = new Set<string>();
  const out: OrphanCheck[] = [];
  for (const [name, connection] of Object.entries(loaded.config.connections)) {
    if (connection.kind !== 'postgres') continue;
    const conn: PostgresConnection = connection;
    const where = JSON.stringify([conn.url ?? '', conn.host ?? '', conn.port ?? '', conn.database ?? '']);
    if (seen.has(where)) continue;
    seen.add(where);
    const check = `erp ${name}: NOTIFY triggers`;
    let rows: Record<string, unknown>[];
    try {
      const driver = await openPostgres(conn, process.env, logger, true, loaded.baseDir);
      try {
        rows = await driver.query(
          `SELECT t.tgname AS trigger, n.nspname AS schema, c.relname AS "table", pg_catalog.encode(t.tgargs, 'hex') AS args
             FROM pg_catalog.pg_trigger t
             JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) t.tgrelid
             JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
             JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) t.tgfoid
            WHERE p.proname OPERATOR(pg_catalog.=) $1::pg_catalog.name AND NOT t.tgisinternal
            ORDER BY n.nspname, c.relname, t.tgname`,
          [NOTIFY_FUNCTION],
        );
      } finally {
        await driver.close();
      }
    } catch (err) {
      // Reachability is the connector checks' finding; this one says only what it could not look at.
      out.push({ name: check, ok: true, detail: `not checked: ${errorLine(err)}` });
      continue;
    }
    const orphans = rows.filter((r) => {
      // tgargs: each argument NUL-terminated; the first is the channel.
      const channel = Buffer.from(String(r.args), 'hex').toString('utf8').split('\0')[0] ?? '';
      (r as { channel?: string }).channel = channel;
      return !channels.has(channel);
    });
    if (orphans.length === 0) {
      out.push({ name: check, ok: true, detail: rows.length === 0 ? 'none installed' : `${rows.length} installed, each listened to by a pipeline of this config` });
      continue;
    }
    for (const r of orphans) {
      const table = `${pg.escapeIdentifier(String(r.schema))}.${pg.escapeIdentifier(String(r.table))}`;
      const channel = String((r as { channel?: string }).channel);
      out.push({
        name: `erp ${name}: NOTIFY trigger ${String(r.trigger)} on ${table}`,
        ok: false,
        detail:
          `no pipeline of this config listens on its channel ${channel} (the pipeline is gone, or lost trigger.notify), yet every write to ${table} still notifies and takes NOTIFY's commit lock. ` +
          `Remove it as the table's owner: DROP TRIGGER ${pg.escapeIdentifier(String(r.trigger))} ON ${table}; (the function ${NOTIFY_FUNCTION}() goes once no trigger uses it: shopsync erp notify-setup … --drop does both). ` +
          `If another shopsync deployment listens on ${channel}, it is that one's trigger: leave it.`,
      });
    }
  }
  return out;
}
