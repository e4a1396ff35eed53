/** Builds the `SandboxContext` handlers work with, and reads the outbox and privacy log. */
import type Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../log.js';
import type { OutboxMail, PrivacyEntry, SandboxContext } from './handler.js';
import { readReference, readSettings, type ReferenceData, type Settings } from './reference.js';
import { createRecordStore } from './store.js';
import { formatDateTime } from './dates.js';

/** A settable clock: real time plus an offset tests can advance. */
export class SandboxClock {
  private offsetMs = 0;

  /** Milliseconds since the epoch, offset included. */
  nowMs(): number {
    return Date.now() + this.offsetMs;
  }

  /** Move the clock forward (or back). */
  advance(ms: number): void {
    this.offsetMs += ms;
  }

  /** The current offset. */
  offset(): number {
    return this.offsetMs;
  }
}

/** The context plus cache invalidation after settings/reference changes. */
export interface InternalContext extends SandboxContext {
  invalidate(): void;
}

const TRUE_VALUES = new Set(['true', '1', 'yes', 'on']);

/** Create the context over an open database. */
export function createContext(db: Database.Database, clock: SandboxClock, filesRoot: string, logger: Logger): InternalContext {
  const store = createRecordStore(db);
  let cachedReference: ReferenceData | undefined;
  let cachedSettings: Settings | undefined;
  const addMail = db.prepare('INSERT INTO outbox (kind, data, created_at) VALUES (?, ?, ?)');
  const addPrivacy = db.prepare('INSERT INTO privacy_log (event, data, created_at) VALUES (?, ?, ?)');
  const statements = new Map<string, Database.Statement>();
  const ctx: InternalContext = {
    store,
    db,
    sql<P extends unknown[] = unknown[], R = unknown>(text: string): Database.Statement<P, R> {
      let stmt = statements.get(text);
      if (!stmt) {
        stmt = db.prepare(text);
        statements.set(text, stmt);
      }
      return stmt as unknown as Database.Statement<P, R>;
    },
    reference() {
      cachedReference ??= readReference(db);
      return cachedReference;
    },
    settings() {
      cachedSettings ??= readSettings(db);
      return cachedSettings;
    },
    flag(key) {
      const v = ctx.settings()[key];
      return v !== undefined && TRUE_VALUES.has(v.trim().toLowerCase());
    },
    sendMail(mail: OutboxMail) {
      addMail.run(mail.kind, JSON.stringify(mail), ctx.timestamp());
    },
    logPrivacy(entry: PrivacyEntry) {
      addPrivacy.run(entry.event, JSON.stringify(entry), ctx.timestamp());
    },
    now: () => new Date(clock.nowMs()),
    timestamp: () => formatDateTime(new Date(clock.nowMs())),
    filesDir(area) {
      const dir = join(filesRoot, area.replace(/[^A-Za-z0-9_-]/g, '_'));
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    logger,
    invalidate() {
      cachedReference = undefined;
      cachedSettings = undefined;
    },
  };
  return ctx;
}


/** Outbox entries, oldest first. */
export function readOutbox(db: Database.Database): Record<string, unknown>[] {
  const rows = db.prepare<[], { id: number; data: string; created_at: string }>('SELECT id, data, created_at FROM outbox ORDER BY id').all();
  return rows.map((r) => ({ id: r.id, created_at: r.created_at, ...(JSON.parse(r.data) as Record<string, unknown>) }));
}

/** Privacy-log entries, oldest first. */
export function readPrivacyLog(db: Database.Database): Record<string, unknown>[] {
  const rows = db.prepare<[], { id: number; data: string; created_at: string }>('SELECT id, data, created_at FROM privacy_log ORDER BY id').all();
  return rows.map((r) => ({ id: r.id, created_at: r.created_at, ...(JSON.parse(r.data) as Record<string, unknown>) }));
}
