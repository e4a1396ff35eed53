import { describe, expect, it } from 'vitest';
import { formatDateTime, sleep } from '../../src/util/time.js';

describe('time helpers', () => {
  it('formats a date as the UTC date-time text to the second', () => {
    expect(formatDateTime(new Date('2026-11-22T02:36:33.987+01:00'))).toBe('2026-11-22 01:36:33');
  });

  it('rejects a sleep with the abort reason when its signal aborts', async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    await expect(sleep(10, AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });
});
