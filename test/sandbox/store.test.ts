/**
 * The sandbox's record store pages an export by offset as the API says; a client reading page after
 * page gets every matching record once, also when records are written between its pages.
 */
import { describe, expect, it } from 'vitest';
import { createRecordStore, openDatabase } from '../../src/sandbox/store.js';

function store() {
  return createRecordStore(openDatabase(':memory:'));
}

const where = [{ field: 'kind', op: '=', value: 'a' }] as const;
const ids = (s: ReturnType<typeof store>, offset: number, limit = 3) => s.list('things', { where, offset, limit }).records.map((r) => r.id);

describe('sandbox record store', () => {
  it('pages a filtered list by offset, page after page, with its total', () => {
    const s = store();
    for (let i = 1; i <= 10; i++) s.put('things', i, { id: i, kind: i % 2 === 0 ? 'a' : 'b' });
    expect([ids(s, 0), ids(s, 3)]).toEqual([
      [2, 4, 6],
      [8, 10],
    ]);
    expect(s.list('things', { where, offset: 3, limit: 3 }).total).toBe(5);
  });

  it('sees a record written between two pages, and one deleted, as an offset read would', () => {
    const s = store();
    for (let i = 1; i <= 10; i++) s.put('things', i, { id: i, kind: 'a' });
    expect(ids(s, 0)).toEqual([1, 2, 3]);
    s.delete('things', 2);
    s.put('things', 11, { id: 11, kind: 'a' });
    expect(ids(s, 3)).toEqual([5, 6, 7]);
    expect(s.list('things', { where, offset: 3, limit: 3 }).total).toBe(10);
    expect(ids(s, 6)).toEqual([8, 9, 10]);
    // Asked again from the start (another client, a retry), the pages are the same.
    expect([ids(s, 0), ids(s, 3)]).toEqual([
      [1, 3, 4],
      [5, 6, 7],
    ]);
  });
});
