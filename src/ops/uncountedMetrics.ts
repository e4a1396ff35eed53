/** Metrics that count nothing, for a runtime that serves no /metrics (./runtime.ts, `metrics: false`); apart from ./metrics.ts so prom-client stays unloaded. */
import type { Metrics } from './metrics.js';

/** The metrics of a runtime opened with `metrics: false`: every count is dropped; there is no registry to render. */
export function uncountedMetrics(): Metrics {
  const none = (): never => {
    throw new Error('this runtime counts no metrics (opened with metrics: false, as one-off commands are)');
  };
  const drop = (): void => undefined;
  return {
    get registry() {
      return none();
    },
    clientEvent: drop,
    recordsSettled: drop,
    runFinished: drop,
    lastSuccessAt: drop,
    changesDelivered: drop,
    tickSkipped: drop,
    render: async () => none(),
    contentType: 'text/plain; version=0.0.4; charset=utf-8',
  };
}
