/**
 * Run by expr-budget.test.ts in a process of its own (`node --import tsx`), because an expression
 * without a budget never gives the event loop back: in the test's own process no timeout could
 * end the test. Applies the mapping (argv[2], YAML) to each record (argv[3], JSON) in turn and
 * prints the results: per record the wall time, the CPU time the process spent (which a busy
 * machine lowers, never raises, unlike the wall time) and how often a 5 ms timer fired while the
 * record was applied (an evaluation that held the event loop lets none fire); and the longest time
 * the event loop waited for a turn (a figure only: on a busy machine it grows with the load).
 */
import { compileMapping, type MappingContext } from '../../src/mapping/index.js';

const mapping = compileMapping(process.argv[2], 'budget.yaml');
const records = JSON.parse(process.argv[3]) as Record<string, unknown>[];
const ctx: MappingContext = { lookupReference: () => undefined };

let last = Date.now();
let maxGapMs = 0;
let ticks = 0;
const ticker = setInterval(() => {
  ticks++;
  const now = Date.now();
  maxGapMs = Math.max(maxGapMs, now - last);
  last = now;
}, 5);

const results = [];
for (const record of records) {
  const started = Date.now();
  const cpu = process.cpuUsage();
  const ticksBefore = ticks;
  const r = await mapping.apply(record, ctx);
  const used = process.cpuUsage(cpu);
  results.push({
    ms: Date.now() - started,
    cpuMs: (used.user + used.system) / 1000,
    ticks: ticks - ticksBefore,
    ok: r.ok,
    payload: r.ok ? r.payload : undefined,
    errors: r.ok ? [] : r.errors.map((e) => ({ code: e.code, field: e.field, message: e.message })),
  });
}
clearInterval(ticker);
maxGapMs = Math.max(maxGapMs, Date.now() - last);
process.stdout.write(JSON.stringify({ results, maxGapMs }));
