/**
 * `trigger.hook`: `POST /hooks/<pipeline>` on the daemon wakes the pipeline. The request carries no
 * data (the run reads from its cursor as always); it is signed so that nobody else can make the
 * daemon run, and each signature is good once, within five minutes.
 *
 * The scheme is the one of shopsync's outgoing alert webhook (`X-Shopsync-Signature: sha256=<hex>`,
 * HMAC-SHA256 with a shared secret), with a timestamp and the pipeline added to what is signed —
 * `<X-Shopsync-Timestamp>.<pipeline>.<body>` — because an incoming wake-up must also refuse
 * replays, and a wake-up for one pipeline must not wake another that shares its secret (a
 * template's pipelines, one per shop, when the template names one secret for all).
 *
 * No bearer-token mode: the daemon speaks plain HTTP, so a token would cross the network readable
 * and stay replayable forever; an HMAC never sends the secret and expires with its timestamp.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Runtime } from '../ops/runtime.js';
import type { TriggerKind } from './index.js';
import type { TriggerHandle, Wake } from './types.js';

/** The request headers of a wake-up (lower case, as Node gives them). */
export const HOOK_HEADERS = { timestamp: 'x-shopsync-timestamp', signature: 'x-shopsync-signature' } as const;
/** A timestamp further than this from the daemon's clock is refused (seconds). */
export const HOOK_TOLERANCE_S = 300;
/** Bodies above this are refused with 413: a wake-up carries at most a short note. */
export const HOOK_BODY_LIMIT = 16 * 1024;
/** Signatures remembered at most (each for its five minutes); beyond this, wake-ups are refused with 429 until some expire. */
const SEEN_MAX = 100_000;

/** `sha256=<hex>`: HMAC-SHA256 of `<timestamp>.<pipeline>.<body>` with the pipeline's hook secret. */
export function hookSignature(secret: string, timestamp: string, pipeline: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${pipeline}.`).update(body).digest('hex')}`;
}

/** The format before the pipeline was signed (`<timestamp>.<body>`): recognised only to refuse it with a message that says what changed. */
function oldFormatSignature(secret: string, timestamp: string, body: Buffer): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
}

/** Why a wake-up was refused (logged; the caller learns 401, and for `old-format` how to sign now). */
export type HookRefusal = 'no-signature' | 'bad-timestamp' | 'stale-timestamp' | 'bad-signature' | 'old-format' | 'replayed' | 'too-many';

/** Signatures accepted within their tolerance window: a second request with one of them is a replay. */
export class ReplayGuard {
  readonly #seen = new Map<string, number>();

  /** True the first time a signature is offered before it expires; false for a replay. */
  accept(signature: string, expiresAtMs: number, nowMs: number): boolean | 'full' {
    if (this.#seen.has(signature)) return false;
    if (this.#seen.size >= SEEN_MAX) {
      for (const [s, until] of this.#seen) if (until <= nowMs) this.#seen.delete(s);
      if (this.#seen.size >= SEEN_MAX) return 'full';
    }
    this.#seen.set(signature, expiresAtMs);
    return true;
  }

  /** Forget the expired ones (their timestamps are refused as stale anyway). */
  prune(nowMs: number): void {
    for (const [s, until] of this.#seen) if (until <= nowMs) this.#seen.delete(s);
  }
}

/** Check a wake-up for `pipeline`: its timestamp, signature (constant time) and freshness; undefined when it is good. */
export function verifyHook(secret: string, pipeline: string, headers: Readonly<Record<string, unknown>>, body: Buffer, guard: ReplayGuard, nowMs = Date.now()): HookRefusal | undefined {
  const timestamp = headers[HOOK_HEADERS.timestamp];
  const signature = headers[HOOK_HEADERS.signature];
  if (typeof timestamp !== 'string' || typeof signature !== 'string') return 'no-signature';
  if (!/^\d{1,12}$/.test(timestamp)) return 'bad-timestamp';
  const sent = /^sha256=([0-9a-fA-F]{64})$/.exec(signature.trim());
  if (!sent) return 'bad-signature';
  const given = Buffer.from(sent[1]!, 'hex');
  const expected = Buffer.from(hookSignature(secret, timestamp, pipeline, body).slice('sha256='.length), 'hex');
  if (!timingSafeEqual(expected, given)) {
    // Only the secret's holder can make an old-format signature, so saying so tells an attacker nothing.
    return timingSafeEqual(oldFormatSignature(secret, timestamp, body), given) ? 'old-format' : 'bad-signature';
  }
  // Checked after the signature, so an unsigned request learns nothing about the daemon's clock.
  const atMs = Number(timestamp) * 1000;
  if (Math.abs(nowMs - atMs) > HOOK_TOLERANCE_S * 1000) return 'stale-timestamp';
  const fresh = guard.accept(sent[1]!.toLowerCase(), atMs + HOOK_TOLERANCE_S * 1000, nowMs);
  if (fresh === 'full') return 'too-many';
  return fresh ? undefined : 'replayed';
}

/** Hooks armed by running triggers, per runtime (a test process may hold several daemons). */
const armed = new WeakMap<Runtime, Map<string, Wake>>();

/** The wake of a pipeline's armed hook; undefined while the triggers are not started (or closed). */
export function armedHook(runtime: Runtime, pipeline: string): Wake | undefined {
  return armed.get(runtime)?.get(pipeline);
}

/** The hook kind: arms the route for its pipeline while the triggers run. */
export const hookTrigger: TriggerKind = {
  key: 'hook',
  async start(ctx): Promise<TriggerHandle> {
    let lastWakeAt: string | undefined;
    const hooks = armed.get(ctx.runtime) ?? new Map<string, Wake>();
    armed.set(ctx.runtime, hooks);
    hooks.set(ctx.pipeline.name, (cause, detail) => {
      lastWakeAt = new Date().toISOString();
      ctx.wake(cause, detail);
    });
    ctx.logger.debug(`armed: POST /hooks/${ctx.pipeline.name}`);
    return {
      status: () => ({ pipeline: ctx.pipeline.name, kind: 'hook', state: 'armed', detail: `POST /hooks/${ctx.pipeline.name}`, ...(lastWakeAt ? { lastWakeAt } : {}) }),
      async close() {
        hooks.delete(ctx.pipeline.name);
      },
    };
  },
};
