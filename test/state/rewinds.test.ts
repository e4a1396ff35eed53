/**
 * Restore marks and the user's say-so on both backends: a restore is accepted per pipeline and
 * stays accepted; the acceptance of earlier deliveries is open until the pipeline caught up; a new
 * restore needs a new say-so; the keys of the batch in flight are kept per pipeline.
 */
import { expect, it } from 'vitest';
import { restoreAccepted } from '../../src/state/rewinds.js';
import { forEachBackend } from './backends.js';

forEachBackend('rewinds', (backend) => {
  it('holds a restore back until each pipeline accepts it, and keeps it accepted after the pipeline caught up', async () => {
    const location = backend.location();
    const state = await backend.open(location);
    const { rewinds } = state;
    expect(await rewinds.restored()).toBeUndefined();
    expect(restoreAccepted(undefined, undefined)).toBe(true);

    await rewinds.markRestored({ restoredAt: 1000, file: '/backups/monday.db', newestRunAt: '2026-11-30T08:00:00.000Z' });
    const mark = await rewinds.restored();
    expect(mark).toEqual({ restoredAt: 1000, file: '/backups/monday.db', newestRunAt: '2026-11-30T08:00:00.000Z' });
    expect(restoreAccepted(mark, await rewinds.acceptance('orders'))).toBe(false);

    expect(await rewinds.accept('orders', 2000)).toEqual({ acceptedAt: 2000, restoredAt: 1000, open: true });
    expect(restoreAccepted(mark, await rewinds.acceptance('orders'))).toBe(true);
    expect(restoreAccepted(mark, await rewinds.acceptance('tickets'))).toBe(false);

    await rewinds.caughtUp('orders');
    expect(await rewinds.acceptance('orders')).toEqual({ acceptedAt: 2000, restoredAt: 1000, open: false });
    expect(restoreAccepted(mark, await rewinds.acceptance('orders'))).toBe(true);

    // A later restore is a new question.
    await rewinds.markRestored({ restoredAt: 3000, file: '/backups/tuesday.db' });
    expect(restoreAccepted(await rewinds.restored(), await rewinds.acceptance('orders'))).toBe(false);
    await state.close();
    // Kept in the state, not in the process.
    const again = await backend.open(location);
    expect(await again.rewinds.restored()).toMatchObject({ restoredAt: 3000 });
  });

  it('keeps the keys of the batch in flight per pipeline, the last batch replacing the one before', async () => {
    const { rewinds } = await backend.open();
    expect([...(await rewinds.inFlight('orders'))]).toEqual([]);
    await rewinds.setInFlight('orders', ['1', '2']);
    await rewinds.setInFlight('orders', ['3']);
    await rewinds.setInFlight('tickets', ['9']);
    expect([...(await rewinds.inFlight('orders'))]).toEqual(['3']);
    expect([...(await rewinds.inFlight('tickets'))]).toEqual(['9']);
  });
});
