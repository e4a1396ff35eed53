/**
 * graphile-worker listens on the database-wide channel `worker:migrate` and stops every worker
 * that hears a "breaking" migration notice, whichever schema the notice was about. NOTIFY needs no
 * privilege, so any role of the jobs database (a co-tenant, another deployment) could stop every
 * replica's workers at will: they restart, but /readyz fails meanwhile, and a steady stream of
 * notices keeps the engine down. The engine's listening client is therefore guarded: a notice
 * reaches graphile-worker only when it names a migration row of this deployment's jobs schema that
 * is newer than the one the engine started on, breaking as the notice says. That is exactly what a
 * newer shopsync migrating this schema sends (its row and its notice commit together), and what a
 * role without write access to the schema cannot forge.
 */
import type { EventEmitter } from 'node:events';
import { z } from 'zod';
import { errorLine } from '../errors.js';
import type { Logger } from '../log.js';
import type { JobStore } from './store.js';

/** graphile-worker's notice channel for migrations. */
export const MIGRATE_CHANNEL = 'worker:migrate';

const noticeSchema = z.object({ migrationNumber: z.number().int().positive(), breaking: z.boolean() });

/** Notices checked at once at most; more are dropped (a flood must not take the store's pool). */
const MAX_CHECKS = 4;
/** Ignored notices are logged at most once per this interval, with their count. */
const LOG_EVERY_MS = 60_000;

/** Options of `migrateNoticeGuard`. */
export interface MigrateNoticeGuardOptions {
  readonly store: JobStore;
  /** The newest migration of the jobs schema when the engine started. */
  readonly baseline: number;
  readonly logger: Logger;
}

/** A guard to put on each client the engine listens with (`pool:listen:success`); a client is guarded once. */
export function migrateNoticeGuard(options: MigrateNoticeGuardOptions): (client: EventEmitter) => void {
  const guarded = new WeakSet<EventEmitter>();
  let checking = 0;
  let ignored = 0;
  let lastLogAt = 0;
  const ignore = (reason: string, payload: string | undefined): void => {
    ignored++;
    const now = Date.now();
    if (now - lastLogAt < LOG_EVERY_MS) return;
    lastLogAt = now;
    options.logger.warn(
      { schema: options.store.schema, ignored, reason, payload: payload?.slice(0, 120) },
      `ignored ${ignored} worker:migrate notice(s) that name no newer migration of this deployment's jobs schema (another role of the database can send them; docs/security.md, "Co-tenants of the jobs database")`,
    );
    ignored = 0;
  };
  const real = async (payload: string | undefined): Promise<boolean> => {
    let parsed: z.output<typeof noticeSchema>;
    try {
      const result = noticeSchema.safeParse(JSON.parse(payload ?? ''));
      if (!result.success) return (ignore('not a migration notice', payload), false);
      parsed = result.data;
    } catch {
      return (ignore('not JSON', payload), false);
    }
    if (parsed.migrationNumber <= options.baseline) return (ignore('not newer than this schema', payload), false);
    const row = await options.store.migration(parsed.migrationNumber);
    if (!row) return (ignore('no such migration in this schema', payload), false);
    if (row.breaking !== parsed.breaking) return (ignore('breaking differs from the migration row', payload), false);
    return true;
  };
  return (client) => {
    if (guarded.has(client)) return;
    guarded.add(client);
    // pg delivers notices through the client's own emit; graphile-worker's handler is one of its listeners.
    const emit = client.emit.bind(client);
    client.emit = (event: string | symbol, ...args: unknown[]): boolean => {
      const notice = args[0] as { channel?: unknown; payload?: string } | undefined;
      if (event !== 'notification' || notice?.channel !== MIGRATE_CHANNEL) return emit(event, ...args);
      if (checking >= MAX_CHECKS) return (ignore('too many at once', notice.payload), true);
      checking++;
      real(notice.payload)
        .then(
          (ok) => {
            if (!ok) return;
            options.logger.warn({ schema: options.store.schema, payload: notice.payload }, 'this jobs schema was migrated by a newer version: the job engine stops its workers');
            emit(event, ...args);
          },
          (err: unknown) => options.logger.error({ err: errorLine(err), schema: options.store.schema }, 'could not check a worker:migrate notice against the jobs schema; it is ignored'),
        )
        .finally(() => checking--);
      return true;
    };
  };
}
