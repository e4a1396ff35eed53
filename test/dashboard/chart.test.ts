import { describe, expect, it } from 'vitest';
import { minuteChart, niceCeil } from '../../src/dashboard/chart.js';
import { toMinutePoints } from '../../src/dashboard/pages/charts.js';

describe('charts', () => {
  it('rounds the scale up to 1, 2 or 5 times a power of ten', () => {
    expect([0, 1, 3, 7, 12, 230, 5000].map(niceCeil)).toEqual([1, 1, 5, 10, 20, 500, 5000]);
  });

  it('folds outcome counts into records and errors per minute', () => {
    const points = toMinutePoints([
      { minute: '2026-11-22T10:00:00.000Z', outcome: 'created', count: 5 },
      { minute: '2026-11-22T10:00:00.000Z', outcome: 'dead-lettered', count: 2 },
      { minute: '2026-11-22T10:01:00.000Z', outcome: 'unchanged', count: 4 },
    ]);
    expect(points).toEqual([
      { minute: Date.parse('2026-11-22T10:00:00Z'), records: 7, errors: 2 },
      { minute: Date.parse('2026-11-22T10:01:00Z'), records: 4, errors: 0 },
    ]);
  });

  it('draws an area for records, a bar per minute with errors, hour labels and hourly totals on hover', () => {
    const from = Date.parse('2026-11-21T12:00:00Z');
    const to = from + 24 * 3_600_000;
    const svg = minuteChart([{ minute: from + 60_000 * 90, records: 40, errors: 3 }, { minute: from + 60_000 * 200, records: 10, errors: 1 }], from, to, 'p: <chart>').value;
    expect(svg.match(/<rect class="errbar"/g)).toHaveLength(2);
    expect(svg).toContain('<path class="records"');
    expect(svg).toContain('>50</text>');
    expect(svg).toContain('>15:00</text>');
    expect(svg).toContain('aria-label="p: &lt;chart&gt;"');
    expect(svg).toContain('<title>13:00–14:00 UTC: 40 records, 3 errors</title>');
  });
});
