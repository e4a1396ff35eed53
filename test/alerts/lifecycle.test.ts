/**
 * Alerts of a catalog's life: a refused mass deletion and a reconciliation's drift above its
 * threshold each open one incident (through a real local webhook receiver) and close it on recovery.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alertsConfigSchema, startAlerts, type AlertMessage, type AlertWatcher } from '../../src/alerts/index.js';
import { silentLogger } from '../../src/log.js';
import { SyncEvents, type RunSummary } from '../../src/pipeline/index.js';
import { emptyCounts, openState, type StateStore } from '../../src/state/index.js';

let messages: AlertMessage[];
let http: Server;
let state: StateStore;
let events: SyncEvents;
let watcher: AlertWatcher | undefined;

beforeEach(async () => {
  messages = [];
  http = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      messages.push(JSON.parse(body) as AlertMessage);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  state = await openState(':memory:');
  events = new SyncEvents();
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/hook`;
  watcher = startAlerts(alertsConfigSchema.parse({ webhook: { url, retries: 0 } }), { events, state, scheduled: [], secrets: [], logger: silentLogger });
});
afterEach(async () => {
  await watcher?.stop();
  await state.close();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

function run(missing: RunSummary['missing'], status: RunSummary['status'] = 'succeeded'): RunSummary {
  return { runId: 7, pipeline: 'catalog', mode: 'sync', status, counts: emptyCounts(), durationMs: 5, ...(missing ? { missing } : {}) };
}

async function settled(): Promise<void> {
  await watcher!.stop();
}

describe('alerts of deletions and reconciliations', () => {
  it('opens one mass-delete incident while the guard refuses, and closes it once the step ran', async () => {
    const refused = { decided: true, action: 'deactivate' as const, candidates: 40, total: 100, deactivated: 0, deleted: 0, failed: 0, refused: { code: 'MASS_DELETE_REFUSED' as const, message: 'refused to deactivate 40 products; run `shopsync sync catalog --allow-mass-delete`', sample: [] } };
    events.emit({ type: 'run-finished', summary: run(refused, 'partial') });
    events.emit({ type: 'run-finished', summary: run(refused, 'partial') });
    events.emit({ type: 'run-finished', summary: run({ decided: false, why: 'an incremental read', action: 'deactivate', candidates: 0, total: 100, deactivated: 0, deleted: 0, failed: 0 }) });
    events.emit({ type: 'run-finished', summary: run({ decided: true, action: 'deactivate', candidates: 40, total: 100, deactivated: 40, deleted: 0, failed: 0 }) });
    await settled();
    expect(messages.map((m) => [m.kind, m.state])).toEqual([
      ['mass-delete', 'firing'],
      ['mass-delete', 'resolved'],
    ]);
    expect(messages[0]!.text).toContain('--allow-mass-delete');
  });

  it('opens one watermark-held incident while an ERP transaction stays open longer than watermarkHeldMinutes, and closes it once none holds the cursor', async () => {
    const held = (minutes: number): RunSummary => ({ ...run(undefined), watermark: { by: 'transactions', checkedAt: '2026-11-26T12:30:00.000Z', openSince: new Date(Date.parse('2026-11-26T12:30:00.000Z') - minutes * 60_000).toISOString(), bound: { zoned: '2026-11-26T12:00:00.000Z', naive: '2026-11-26T12:00:00' } } });
    events.emit({ type: 'run-finished', summary: held(10) });
    events.emit({ type: 'run-finished', summary: held(20) });
    events.emit({ type: 'run-finished', summary: held(25) });
    // A database that does not tell (lookback only) neither opens nor closes it.
    events.emit({ type: 'run-finished', summary: { ...run(undefined), watermark: { by: 'lookback', checkedAt: '2026-11-26T12:31:00.000Z', reason: 'GRANT pg_read_all_stats' } } });
    events.emit({ type: 'run-finished', summary: held(0) });
    await settled();
    expect(messages.map((m) => [m.kind, m.state])).toEqual([
      ['watermark-held', 'firing'],
      ['watermark-held', 'resolved'],
    ]);
    expect(messages[0]!.text).toContain('open since 2026-11-26T12:10:00.000Z (20 min)');
    expect(messages[0]!.text).toContain('pg_stat_activity');
  });

  it('alerts on reconcile drift above reconcile.alertAbove only', async () => {
    const counts = { onlyInErp: 3, onlyInShop: 1, different: 8 };
    events.emit({ type: 'reconcile-finished', pipeline: 'catalog', shop: 'default', reportId: 'r1', drift: 12, alertAbove: 20, counts });
    events.emit({ type: 'reconcile-finished', pipeline: 'catalog', shop: 'default', reportId: 'r2', drift: 25, alertAbove: 20, counts: { ...counts, different: 21 } });
    events.emit({ type: 'reconcile-finished', pipeline: 'catalog', shop: 'default', reportId: 'r3', drift: 0, alertAbove: 20, counts: { onlyInErp: 0, onlyInShop: 0, different: 0 } });
    await settled();
    expect(messages.map((m) => [m.kind, m.state])).toEqual([
      ['reconcile-drift', 'firing'],
      ['reconcile-drift', 'resolved'],
    ]);
    expect(messages[0]!.text).toContain('25 record(s) drift');
    expect(messages[0]!.text).toContain('--repair');
  });
});
