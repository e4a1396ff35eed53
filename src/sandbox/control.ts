/**
 * Control endpoints under /sandbox/* (same bearer token, any scope; no faults):
 * reference data, settings, faults, traffic counts, reset, clock, token expiry, outbox, privacy log and locks.
 */
import { z } from 'zod';
import type { FaultInjector } from './faults.js';
import { faultSettingsSchema } from './faults.js';
import type { SandboxClock } from './context.js';
import { readOutbox, readPrivacyLog, type InternalContext } from './context.js';
import type { SandboxReply, SeedKind } from './handler.js';
import { errorBody, ok, API_VERSION } from './kit.js';
import { locksBody, setLock } from './locks.js';
import { referenceView, writeSettings } from './reference.js';
import type { TrafficCounter } from './traffic.js';
import type { TokenRegistry } from './auth.js';

/** What control endpoints need. */
export interface ControlDeps {
  readonly ctx: InternalContext;
  readonly faults: FaultInjector;
  readonly traffic: TrafficCounter;
  readonly clock: SandboxClock;
  readonly tokens: TokenRegistry;
  reset(seed: SeedKind): void;
}

const settingsBody = z.record(z.string().regex(/^[A-Z][A-Z0-9_]*$/, { message: 'setting keys are upper-case like EXTENDED_STORAGE_SYSTEM' }), z.union([z.string(), z.number(), z.boolean()]));
const resetBody = z.strictObject({ seed: z.enum(['demo', 'empty']).optional() });
const clockBody = z.strictObject({ advance_seconds: z.number().finite() });

function invalid(issues: readonly z.core.$ZodIssue[]): SandboxReply {
  const text = issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : 'body'}: ${i.message}`).join('; ');
  return { status: 400, body: errorBody('INVALID_PAYLOAD', text) };
}

/** Answer a control request; undefined when the path is no control endpoint. */
export function handleControl(deps: ControlDeps, method: string, path: string, body: unknown): SandboxReply | undefined {
  const { ctx } = deps;
  const key = `${method.toUpperCase()} ${path.toLowerCase().replace(/\/+$/, '')}`;
  switch (key) {
    case 'GET /sandbox/reference':
      return ok(referenceView(ctx.reference(), ctx.settings()));
    case 'GET /sandbox/settings':
      return ok(ctx.settings());
    case 'PUT /sandbox/settings': {
      const parsed = settingsBody.safeParse(body);
      if (!parsed.success) return invalid(parsed.error.issues);
      const values = Object.fromEntries(Object.entries(parsed.data).map(([k, v]) => [k, String(v)]));
      ctx.db.transaction(() => writeSettings(ctx.db, values))();
      ctx.invalidate();
      return ok({ success: true, settings: ctx.settings() });
    }
    case 'GET /sandbox/faults':
      return ok(deps.faults.get());
    case 'PUT /sandbox/faults': {
      const parsed = faultSettingsSchema.partial().safeParse(body);
      if (!parsed.success) return invalid(parsed.error.issues);
      return ok(deps.faults.set(parsed.data));
    }
    case 'GET /sandbox/traffic':
      return ok(deps.traffic.view());
    case 'DELETE /sandbox/traffic':
      return ok(deps.traffic.reset());
    case 'POST /sandbox/reset': {
      const parsed = resetBody.safeParse(body ?? {});
      if (!parsed.success) return invalid(parsed.error.issues);
      const seed = parsed.data.seed ?? 'demo';
      deps.reset(seed);
      return ok({ success: true, seed });
    }
    case 'GET /sandbox/outbox':
      return ok({ success: true, data: readOutbox(ctx.db) });
    case 'GET /sandbox/privacy-log':
      return ok({ success: true, data: readPrivacyLog(ctx.db) });
    case 'GET /sandbox/clock':
      return ok({ now: ctx.timestamp(), offset_seconds: deps.clock.offset() / 1000 });
    case 'PUT /sandbox/clock': {
      const parsed = clockBody.safeParse(body);
      if (!parsed.success) return invalid(parsed.error.issues);
      deps.clock.advance(parsed.data.advance_seconds * 1000);
      return ok({ now: ctx.timestamp(), offset_seconds: deps.clock.offset() / 1000 });
    }
    case 'PUT /sandbox/locks': {
      const parsed = locksBody.safeParse(body);
      if (!parsed.success) return invalid(parsed.error.issues);
      return ctx.db.transaction(() => setLock(ctx, parsed.data))();
    }
    case 'POST /sandbox/expire-tokens':
      return ok({ success: true, expired: deps.tokens.expireIssued() });
    default:
      return undefined;
  }
}

/** The answer for an unknown control path. */
export function unknownControl(path: string): SandboxReply {
  return { status: 404, body: { success: false, api_version: API_VERSION, error: { code: 'Not found', message: `No sandbox control endpoint ${path}` } } };
}
