import { describe, expect, it } from 'vitest';
import { analyseColumn } from '../../src/init/columns.js';
import { pickCursor, sourceQuery } from '../../src/init/cursor.js';
import type { CoalescedCursor, Introspection } from '../../src/init/types.js';

function intro(rows: Record<string, unknown>[], declared: Record<string, string> = {}): Introspection {
  const names = Object.keys(rows[0] ?? {});
  const columns = names.map((n) => analyseColumn(n, rows.map((r) => r[n]), declared[n] ? { declaredType: declared[n] } : {}));
  return { rows: rows.length, columns };
}

const articles = (change: (i: number) => unknown, extra: (i: number) => Record<string, unknown> = () => ({})) =>
  [1, 2, 3, 4].map((i) => ({ artnr: `A-${i}`, ...extra(i), geaendert: change(i) }));

describe('the cursor init proposes', () => {
  it('keeps a change column with a few NULLs as the cursor, read through COALESCE with the created-at column, and says how many rows are NULL', () => {
    const c = pickCursor(intro(articles((i) => (i === 3 ? null : `2026-02-0${i} 10:00:00`), () => ({ angelegt: '2026-01-01 08:00:00' }))), 'artnr', undefined);
    expect(c).toMatchObject({ cursor: 'shopsync_changed', column: 'geaendert', coalesce: { column: 'geaendert', alias: 'shopsync_changed', fallback: { column: 'angelegt' }, kind: 'datetime', nulls: 1, rows: 4 } });
    expect(c.note).toBe(
      'geaendert looks like a change timestamp, but 1 of 4 sampled rows has no geaendert (NULL), and a run refuses a row without a cursor value; so the query selects COALESCE(geaendert, angelegt) AS shopsync_changed and that is the cursor: a row without geaendert counts as changed when it was created (angelegt), and is read again once the ERP sets geaendert. For a large table, index (COALESCE(geaendert, angelegt), artnr) so pages need no sort (docs/init.md)',
    );
  });

  it('falls back to a constant of the change column\'s kind that sorts first when no column says when a row was created, and says what that costs', () => {
    const dated = pickCursor(intro(articles((i) => (i === 1 ? null : `2026-02-0${i} 10:00:00`))), 'artnr', undefined);
    expect(dated.coalesce?.fallback).toEqual({ constant: '1970-01-01 00:00:00' });
    expect(dated.note).toContain("COALESCE(geaendert, '1970-01-01 00:00:00') AS shopsync_changed");
    expect(dated.note).toContain('a row added later without geaendert waits until geaendert is set');
    const counted = pickCursor(intro([1, 2, 3].map((i) => ({ id: i, rowversion: i === 2 ? null : i * 10 }))), 'id', undefined);
    expect(counted).toMatchObject({ cursor: 'shopsync_changed', coalesce: { column: 'rowversion', fallback: { constant: 0 }, kind: 'integer' } });
  });

  it('prefers a change column without NULLs, and never takes a created-at column for one that records changes', () => {
    const rows = articles((i) => `2026-02-0${i} 10:00:00`, () => ({ created_timestamp: '2026-01-01 08:00:00' }));
    expect(pickCursor(intro(rows), 'artnr', undefined)).toEqual({ cursor: 'geaendert', column: 'geaendert', note: 'geaendert looks like a change timestamp' });
    const onlyCreated = intro(rows.map(({ geaendert: _g, ...r }) => r));
    expect(pickCursor(onlyCreated, 'artnr', undefined).note).toBe('created_timestamp is the only timestamp; make sure the ERP sets it on every change, or give --cursor');
  });

  it('does not propose a change column that is NULL in every sampled row', () => {
    const c = pickCursor(intro(articles(() => null), { geaendert: 'TIMESTAMP' }), 'artnr', undefined);
    expect(c.cursor).toBe('artnr');
    expect(c.note).toContain('no column records changes');
  });

  it('reads a --cursor column with NULLs through COALESCE too, and picks another alias when the source has a shopsync_changed column', () => {
    const rows = articles((i) => (i === 4 ? null : `2026-02-0${i} 10:00:00`), () => ({ shopsync_changed: 'x' }));
    const c = pickCursor(intro(rows), 'artnr', 'geaendert');
    expect(c).toMatchObject({ cursor: 'shopsync_changed_2', column: 'geaendert', coalesce: { alias: 'shopsync_changed_2' } });
    expect(c.note).toMatch(/^given, but 1 of 4 sampled rows has no geaendert \(NULL\)/);
    expect(() => pickCursor(intro(rows), 'artnr', 'geandert')).toThrow('--cursor geandert: no such column');
  });
});

describe('the source query init writes', () => {
  const withCreated: CoalescedCursor = { column: 'geaendert', alias: 'shopsync_changed', fallback: { column: 'angelegt' }, kind: 'datetime', nulls: 3, rows: 199 };
  const withConstant: CoalescedCursor = { ...withCreated, fallback: { constant: '1970-01-01 00:00:00' }, declaredType: 'datetime' };

  it('selects the table whole when the cursor needs no COALESCE', () => {
    expect(sourceQuery('postgres', { table: 'erp.artikel' }, undefined)).toBe('SELECT * FROM "erp"."artikel"');
    expect(sourceQuery('sqlite', { query: 'SELECT * FROM v' }, undefined)).toBe('SELECT * FROM v');
  });

  it('selects the COALESCE under its alias, in each dialect\'s quoting and with the constant in the column\'s type', () => {
    expect(sourceQuery('postgres', { table: 'artikel' }, withCreated)).toBe('SELECT *, COALESCE("geaendert", "angelegt") AS shopsync_changed FROM "artikel"');
    expect(sourceQuery('mysql', { table: 'artikel' }, withCreated)).toBe('SELECT *, COALESCE(`geaendert`, `angelegt`) AS shopsync_changed FROM `artikel`');
    expect(sourceQuery('sqlite', { table: 'artikel' }, withConstant)).toBe(`SELECT *, COALESCE("geaendert", '1970-01-01 00:00:00') AS shopsync_changed FROM "artikel"`);
    // MariaDB would make COALESCE(datetime, '…') a text value; the cast keeps it a DATETIME.
    expect(sourceQuery('mysql', { table: 'artikel' }, withConstant)).toBe("SELECT *, COALESCE(`geaendert`, CAST('1970-01-01 00:00:00' AS DATETIME)) AS shopsync_changed FROM `artikel`");
  });

  it('wraps a SELECT of the person\'s own to add the COALESCE', () => {
    expect(sourceQuery('postgres', { query: 'SELECT a.* FROM artikel a WHERE a.web = 1;' }, withCreated)).toBe('SELECT shopsync_s.*, COALESCE("geaendert", "angelegt") AS shopsync_changed FROM (SELECT a.* FROM artikel a WHERE a.web = 1) shopsync_s');
  });
});
