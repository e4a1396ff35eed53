/** What counts as a change of a followed order, by the registry's FollowDef of orders. */
import { describe, expect, it } from 'vitest';
import { changesSince, FOLLOW_CHANGES_FIELD, placedDayOf, snapshotOf, withChanges } from '../../src/follow/changes.js';
import { getResource } from '../../src/shop/registry/index.js';

const def = getResource('orders').follow!;
const statuses = { cancelled: [4], returned: [5] };
const AT = '2026-12-02T10:00:00.000Z';

const entry = (status: number, comments = '', date = '2026-11-29 10:00:00') => ({ orders_status_id: status, comments, date_added: date });
const base = () => ({
  orders_id: 7,
  date_purchased: '2026-11-29 09:30:00',
  orders_status: 1,
  status_history: [entry(1)],
  tracking: [] as Record<string, unknown>[],
  billing: { firstname: 'A', city: 'Berlin' },
  delivery: { firstname: 'A', city: 'Berlin' },
  products: [{ products_id: 1, quantity: 1 }],
});

describe('follow changes', () => {
  it('finds nothing in a record read again as it was delivered', () => {
    const r = base();
    expect(changesSince(def, statuses, r, snapshotOf(def, r), 0, AT)).toEqual([]);
  });

  it('numbers a cancellation after the record\'s last change and says the status before it', () => {
    const r = base();
    const before = snapshotOf(def, r);
    const cancelled = { ...r, orders_status: 4, status_history: [...r.status_history, entry(4, 'customer called', '2026-12-01 08:00:00')] };
    expect(changesSince(def, statuses, cancelled, before, 3, AT)).toEqual([
      { seq: 4, kind: 'cancelled', status: 4, previous_status: 1, comment: 'customer called', history_at: '2026-12-01 08:00:00', detected_at: AT },
    ]);
  });

  it('tells a status change, a comment on the same status and a returned status apart, one change per new log entry', () => {
    const r = base();
    const before = snapshotOf(def, r);
    const later = { ...r, orders_status: 5, status_history: [...r.status_history, entry(2), entry(2, 'paid'), entry(3), entry(5)] };
    const kinds = changesSince(def, statuses, later, before, 0, AT).map((c) => [c.seq, c.kind, c.previous_status, c.status]);
    expect(kinds).toEqual([[1, 'status', 1, 2], [2, 'comment', 2, 2], [3, 'status', 2, 3], [4, 'return', 3, 5]]);
  });

  it('reads a new tracking entry flagged is_retoure as a return, and one without the flag as tracking', () => {
    const r = { ...base(), tracking: [{ code: 'P1', service_provider: 'DHL' }] };
    const before = snapshotOf(def, r);
    const later = { ...r, tracking: [...r.tracking, { tracking_number: 'R9', method: 'DHL Retoure', is_retoure: true }, { code: 'P2', service_provider: 'UPS' }] };
    expect(changesSince(def, statuses, later, before, 1, AT).map((c) => [c.seq, c.kind, c.tracking_code, c.service_provider])).toEqual([
      [2, 'return', 'R9', 'DHL Retoure'],
      [3, 'tracking', 'P2', 'UPS'],
    ]);
  });

  it('names the address block that changed, and sees changed items', () => {
    const r = base();
    const before = snapshotOf(def, r);
    const later = { ...r, delivery: { firstname: 'A', city: 'Hamburg' }, products: [{ products_id: 1, quantity: 2 }] };
    expect(changesSince(def, statuses, later, before, 0, AT).map((c) => [c.kind, c.field])).toEqual([['address', 'delivery'], ['items', undefined]]);
  });

  it('sees a status set without a log entry', () => {
    const r = base();
    expect(changesSince(def, statuses, { ...r, orders_status: 4 }, snapshotOf(def, r), 0, AT)).toEqual([{ seq: 1, kind: 'cancelled', status: 4, previous_status: 1, detected_at: AT }]);
  });

  it('gives the mapping every change under _changes and the placement day from date_purchased', () => {
    // Without changes the record maps as without follow (same hash: nothing re-delivered when follow is turned on).
    expect(withChanges({ a: 1 }, [])).toEqual({ a: 1 });
    const change = { seq: 1, kind: 'status' as const, status: 2, detected_at: AT };
    expect(withChanges({ a: 1 }, [change])).toEqual({ a: 1, [FOLLOW_CHANGES_FIELD]: [change] });
    expect(FOLLOW_CHANGES_FIELD).toBe('_changes');
    expect(placedDayOf(def, base())).toBe('2026-11-29');
    expect(placedDayOf(def, { orders_id: 1 })).toBeUndefined();
  });
});
