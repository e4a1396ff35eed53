/** Replica heartbeats: a beat inserts or refreshes a row, silence is measured by the state's clock, and only a silent row is reaped. */
import { describe, expect, it } from 'vitest';
import { sleep } from '../support/wait.js';
import { forEachBackend } from './backends.js';

forEachBackend('replicas', (backend) => {
  describe('a replica row', () => {
    it('is inserted by the first beat, refreshed by later ones with the current worker ids, and listed with its heartbeat age', async () => {
      const state = await backend.open();
      const startedAt = Date.now();
      await state.replicas.beat({ id: 'r1', name: 'web-1', host: 'h1', pid: 11, startedAt, workerIds: [] });
      await state.replicas.beat({ id: 'r2', name: 'web-2', host: 'h2', pid: 22, startedAt: startedAt + 1, workerIds: ['worker-a'] });
      await sleep(60);
      await state.replicas.beat({ id: 'r1', name: 'web-1', host: 'h1', pid: 11, startedAt, workerIds: ['worker-x', 'worker-y'] });
      const [one, two] = await state.replicas.list();
      expect(one).toMatchObject({ id: 'r1', name: 'web-1', host: 'h1', pid: 11, startedAt: new Date(startedAt).toISOString(), workerIds: ['worker-x', 'worker-y'] });
      expect(two).toMatchObject({ id: 'r2', workerIds: ['worker-a'] });
      expect(one!.heartbeatAgeMs).toBeLessThan(two!.heartbeatAgeMs);
      expect(two!.heartbeatAgeMs).toBeGreaterThanOrEqual(50);
    });

    it('is removed as silent only once it has been silent for longer than asked, and unconditionally without a limit', async () => {
      const state = await backend.open();
      await state.replicas.beat({ id: 'r1', name: 'a', host: 'h', pid: 1, startedAt: Date.now(), workerIds: [] });
      expect(await state.replicas.remove('r1', { silentForMs: 60_000 })).toBe(false);
      await sleep(80);
      expect(await state.replicas.remove('r1', { silentForMs: 50 })).toBe(true);
      expect(await state.replicas.remove('r1', { silentForMs: 50 })).toBe(false);
      await state.replicas.beat({ id: 'r2', name: 'b', host: 'h', pid: 2, startedAt: Date.now(), workerIds: [] });
      expect(await state.replicas.remove('r2')).toBe(true);
      expect(await state.replicas.list()).toEqual([]);
    });
  });
});
