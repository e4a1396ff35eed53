import { describe, expect, it } from 'vitest';
import { analyseColumn } from '../../src/init/columns.js';
import { coalesceText, pickCursor, sourceQuery } from '../../src/init/cursor.js';
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
    expect(pickCursor(intro(rows), 'artnr', undefined)).toEqual({ cursor: 'geaendert', column: 'geaendert', note: 'geaendert looks like a change timestamp (created_timestamp only says when a row was created)' });
    const onlyCreated = intro(rows.map(({ geaendert: _g, ...r }) => r));
    expect(pickCursor(onlyCreated, 'artnr', undefined).note).toMatch(/^created_timestamp only says when a row was created, and no column records changes: runs see new rows only/);
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

describe('the cursor init proposes for the change columns real ERPs keep', () => {
  const stamp = (d: number) => `2026-02-0${d} 10:00:00`;
  const rows = (n: number, row: (i: number) => Record<string, unknown>) => Array.from({ length: n }, (_, k) => row(k + 1));

  it.each([
    { erp: 'Odoo', change: 'write_date', created: 'create_date', key: 'default_code' },
    { erp: 'ERPNext', change: 'modified', created: 'creation', key: 'item_code' },
    { erp: 'Dolibarr', change: 'tms', created: 'datec', key: 'ref' },
    { erp: 'a Rails app', change: 'updated_at', created: 'created_at', key: 'sku' },
    { erp: 'a German ERP', change: 'letzte_aenderung', created: 'angelegt_am', key: 'artnr' },
  ])('takes $erp\'s $change over the creation date $created, listed first', ({ change, created, key }) => {
    const c = pickCursor(intro(rows(4, (i) => ({ [key]: `A-${i}`, [created]: stamp(1), [change]: stamp(i + 1) }))), key, undefined);
    expect(c).toEqual({ cursor: change, column: change, note: `${change} looks like a change timestamp (${created} only says when a row was created)` });
  });

  it('reads Tryton\'s write_date, NULL on rows never edited, through COALESCE with create_date', () => {
    const c = pickCursor(intro(rows(4, (i) => ({ id: i, code: `A-${i}`, create_date: stamp(1), write_date: i % 2 ? null : stamp(i + 1) }))), 'code', undefined);
    expect(c).toMatchObject({ cursor: 'shopsync_changed', column: 'write_date', coalesce: { column: 'write_date', fallback: { column: 'create_date' } } });
    expect(c.note).toContain('so the query selects COALESCE(write_date, create_date) AS shopsync_changed');
    expect(c.note).not.toContain('only timestamp');
  });

  it('takes the latest of several change columns (a query joining tables) through GREATEST, each with its own creation date and a first-sorting constant', () => {
    const c = pickCursor(intro(rows(4, (i) => ({ code: `A-${i}`, create_date: stamp(1), write_date: i === 2 ? null : stamp(i + 1), template_create_date: stamp(1), template_write_date: stamp(i + 2) }))), 'code', undefined);
    expect(c.cursor).toBe('shopsync_changed');
    expect(c.coalesce && coalesceText(c.coalesce)).toBe("GREATEST(COALESCE(write_date, create_date, '1970-01-01 00:00:00'), COALESCE(template_write_date, template_create_date, '1970-01-01 00:00:00'))");
    expect(c.note).toMatch(/^write_date and template_write_date look like change timestamps: a row counts as changed when any of them moves, so the query selects GREATEST\(/);
    expect(sourceQuery('sqlite', { query: 'SELECT * FROM v' }, c.coalesce)).toBe(`SELECT shopsync_s.*, max(COALESCE("write_date", "create_date", '1970-01-01 00:00:00'), COALESCE("template_write_date", "template_create_date", '1970-01-01 00:00:00')) AS shopsync_changed FROM (SELECT * FROM v) shopsync_s`);
    expect(sourceQuery('postgres', { query: 'SELECT * FROM v' }, c.coalesce)).toBe(`SELECT shopsync_s.*, GREATEST(COALESCE("write_date", "create_date", '1970-01-01 00:00:00'), COALESCE("template_write_date", "template_create_date", '1970-01-01 00:00:00')) AS shopsync_changed FROM (SELECT * FROM v) shopsync_s`);
  });

  it('never calls a timestamp "the only timestamp" when there are others, and says a creation date sees new rows only', () => {
    const onlyCreated = pickCursor(intro(rows(3, (i) => ({ code: `A-${i}`, create_date: stamp(i) }))), 'code', undefined);
    expect(onlyCreated.note).toBe('create_date only says when a row was created, and no column records changes: runs see new rows only, never changed ones. Add a column the ERP sets on every change (write_date, updated_at) and give it as --cursor');
    const two = pickCursor(intro(rows(3, (i) => ({ code: `A-${i}`, gueltig_ab: stamp(i), gebucht: stamp(i + 1) }))), 'code', undefined);
    expect(two.note).toBe('gueltig_ab is the first of 2 timestamps (gueltig_ab, gebucht), none named like a change time; make sure the ERP sets it on every change, or give --cursor');
  });
});
