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
    events.on('reconcile-finished', (e) => {
      const c = e.counts;
      say(`${e.pipeline.padEnd(16)} reconciled with the shop: drift ${e.drift} (only in the ERP ${c.onlyInErp ?? 0}, only in the shop ${c.onlyInShop ?? 0}, different ${c.different ?? 0}); see the dashboard's Reconcile page`);
    }),
    events.on('record-settled', (e) => {
      // Show *why* a record was refused: in the demo these are the guard rails at work.
      if (e.outcome === 'deactivated' || e.outcome === 'deleted') say(`${e.pipeline.padEnd(16)} ↳ ${e.erpKey} left the ERP: ${e.outcome} in the shop`);
      if (e.outcome === 'dead-lettered') say(`${e.pipeline.padEnd(16)} ↳ ${e.erpKey} refused (${e.codes.join(', ')}); see the dashboard's dead letters`);
      if (e.pipeline === 'order-status' && e.erpKey.startsWith('WEB-') && e.outcome === 'updated') say(`shop     order ${String(e.shopId ?? e.erpKey.slice(4))} got its new status from the ERP`);
    }),
  ];
  return () => {
    for (const off of offs) off();
  };
}
