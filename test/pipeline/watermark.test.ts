import { describe, expect, it } from 'vitest';
import { LowWaterMark } from '../../src/pipeline/watermark.js';

const pos = (n: number) => ({ value: n, key: String(n) });

describe('low-water mark', () => {
  it('starts at the stored cursor', () => {
    expect(new LowWaterMark(pos(7)).position).toEqual(pos(7));
    expect(new LowWaterMark().position).toBeUndefined();
  });

  it('never passes a record still in flight when later ones settle first', () => {
    const wm = new LowWaterMark();
    const seqs = [1, 2, 3, 4, 5].map((n) => wm.track(pos(n)));
    expect(wm.settle(seqs[1]!)).toBe(false);
    expect(wm.settle(seqs[2]!)).toBe(false);
    expect(wm.position).toBeUndefined();
    expect(wm.settle(seqs[0]!)).toBe(true);
    expect(wm.position).toEqual(pos(3));
    expect(wm.inFlight).toBe(2);
    wm.settle(seqs[4]!);
    expect(wm.position).toEqual(pos(3));
    wm.settle(seqs[3]!);
    expect(wm.position).toEqual(pos(5));
    expect(wm.inFlight).toBe(0);
  });

  it('ignores a record settled twice', () => {
    const wm = new LowWaterMark();
    const a = wm.track(pos(1));
    expect(wm.settle(a)).toBe(true);
    expect(wm.settle(a)).toBe(false);
  });

  it('keeps its memory bounded over a long run', () => {
    const wm = new LowWaterMark();
    for (let i = 0; i < 20_000; i++) wm.settle(wm.track(pos(i)));
    expect(wm.position).toEqual(pos(19_999));
    expect((wm as unknown as { slots: unknown[] }).slots.length).toBeLessThan(8_200);
  });
});
