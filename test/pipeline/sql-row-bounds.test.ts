/**
 * A SQL row over maxRecordBytes (issue 42 item 9), end to end: the sync delivers the other rows,
 * ends `partial` with the row dead-lettered as SOURCE_RECORD_TOO_LARGE, and the letter holds only
 * the row's key and cursor, not its 2 MiB of text.
 */
import { afterEach, expect, it } from 'vitest';
import { startShopsync, type Shopsync } from '../dashboard/fixture.js';

let shopsync: Shopsync | undefined;
afterEach(async () => {
  await shopsync?.close();
  shopsync = undefined;
});

it('dead-letters a SQL row with 2 MiB of text as too large and delivers the rest', async () => {
  shopsync = await startShopsync();
  shopsync.erp.prepare('INSERT INTO articles VALUES (?, ?, ?, ?, ?, ?)').run('HUGE-1', 'h'.repeat(2 * 1024 * 1024), '1.00', 1, 'ACME', '2026-01-01T00:00:04Z');
  expect((await shopsync.run('manufacturers-push')).status).toBe('succeeded');
  const run = await shopsync.run('products-push');
  expect(run.status).toBe('partial');
  expect(run.counts.deadLettered).toBeGreaterThanOrEqual(1);
  const letter = await shopsync.state.deadLetters.getByKey('products-push', 'HUGE-1');
  expect(letter?.code).toBe('SOURCE_RECORD_TOO_LARGE');
  expect(letter?.record).toEqual({ sku: 'HUGE-1', updated_at: '2026-01-01T00:00:04Z' });
  expect(JSON.stringify(letter).length).toBeLessThan(4096);
  expect(await shopsync.state.refs.get('products', 'HAMMER-1')).toBeDefined();
  // The cursor went past it: the next sync does not read it again until the row changes.
  await shopsync.run('products-push');
  expect((await shopsync.state.deadLetters.getByKey('products-push', 'HUGE-1'))?.attempts).toBe(1);
});
