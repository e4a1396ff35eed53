/**
 * The typed event stream of pipelines. Logging, metrics and the dashboard subscribe here;
 * nothing else reaches into pipeline internals. Handlers run synchronously and must not throw
 * (a throwing handler is isolated and reported through `listener-failed`, never to the run).
 */
import type { ClientEvent } from '../shop/client/types.js';
import type { EventOutcome, RunMode, RunRecord } from '../state/index.js';
import type { CursorPosition } from '../erp/types.js';
import type { RunSummary } from './types.js';

/** Everything a pipeline reports. */
export type SyncEvent =
  | { readonly type: 'run-started'; readonly runId: number; readonly pipeline: string; readonly mode: RunMode; readonly lane: string; readonly at: string }
  | {
      readonly type: 'record-settled';
      readonly runId: number;
      readonly pipeline: string;
      readonly resource: string;
      readonly erpKey: string;
      readonly shopId?: string | number;
      readonly outcome: EventOutcome;
      /** Warning and error codes of the record. */
      readonly codes: readonly string[];
      /** The source could not use the record (a broken row, no key, an unreadable file). */
      readonly unreadable?: boolean;
    }
  | { readonly type: 'batch-sent'; readonly runId: number; readonly pipeline: string; readonly resource: string; readonly operation: 'create' | 'update'; readonly size: number; readonly requests: number; readonly durationMs: number }
  | { readonly type: 'batch-split'; readonly runId: number; readonly pipeline: string; readonly size: number; readonly code: string }
  /** Records the shop took, with their change latency (change timestamp → the shop's answer), clamped at 0; `skewed` of them were below 0. */
  | { readonly type: 'changes-delivered'; readonly runId: number; readonly pipeline: string; readonly resource: string; readonly seconds: readonly number[]; readonly skewed: number }
  | { readonly type: 'request-throttled'; readonly pipeline?: string; readonly resource: string; readonly retryAfterMs: number }
  | { readonly type: 'checkpoint'; readonly runId: number; readonly pipeline: string; readonly lane: string; readonly position: CursorPosition }
  | { readonly type: 'run-finished'; readonly summary: RunSummary }
  /** A run left `running` by a process that ended without finishing it was marked crashed. */
  | { readonly type: 'run-crashed'; readonly run: RunRecord }
  /** A reconciliation finished (`shopsync reconcile`); alerts compare `drift` with `alertAbove`. */
  | {
      readonly type: 'reconcile-finished';
      readonly pipeline: string;
      readonly shop: string;
      readonly reportId: string;
      readonly drift: number;
      readonly alertAbove: number;
      readonly counts: Readonly<Record<string, number>>;
    }
  | { readonly type: 'listener-failed'; readonly eventType: string; readonly error: string };

export type SyncEventType = SyncEvent['type'];
/** The event of one type. */
export type SyncEventOf<T extends SyncEventType> = Extract<SyncEvent, { type: T }>;

/** A small typed pub/sub. */
export class SyncEvents {
  private readonly handlers = new Map<SyncEventType | '*', Set<(event: SyncEvent) => void>>();

  /** Subscribe to one event type; returns the unsubscribe function. */
  on<T extends SyncEventType>(type: T, handler: (event: SyncEventOf<T>) => void): () => void {
    return this.add(type, handler as (event: SyncEvent) => void);
  }

  /** Subscribe to every event; returns the unsubscribe function. */
  onAny(handler: (event: SyncEvent) => void): () => void {
    return this.add('*', handler);
  }

  /** Deliver an event to its subscribers. */
  emit(event: SyncEvent): void {
    for (const key of [event.type, '*'] as const) {
      for (const handler of this.handlers.get(key) ?? []) {
        try {
          handler(event);
        } catch (err) {
          if (event.type !== 'listener-failed') this.emit({ type: 'listener-failed', eventType: event.type, error: err instanceof Error ? err.message : String(err) });
        }
      }
    }
  }

  /** An `onEvent` for `createShopClient` that forwards throttling to this stream. */
  clientObserver(pipeline?: string): (event: ClientEvent) => void {
    return (event) => {
      if (event.type === 'throttled') this.emit({ type: 'request-throttled', ...(pipeline ? { pipeline } : {}), resource: event.resource, retryAfterMs: event.retryAfterMs });
    };
  }

  private add(key: SyncEventType | '*', handler: (event: SyncEvent) => void): () => void {
    let set = this.handlers.get(key);
    if (!set) this.handlers.set(key, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }
}
