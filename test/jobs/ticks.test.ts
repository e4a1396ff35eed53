/**
 * One scheduled tick is one run, however many replicas tick it. Three `shopsync run` replicas (separate
 * processes, one PostgreSQL state) keep their own clocks on an every-second schedule; a tick reaches
 * all three within milliseconds, and before the claims each of them could add its own run once the
 * first one's job had started. The schedule here fires for 20 consecutive seconds and then pauses
 * for 40, so the count of runs can be settled while nothing ticks: the runs table must show one run
 * per tick, except ticks that arrived while a run of the lane still waited, which are skipped, logged
 * and counted in `shopsync_skipped_ticks_total` (and none are lost).
 *
 * Nothing here depends on how fast the machine is: a replica that comes up late only ticks fewer of
 * the burst's ticks (the test needs a few ticks all three saw, and says so if the lead was too
 * short), and how many ticks a busy machine folds is not asserted, only that each folded tick's
 * job ran after it.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ensureBuilt } from '../cli/support.js';
import { useSandbox } from '../support/sandbox.js';
import { sleep, until } from '../support/wait.js';
import { deployment, overlaps } from './fixture.js';
import { postgresAvailable, sql } from './support.js';

const TICKS = 20;
/** Time for three replicas to start before the first tick of the burst (they usually need 2–8 s; a later start costs ticks, not the test). */
const LEAD_MS = 12_000;
/** Ticks of the burst that must come after all three replicas serve: the test is about replicas ticking together. */
const SHARED_TICKS = 5;

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });

/** A seconds field that fires on `TICKS` consecutive seconds from `first` (wrapping into the next minute as a list). */
function burst(first: Date): string {
  const s = first.getUTCSeconds();
  return Array.from({ length: TICKS }, (_, i) => (s + i) % 60).join(',');
}

async function skippedTicks(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('shopsync_skipped_ticks_total{') && l.includes('pipeline="products"'))
    .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}

describe.skipIf(!postgresAvailable)('scheduled ticks across replicas', () => {
  it('runs each tick of three replicas ticking together exactly once, and counts the ticks it skips', { timeout: 180_000 }, async () => {
    const first = new Date(Math.ceil((Date.now() + LEAD_MS) / 1000) * 1000);
    const last = new Date(first.getTime() + (TICKS - 1) * 1000);
    const d = await deployment(sandbox, { products: 30, orders: 0, requestsPerSecond: 60, heartbeatMs: 500, deadAfterMs: 5000, schedule: `${burst(first)} * * * * *`, ordersPipeline: false });
    try {
      const replicas = await Promise.all(['t1', 't2', 't3'].map((n) => d.spawn(n)));
      // Ticks from here on reach all three; the ones before reached those already up (or none).
      const allUp = Date.now();
      const shared = Array.from({ length: TICKS }, (_, i) => first.getTime() + i * 1000).filter((t) => t > allUp);
      expect(shared.length, `ticks of the burst all three replicas saw (they served ${allUp - first.getTime()} ms after its first tick: raise LEAD_MS)`).toBeGreaterThanOrEqual(SHARED_TICKS);
      // The burst, then until every job of it has run (the next burst is 40 s away).
      await sleep(last.getTime() - Date.now() + 500);
      const jobs = pg.escapeIdentifier(`${d.schema}_jobs`);
      await until(async () => (await sql(`SELECT 1 FROM ${jobs}.jobs`)).length === 0 && (await d.state.runs.list({ status: 'running', limit: 5 })).length === 0, 30_000, 100).catch(async (err: unknown) => {
        const queues = await sql(`SELECT queue_name, locked_at, locked_by FROM ${jobs}._private_job_queues`);
        const logs = replicas.map((r) => `--- ${r.name}\n${(r.proc.stdout() + r.proc.stderr()).split('\n').slice(-15).join('\n')}`).join('\n');
        throw new Error(`jobs left after the burst: ${JSON.stringify(await sql(`SELECT id, key, attempts, last_error, locked_by, run_at, flags FROM ${jobs}._private_jobs`))}; queues ${JSON.stringify(queues)}; runs ${JSON.stringify((await d.runs('products')).map((r) => [r.id, r.status, r.startedAt, r.error]))}\n${logs}`, { cause: err });
      });
      const skipped = (await Promise.all(replicas.map((r) => skippedTicks(r.url)))).reduce((a, b) => a + b, 0);
      for (const r of replicas) r.proc.child.kill('SIGTERM');
      for (const r of replicas) expect((await r.proc.exited).code).toBe(0);

      const claims = await sql<{ tick: Date; claimed_by: string; outcome: string | null }>(`SELECT tick, claimed_by, outcome FROM ${jobs}.ticks WHERE job = 'products' AND tick BETWEEN $1 AND $2 ORDER BY tick`, [first, last]);
      // Every tick of the burst claimed once: none lost, none twice (the claims' key is (job, tick)); those before all
      // three were up only if a replica was up to claim them.
      const claimed = claims.map((c) => c.tick.getTime());
      expect(claimed.filter((t) => t >= shared[0]!)).toEqual(shared);
      expect(claimed.filter((t) => t < first.getTime() || t > last.getTime())).toEqual([]);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(claims.filter((c) => c.outcome === null), 'a claimed tick that added no job and was not recorded as skipped').toEqual([]);
      const ran = claims.filter((c) => c.outcome === 'added').length;
      const folded = claims.filter((c) => c.outcome !== 'added').length;

      // The runs table is the witness: one run per tick that added a job, none before the burst, never two at once.
      const runs = await d.runs('products');
      expect(runs.filter((r) => Date.parse(r.startedAt) < first.getTime())).toEqual([]);
      expect(runs.filter((r) => r.status !== 'succeeded').map((r) => `#${r.id} ${r.status}`)).toEqual([]);
      expect(runs).toHaveLength(ran);
      expect(runs.length + folded).toBe(claims.length);
      expect(overlaps(runs)).toEqual([]);
      // Skipped ticks are not silent: each is in the metric of the replica that claimed it.
      expect(skipped).toBe(claims.filter((c) => c.outcome === 'coalesced').length);
      // How many fold depends on how long a run takes here; that none is lost does not: a folded tick joined a job
      // that waited, and that job ran, so some run started at or after every folded tick.
      expect(ran).toBeGreaterThan(0);
      const lastStart = Math.max(...runs.map((r) => Date.parse(r.startedAt)));
      expect(claims.filter((c) => c.outcome !== 'added' && c.tick.getTime() > lastStart).map((c) => c.tick.toISOString()), 'folded ticks with no run after them').toEqual([]);
      if (process.env.SHOW_FIGURES) {
        const by = new Map<string, number>();
        for (const c of claims) by.set(c.claimed_by, (by.get(c.claimed_by) ?? 0) + 1);
        console.info(`${TICKS} ticks: ${ran} runs, ${folded} skipped; claimed by ${[...by].map(([k, v]) => `${k} ${v}`).join(', ')}; runs on pids ${[...new Set(runs.map((r) => r.pid))].join(', ')}`);
      }
    } finally {
      await d.close();
    }
  });
});
