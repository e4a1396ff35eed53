/**
 * Fault injection for the API paths (never for /sandbox/* or /oauth/token).
 *
 * Rates are shares of requests (0..1), applied deterministically: each fault keeps an accumulator
 * that grows by its rate per request and fires when it reaches 1, so 0.25 hits exactly every
 * fourth request and 1 hits every request. No randomness, so tests are repeatable. Order per request:
 * rate limit (429) -> latency -> error_rate (answers before the request takes effect) ->
 * reset_rate (socket destroyed before the request takes effect) -> the handler runs ->
 * reset_after_write_rate (the write took effect, then the socket is destroyed: the answer is lost).
 */
import { z } from 'zod';

export const faultSettingsSchema = z.strictObject({
  /** Added delay per request. */
  latency_ms: z.number().int().min(0).max(60_000),
  /** Extra delay 0..jitter, deterministic (a rotating sequence). */
  latency_jitter_ms: z.number().int().min(0).max(60_000),
  /** Share of requests answered with `error_status` before they take effect. */
  error_rate: z.number().min(0).max(1),
  /** Status of injected errors. */
  error_status: z.number().int().min(400).max(599),
  /** Requests per second beyond which 429 with Retry-After is answered; 0 = unlimited. */
  rate_limit_per_second: z.number().min(0),
  /** Share of requests whose connection is destroyed before they take effect. */
  reset_rate: z.number().min(0).max(1),
  /** Share of requests whose connection is destroyed after the write took effect (answer lost). */
  reset_after_write_rate: z.number().min(0).max(1),
});
export type FaultSettings = z.infer<typeof faultSettingsSchema>;

export const DEFAULT_FAULTS: FaultSettings = {
  latency_ms: 0,
  latency_jitter_ms: 0,
  error_rate: 0,
  error_status: 503,
  rate_limit_per_second: 0,
  reset_rate: 0,
  reset_after_write_rate: 0,
};

/** What to do with a request before it runs. */
export type FaultDecision =
  | { readonly kind: 'pass'; readonly delayMs: number; readonly resetAfter: boolean }
  | { readonly kind: 'rate-limited'; readonly retryAfterSeconds: number }
  | { readonly kind: 'error'; readonly status: number; readonly delayMs: number }
  | { readonly kind: 'reset'; readonly delayMs: number };

/** Fault state of one sandbox. */
export class FaultInjector {
  private settings: FaultSettings = { ...DEFAULT_FAULTS };
  private errorAcc = 0;
  private resetAcc = 0;
  private resetAfterAcc = 0;
  private jitterStep = 0;
  private windowStart = 0;
  private windowCount = 0;

  constructor(private readonly clock: () => number) {}

  /** Current settings. */
  get(): FaultSettings {
    return { ...this.settings };
  }

  /** Merge new settings (validated by the caller) and reset the accumulators. */
  set(update: Partial<FaultSettings>): FaultSettings {
    this.settings = { ...this.settings, ...update };
    this.errorAcc = 0;
    this.resetAcc = 0;
    this.resetAfterAcc = 0;
    this.windowCount = 0;
    return this.get();
  }

  /** Decide the fate of the next API request. */
  decide(): FaultDecision {
    const s = this.settings;
    if (s.rate_limit_per_second > 0) {
      const now = this.clock();
      if (now - this.windowStart >= 1000) {
        this.windowStart = now;
        this.windowCount = 0;
      }
      this.windowCount += 1;
      if (this.windowCount > s.rate_limit_per_second) {
        return { kind: 'rate-limited', retryAfterSeconds: Math.max(1, Math.ceil((this.windowStart + 1000 - now) / 1000)) };
      }
    }
    let delayMs = s.latency_ms;
    if (s.latency_jitter_ms > 0) {
      this.jitterStep = (this.jitterStep + 1) % 7;
      delayMs += Math.round((s.latency_jitter_ms * this.jitterStep) / 6);
    }
    if (this.fire('errorAcc', s.error_rate)) return { kind: 'error', status: s.error_status, delayMs };
    if (this.fire('resetAcc', s.reset_rate)) return { kind: 'reset', delayMs };
    return { kind: 'pass', delayMs, resetAfter: this.fire('resetAfterAcc', s.reset_after_write_rate) };
  }

  private fire(acc: 'errorAcc' | 'resetAcc' | 'resetAfterAcc', rate: number): boolean {
    if (rate <= 0) return false;
    this[acc] += rate;
    if (this[acc] >= 1 - 1e-9) {
      this[acc] -= 1;
      return true;
    }
    return false;
  }
}
