import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pipelineStatus } from '../../src/cli/commands/status.js';
import type { PipelineConfig } from '../../src/config/index.js';
import { createScheduler, scheduleZone } from '../../src/scheduler/index.js';
import { openState, type StateStore } from '../../src/state/index.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

let state: StateStore;
beforeEach(async () => {
  state = await openState(':memory:');
});
afterEach(async () => {
  await state.close();
});

const pipeline = (name: string, timezone?: string) => ({ name, shop: 'default', direction: 'push', resource: 'products', schedule: '*/5 * * * *', ...(timezone ? { timezone } : {}) }) as unknown as PipelineConfig;

describe('the zone a schedule runs in', () => {
  it("is named the same by the scheduler's log and by status --json: the machine's resolved zone when none is set, never 'local'", async () => {
    const machine = Intl.DateTimeFormat().resolvedOptions().timeZone;
    expect(scheduleZone()).toBe(machine);
    for (const [defaultTz, own, expected] of [[undefined, undefined, machine], ['Europe/Berlin', undefined, 'Europe/Berlin'], ['Europe/Berlin', 'Asia/Tokyo', 'Asia/Tokyo']] as const) {
      const { lines, logger } = capture();
      const p = pipeline('products', own);
      const scheduler = createScheduler({ pipelines: [{ name: p.name, schedule: p.schedule!, ...(own ? { timezone: own } : {}) }], ...(defaultTz ? { timezone: defaultTz } : {}), logger, run: async () => undefined });
      scheduler.start();
      await scheduler.close();
      const logged = lines.find((l) => l.msg === 'scheduled')?.timezone;
      const status = await pipelineStatus(state, p, defaultTz);
      expect(logged, `${defaultTz}/${own}`).toBe(expected);
      expect(status.timezone, `${defaultTz}/${own}`).toBe(expected);
    }
  });
});
