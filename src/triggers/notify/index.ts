/**
 * `trigger: { notify: true }`: a push pipeline on a PostgreSQL source is woken by NOTIFY on its
 * channel (installed by `shopsync erp notify-setup`), and once after every (re)connect of its
 * listener, so a change whose notification fell into a disconnect still goes out.
 */
import { postgresSettings } from '../../erp/sql/postgres.js';
import type { TriggerKind } from '../index.js';
import type { TriggerHandle } from '../types.js';
import { notifyHold } from './hold.js';
import { startListener } from './listener.js';
import { notifySourceOf } from './source.js';

export { startListener, LISTENER_APPLICATION_NAME, type Listener, type ListenerOptions } from './listener.js';
export { notifySetupScript, notifySetupSql, notifyTriggerName, NOTIFY_FUNCTION, DEFAULT_LOCK_TIMEOUT_MS, type NotifySetup, type NotifySetupOptions } from './setup.js';
export { applyNotifySetup, applyNotifySetupTo, NOTIFY_SETUP_CODES, type AppliedSetup } from './apply.js';
export { notifySourceOf, tablesNamedIn, NOTIFY_CODES, type NotifySource } from './source.js';

/** The NOTIFY trigger kind (listed in src/triggers/index.ts). */
export const notifyTrigger: TriggerKind = {
  key: 'notify',
  check: (pipeline, config) => void notifySourceOf(pipeline, config.connections),
  async start({ pipeline, trigger, runtime, wake, logger }): Promise<TriggerHandle> {
    // Throws TRIGGER_NOTIFY_NOT_POSTGRES for a source that cannot NOTIFY: misuse, refused at start.
    const source = notifySourceOf(pipeline, runtime.loaded.config.connections);
    // The source's own settings (TLS, search_path, time zone), read-only: the listener only LISTENs and asks SELECT 1.
    const { max: _pool, ...client } = postgresSettings(source.connection, process.env, true, runtime.loaded.baseDir);
    let lastWakeAt: string | undefined;
    // Any role that may log in can NOTIFY: wake-ups that keep finding nothing are held (hold.ts).
    const hold = notifyHold({
      spacingMs: trigger.debounce,
      logger,
      wake: (table) => {
        lastWakeAt = new Date().toISOString();
        wake('notify', table);
      },
      probe: {
        cursor: async () => JSON.stringify((await runtime.state.cursors.get(pipeline.name)) ?? null, ['value', 'key']),
        runsSince: async (sinceMs) => {
          const finished = (await runtime.state.runs.list({ pipeline: pipeline.name, since: sinceMs, limit: 20 })).filter((r) => r.status !== 'running');
          if (finished.length === 0) return 'none';
          return finished.some((r) => r.counts.created + r.counts.updated + r.counts.failed + r.counts.deadLettered > 0) ? 'something' : 'nothing';
        },
      },
    });
    const listener = startListener({
      client,
      channel: source.channel,
      logger,
      // The payload is only a hint for the log: the run reads from its cursor, whatever was sent.
      onNotify: (table) => hold.notify(table.slice(0, 63)),
      onConnected: () => {
        lastWakeAt = new Date().toISOString();
        wake('reconnect');
      },
    });
    return {
      status: () => {
        const state = listener.state();
        const error = listener.lastError();
        return {
          pipeline: pipeline.name,
          kind: 'notify',
          state: state === 'listening' ? 'listening' : 'reconnecting',
          detail: state === 'listening' ? `LISTEN ${source.channel}${hold.heldUntil() !== undefined ? `; wake-ups held until ${new Date(hold.heldUntil() as number).toISOString()} (the last ones found nothing new)` : ''}` : `LISTEN ${source.channel}: ${state === 'connecting' ? 'connecting' : `down, retrying${error ? ` (${error})` : ''}`}`,
          ...(lastWakeAt ? { lastWakeAt } : {}),
        };
      },
      close: async () => {
        hold.close();
        await listener.close();
      },
    };
  },
};
