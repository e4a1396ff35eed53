import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { trackProgress } from '../../src/cli/progress.js';
import { SyncEvents } from '../../src/pipeline/index.js';

function stream(isTTY: boolean) {
  let text = '';
  const s = Object.assign(
    new Writable({
      write(chunk: Buffer, _e, cb) {
        text += chunk.toString();
        cb();
      },
    }),
    { isTTY, columns: 200, cursorTo: () => true, clearLine: () => true, moveCursor: () => true },
  );
  return { s, text: () => text };
}

function settle(events: SyncEvents, pipeline: string, outcome: 'created' | 'updated' | 'dead-lettered', n: number) {
  for (let i = 0; i < n; i++) events.emit({ type: 'record-settled', runId: 1, pipeline, resource: 'products', erpKey: `K${i}`, outcome, codes: [] });
}

describe('backfill progress', () => {
  it('draws a bar with percentage, counts and rate on a terminal, from checkpoints inside a date range', () => {
    const events = new SyncEvents();
    const term = stream(true);
    const done = trackProgress({ pipeline: 'products', events, from: '2026-01-01', to: '2026-01-11', logger: pino({ level: 'silent' }), terminal: term.s });
    settle(events, 'products', 'created', 7);
    settle(events, 'products', 'dead-lettered', 1);
    settle(events, 'other', 'created', 50);
    events.emit({ type: 'checkpoint', runId: 1, pipeline: 'products', lane: 'x', position: { value: '2026-01-06 00:00:00', key: 'K7' } });
    done();
    const out = term.text();
    expect(out).toContain('backfill products');
    expect(out).toContain('50%');
    expect(out).toContain('8 records');
    expect(out).toContain('created 7');
    expect(out).toContain('failed 1');
    expect(out).toMatch(/ETA/);
  });

  it('logs plain progress lines without a terminal, and no percentage when the range is not numeric', () => {
    const events = new SyncEvents();
    const lines: Record<string, unknown>[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _e, cb) {
          lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
          cb();
        },
      }),
    );
    const done = trackProgress({ pipeline: 'products', events, from: 'A-100', to: 'A-900', logger, logEverySec: 3600 });
    settle(events, 'products', 'updated', 3);
    done();
    const last = lines.at(-1)!;
    expect(last).toMatchObject({ msg: 'backfill progress', pipeline: 'products', records: 3, updated: 3 });
    expect(last).not.toHaveProperty('percent');
  });

  it('ends a backfill that read its whole range at 100 %, and an interrupted one where it stopped', () => {
    const run = (finished: boolean) => {
      const events = new SyncEvents();
      const lines: Record<string, unknown>[] = [];
      const logger = pino(
        { level: 'info' },
        new Writable({
          write(chunk: Buffer, _e, cb) {
            lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
            cb();
          },
        }),
      );
      const done = trackProgress({ pipeline: 'products', events, from: '2026-01-01', to: '2026-01-11', logger, logEverySec: 3600 });
      settle(events, 'products', 'updated', 2);
      events.emit({ type: 'checkpoint', runId: 1, pipeline: 'products', lane: 'x', position: { value: '2026-01-09 00:00:00', key: 'K1' } });
      done(finished);
      return lines.at(-1)!;
    };
    expect(run(true)).toMatchObject({ percent: 100 });
    expect(run(false)).toMatchObject({ percent: 80 });
  });
});
