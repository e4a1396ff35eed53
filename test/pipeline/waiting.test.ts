/** The waiting room of records whose reference lookup missed. */
import { describe, expect, it } from 'vitest';
import { MAX_WAITING, WaitingRoom, type Waiting } from '../../src/pipeline/push/waiting.js';

const waiting = (erpKey: string, seq: number): Waiting => ({
  input: { seq, erpKey, record: { key: erpKey } },
  settlement: { kind: 'dead', item: { seq, erpKey, record: { key: erpKey }, warnings: [] }, error: { code: 'MAPPING_LOOKUP', message: 'no shop id' } },
  missing: [{ resource: 'categories', erpKey: 'P' }],
});

describe('waiting room', () => {
  it('gives the records back in source order and names the missing references', () => {
    const room = new WaitingRoom();
    room.add(waiting('B', 1));
    room.add(waiting('A', 2));
    expect(room.missingSample()).toEqual(['categories:P']);
    expect(room.takeAll().map((w) => w.input.erpKey)).toEqual(['B', 'A']);
    expect(room.size).toBe(0);
  });

  it('lets a newer version of a record take the waiting one out', () => {
    const room = new WaitingRoom();
    room.add(waiting('A', 1));
    expect(room.remove('A')?.input.seq).toBe(1);
    expect(room.remove('A')).toBeUndefined();
    expect(room.size).toBe(0);
  });

  it('refuses records beyond its capacity so memory stays bounded', () => {
    const room = new WaitingRoom();
    for (let i = 0; i < MAX_WAITING; i++) expect(room.add(waiting(`K${i}`, i))).toBe(true);
    expect(room.add(waiting('one-more', MAX_WAITING))).toBe(false);
    expect(room.size).toBe(MAX_WAITING);
  });
});
