/** The demo's running commentary: one line per pipeline run that did something. */
import type { SyncEvents } from '../../pipeline/index.js';
import type { Say } from './activity.js';

/** Subscribe to the event stream; returns the unsubscribe function. */
export function narrate(events: SyncEvents, say: Say): () => void {
  const offs = [
    events.on('run-finished', ({ summary: s }) => {
      const c = s.counts;
      if (c.read === 0 && s.status === 'succeeded') return;
      const parts = [`read ${c.read}`];
      for (const [label, n] of [['created', c.created], ['updated', c.updated], ['unchanged', c.unchanged], ['failed', c.failed], ['dead-lettered', c.deadLettered]] as const) if (n) parts.push(`${label} ${n}`);
      const err = s.error ? ` — [${s.error.code}] ${s.error.message}` : '';
      say(`${s.pipeline.padEnd(16)} ${s.status}: ${parts.join(', ')}${err}`);
    }),
    events.on('record-settled', (e) => {
      // Show *why* a record was refused: in the demo these are the guard rails at work.
      if (e.outcome === 'dead-lettered') say(`${e.pipeline.padEnd(16)} ↳ ${e.erpKey} refused (${e.codes.join(', ')}); see the dashboard's dead letters`);
      if (e.pipeline === 'order-status' && e.erpKey.startsWith('WEB-') && e.outcome === 'updated') say(`shop     order ${String(e.shopId ?? e.erpKey.slice(4))} got its new status from the ERP`);
    }),
  ];
  return () => {
    for (const off of offs) off();
  };
}
