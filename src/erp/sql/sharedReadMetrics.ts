/**
 * `shopsync_erp_queries_total` on /metrics, read from the counts of ./sharedReads.ts. Apart from the
 * shared reads: every SQL source counts its reads, but only a process that serves /metrics loads prom-client.
 */
import { Counter, type Registry } from 'prom-client';
import { erpQueryCounts } from './sharedReads.js';

/** `shopsync_erp_queries_total{connection,shared}` on a registry (read from this process's counts when scraped). */
export function registerErpQueryMetrics(registry: Registry): void {
  new Counter({
    name: 'shopsync_erp_queries_total',
    help: 'Page reads of SQL sources: shared="false" went to the database, shared="true" were served from an identical query of another pipeline (read once, fan out)',
    labelNames: ['connection', 'shared'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [connection, c] of erpQueryCounts()) {
        this.inc({ connection, shared: 'false' }, c.own);
        this.inc({ connection, shared: 'true' }, c.shared);
      }
    },
  });
}
