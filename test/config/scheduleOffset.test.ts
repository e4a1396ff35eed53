/** A shop's scheduleOffsetSeconds moved into a template's cron expression. */
import { describe, expect, it } from 'vitest';
import { offsetSchedule, ScheduleOffsetError } from '../../src/config/scheduleOffset.js';

describe('offsetSchedule', () => {
  it('puts an offset under a minute into the seconds field', () => {
    expect(offsetSchedule('*/5 * * * *', 20)).toBe('20 */5 * * * *');
    expect(offsetSchedule('0 3 * * *', 45)).toBe('45 0 3 * * *');
    expect(offsetSchedule('*/5 * * * *', 0)).toBe('*/5 * * * *');
  });

  it('moves a stepped or listed minute field by the whole minutes', () => {
    expect(offsetSchedule('*/5 * * * *', 140)).toBe('20 2-59/5 * * * *');
    expect(offsetSchedule('*/5 * * * *', 300)).toBe('0 0-59/5 * * * *');
    expect(offsetSchedule('0,30 * * * *', 600)).toBe('0 10,40 * * * *');
    expect(offsetSchedule('10 * * * * *', 15)).toBe('25 * * * * *');
  });

  it('refuses an offset that would carry a fixed minute into the next hour, saying what to write instead', () => {
    expect(() => offsetSchedule('55 3 * * *', 600)).toThrow(ScheduleOffsetError);
    expect(() => offsetSchedule('55 3 * * *', 600)).toThrow(/without crossing the hour.*write this shop's schedule under templates:/);
    expect(() => offsetSchedule('50 * * * * *', 15)).toThrow(/within the minute/);
  });
});
