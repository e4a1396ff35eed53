/**
 * The shop sandbox: a local HTTP server implementing the Shop Administration JSON API
 * (the spec, `shop-api.md`) over SQLite, for tests and the demo. Routes, methods, scopes and
 * paging come from the resource registry; each resource's behaviour from `handlers/`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import type Database from 'better-sqlite3';
import { allResources } from '../shop/registry/index.js';
import { silentLogger, type Logger } from '../log.js';
import { DEFAULT_TOKEN, TokenRegistry, type ClientSpec, type TokenSpec } from './auth.js';
import { createContext, SandboxClock } from './context.js';
import { FaultInjector } from './faults.js';
import { TrafficCounter } from './traffic.js';
import type { SeedKind } from './handler.js';
import { handlers } from './handlers/index.js';
import { readReference, readSettings, referenceView, type ReferenceData, type Settings } from './reference.js';
import { buildRoutes } from './routes.js';
import { isSeeded, seedSandbox } from './seed/index.js';
import { SEED_REFERENCE as SEED_REFERENCE_DATA, SEED_SETTINGS as SEED_SETTINGS_DATA } from './seed/reference.js';
import { createServer, type SandboxWrite } from './server.js';
import { openDatabase } from './store.js';

export { parseTokenSpec, parseClientSpec, DEFAULT_TOKEN, type TokenSpec, type ClientSpec } from './auth.js';
export type { ReferenceData, Settings, Language, CustomerGroup, TaxClass, Admin, NamedStatus, TicketStatus, Storage, Country } from './reference.js';
export type { SandboxContext, ResourceHandler, SandboxRequest, SandboxReply, OutboxMail, OutboxAttachment, PrivacyEntry, SeedKind } from './handler.js';
export { SEED_REFERENCE, SEED_SETTINGS } from './seed/reference.js';
export type { FaultSettings } from './faults.js';
export type { TrafficView } from './traffic.js';
export type { SandboxWrite } from './server.js';

/** Default database file when neither `dbPath` nor memory is chosen. */
export const DEFAULT_SANDBOX_DB = 'state/sandbox.sqlite';

/** Options of `startSandbox`. */
export interface SandboxOptions {
  /** TCP port; 0 picks a free one. @default 0 */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /**
   * Seed to load. When given, the database is wiped and seeded with it; when absent, a database
   * that already holds a shop is kept as it is and a new one gets the demo seed.
   */
  readonly seed?: SeedKind;
  /** SQLite file path or ':memory:'. @default 'state/sandbox.sqlite' */
  readonly dbPath?: string;
  /** Static bearer tokens; none = `sandbox-token` with every scope. A token without scopes holds every scope. */
  readonly tokens?: readonly TokenSpec[];
  /** OAuth clients for `POST /oauth/token` (client credentials). */
  readonly clients?: readonly ClientSpec[];
  readonly logger?: Logger;
  /** Called with every API write the shop stored (not GETs, not refused ones), synchronously: benchmarks time deliveries by it. */
  readonly onWrite?: (write: SandboxWrite) => void;
}

/** A running sandbox. */
export interface SandboxHandle {
  /** `http://<host>:<port>`: the API's base_url. */
  readonly url: string;
  /** The first static token (`sandbox-token` unless tokens were given). */
  readonly token: string;
  readonly port: number;
  /** The reference data of the running shop. */
  reference(): ReferenceData;
  /** The shop settings of the running shop. */
  settings(): Settings;
  /** Stop the server and close the database. */
  close(): Promise<void>;
}

/** Start a sandbox shop. */
export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const logger = (options.logger ?? silentLogger).child({ component: 'sandbox' });
  const dbPath = options.dbPath === undefined ? resolve(DEFAULT_SANDBOX_DB) : options.dbPath === ':memory:' ? ':memory:' : resolve(options.dbPath);
  const memory = dbPath === ':memory:';
  const filesRoot = memory ? mkdtempSync(join(tmpdir(), 'shopsync-sandbox-')) : join(dirname(dbPath), 'sandbox-files');
  const db = openDatabase(dbPath);
  try {
    const clock = new SandboxClock();
    const ctx = createContext(db, clock, filesRoot, logger);
    for (const [resource, handler] of Object.entries(handlers)) if (handler?.indexes) ctx.store.defineIndex(resource, handler.indexes);
    db.transaction(() => {
      for (const handler of Object.values(handlers)) handler?.init?.(ctx);
    })();
    if (options.seed !== undefined || !isSeeded(ctx)) seedSandbox(ctx, handlers, options.seed ?? 'demo');

    const tokenSpecs = options.tokens && options.tokens.length > 0 ? options.tokens : [{ value: DEFAULT_TOKEN }];
    const tokens = new TokenRegistry(tokenSpecs, options.clients ?? [], () => clock.nowMs());
    const faults = new FaultInjector(() => Date.now());
    const app = await createServer({
      ctx,
      clock,
      tokens,
      faults,
      traffic: new TrafficCounter(() => Date.now()),
      logger,
      routes: buildRoutes(allResources),
      handlers,
      reset: (seed) => seedSandbox(ctx, handlers, seed),
      ...(options.onWrite ? { onWrite: options.onWrite } : {}),
    });
    await app.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
    const address = app.server.address() as AddressInfo;
    const host = options.host ?? '127.0.0.1';
    const urlHost = host.includes(':') ? `[${host}]` : host;
    const url = `http://${urlHost}:${address.port}`;
    logger.info({ url, db: dbPath }, 'sandbox listening');
    let closed = false;
    return {
      url,
      token: tokenSpecs[0].value,
      port: address.port,
      reference: () => ctx.reference(),
      settings: () => ctx.settings(),
      async close() {
        if (closed) return;
        closed = true;
        await app.close();
        db.close();
        if (memory) rmSync(filesRoot, { recursive: true, force: true });
      },
    };
  } catch (err) {
    db.close();
    if (memory) rmSync(filesRoot, { recursive: true, force: true });
    throw err;
  }
}

/** Read the reference data (languages, groups, tax classes…) and settings of a sandbox database file. */
export function readSandboxReference(db: Database.Database): Record<string, unknown> {
  return referenceView(readReference(db), readSettings(db));
}

/** The seed's reference data and settings as `GET /sandbox/reference` shows them, without a running sandbox. */
export function seedReferenceView(): Record<string, unknown> {
  return referenceView(SEED_REFERENCE_DATA, SEED_SETTINGS_DATA);
}
