/**
 * The alert incidents' contract on both backends: opening and resolving are claims that exactly one
 * caller wins, a message stays claimed until it is confirmed, and an unconfirmed one is handed over
 * once its lease has run out.
 */
import { expect, it } from 'vitest';
import { forEachBackend } from './backends.js';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

forEachBackend('alert incidents', (backend) => {
  it('opens an incident once, resolves it once, and opens it again after the recovery went out', async () => {
    const location = backend.location();
    const { incidents } = await backend.open(location);
    expect(await incidents.open('run-failed:stock', 1000, '{"m":1}', 'c1', 60_000)).toBe(true);
    expect(await incidents.open('run-failed:stock', 2000, '{"m":2}', 'c2', 60_000)).toBe(false);
    expect(await incidents.listOpen()).toEqual(['run-failed:stock']);
    await incidents.sent('run-failed:stock', 'c1');
    expect(await incidents.resolve('run-failed:stock', '{"r":1}', 'c3', 60_000)).toBe(1000);
    expect(await incidents.resolve('run-failed:stock', '{"r":2}', 'c4', 60_000)).toBeUndefined();
    expect(await incidents.listOpen()).toEqual([]);
    await incidents.sent('run-failed:stock', 'c3');
    expect(await backend.sql(location, 'SELECT id FROM alert_incidents')).toEqual([]);
    expect(await incidents.open('run-failed:stock', 5000, '{"m":3}', 'c5', 60_000)).toBe(true);
    expect(await incidents.resolve('shop-auth', '{}', 'c6', 60_000)).toBeUndefined();
  });

  it('reopens an incident whose recovery is still being sent, and the late confirmation of that recovery leaves the new message alone', async () => {
    const { incidents } = await backend.open();
    await incidents.open('stale:orders', 1000, '{"m":1}', 'a', 60_000);
    await incidents.sent('stale:orders', 'a');
    expect(await incidents.resolve('stale:orders', '{"r":1}', 'b', 60_000)).toBe(1000);
    expect(await incidents.open('stale:orders', 3000, '{"m":2}', 'c', 0)).toBe(true);
    await incidents.sent('stale:orders', 'b');
    await wait(5);
    const overdue = await incidents.takeOverdue('d', 60_000);
    expect(overdue).toEqual([{ id: 'stale:orders', state: 'open', since: 3000, message: '{"m":2}' }]);
  });

  it('hands an unconfirmed message over once its lease ran out, to one taker only', async () => {
    const { incidents } = await backend.open();
    await incidents.open('dead-letters:stock', 1000, '{"m":1}', 'died', 50);
    await incidents.open('run-failed:stock', 1000, '{"m":1}', 'alive', 60_000);
    expect(await incidents.takeOverdue('early', 60_000)).toEqual([]);
    await wait(80);
    const [first, second] = await Promise.all([incidents.takeOverdue('x', 60_000), incidents.takeOverdue('y', 60_000)]);
    expect([...first!, ...second!]).toEqual([{ id: 'dead-letters:stock', state: 'open', since: 1000, message: '{"m":1}' }]);
    // The dead sender's confirmation, should it come after all, no longer counts.
    await incidents.sent('dead-letters:stock', 'died');
    await incidents.sent('dead-letters:stock', first!.length > 0 ? 'x' : 'y');
    await wait(5);
    expect(await incidents.takeOverdue('z', 0)).toEqual([]);
  });

  it('lets exactly one of several connections win a claim', async () => {
    const location = backend.location();
    const states = await Promise.all([0, 1, 2, 3].map(() => backend.open(location)));
    const opened = await Promise.all(states.map((s, i) => s.incidents.open('shop-auth', 1000, '{}', `c${i}`, 60_000)));
    expect(opened.filter(Boolean)).toHaveLength(1);
    const resolved = await Promise.all(states.map((s, i) => s.incidents.resolve('shop-auth', '{}', `r${i}`, 60_000)));
    expect(resolved.filter((r) => r !== undefined)).toEqual([1000]);
  });

  it('records the pipelines an open incident holds, each once, from every connection, and starts afresh when it reopens', async () => {
    const location = backend.location();
    const states = await Promise.all([0, 1].map(() => backend.open(location)));
    const [a, b] = [states[0]!, states[1]!];
    expect(await a.incidents.join('shop-auth:at', 'orders-at')).toBe(false);
    expect(await a.incidents.open('shop-auth:at', 1000, '{}', 'c1', 60_000, ['products-at'])).toBe(true);
    const joined = await Promise.all([a.incidents.join('shop-auth:at', 'orders-at'), b.incidents.join('shop-auth:at', 'orders-at'), b.incidents.join('shop-auth:at', 'stock-at'), a.incidents.join('shop-auth:at', 'products-at')]);
    expect(joined).toEqual([true, true, true, true]);
    expect((await b.incidents.members('shop-auth:at')).sort()).toEqual(['orders-at', 'products-at', 'stock-at']);
    expect(await a.incidents.resolve('shop-auth:at', '{}', 'r1', 60_000)).toBe(1000);
    // A resolved incident holds no more pipelines; its members stay readable until the recovery is out.
    expect(await b.incidents.join('shop-auth:at', 'prices-at')).toBe(false);
    expect(await b.incidents.members('shop-auth:at')).toHaveLength(3);
    expect(await a.incidents.open('shop-auth:at', 2000, '{}', 'c2', 60_000)).toBe(true);
    expect(await a.incidents.members('shop-auth:at')).toEqual([]);
    expect(await a.incidents.members('shop-unreachable:at')).toEqual([]);
  });

  it('counts messages against one hourly budget for every connection', async () => {
    const location = backend.location();
    const states = await Promise.all([0, 1, 2].map(() => backend.open(location)));
    const taken = await Promise.all(states.flatMap((s) => [s, s].map((x) => x.incidents.takeSendSlot(4))));
    expect(taken.filter(Boolean)).toHaveLength(4);
    expect(await states[0]!.incidents.takeSendSlot(4)).toBe(false);
    // Slots older than an hour no longer count.
    await backend.sql(location, 'UPDATE alert_sends SET at = at - 3600001');
    expect(await states[1]!.incidents.takeSendSlot(4)).toBe(true);
    expect(await backend.sql(location, 'SELECT count(*) AS n FROM alert_sends')).toEqual([{ n: backend.kind === 'postgres' ? '1' : 1 }]);
  });
});
