/** Seeding: reference data and settings first, then every handler's `seed` in registration order. */
import type { InternalContext } from '../context.js';
import type { ResourceHandler, SeedKind } from '../handler.js';
import { writeReference, writeSettings } from '../reference.js';
import { SEED_REFERENCE, SEED_SETTINGS } from './reference.js';

/** Wipe the sandbox and load a seed (one transaction). */
export function seedSandbox(ctx: InternalContext, handlers: Readonly<Record<string, ResourceHandler | undefined>>, kind: SeedKind): void {
  ctx.db.transaction(() => {
    ctx.store.clearRecords();
    ctx.db.exec('DELETE FROM outbox; DELETE FROM privacy_log; DELETE FROM settings; DELETE FROM meta;');
    writeReference(ctx.db, SEED_REFERENCE);
    writeSettings(ctx.db, SEED_SETTINGS);
    ctx.invalidate();
    for (const handler of Object.values(handlers)) handler?.seed?.(ctx, kind);
  })();
  ctx.invalidate();
}

/** Whether the database already holds a seeded shop. */
export function isSeeded(ctx: InternalContext): boolean {
  return ctx.sql("SELECT 1 FROM meta WHERE key = 'reference'").get() !== undefined;
}
