/**
 * A replica frozen in the middle of a run (SIGSTOP) for longer than `replicas.deadAfterMs`, whose
 * PostgreSQL sessions the server ends meanwhile (here pg_terminate_backend of every session of
 * that process, as a failover, an administrator or a VM whose kernel froze too would; a stopped
 * process's kernel still answers TCP keepalives, so keepalive alone never ends them). The other
 * replica reaps it, takes the job and the lane, marks the run crashed and runs the lane. Then the
 * frozen replica is let go on (SIGCONT): its run must stop before writing anything more, leave the
 * taker's `crashed` in place (no second run of the lane overlapping in the runs table) and say in
 * its log that the run was taken over. And a daemon frozen across its state check's interval
 * answers its first /readyz after waking with a probe made then, not with the "ready" it found
 * before the freeze.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, runCli } from '../cli/support.js';
import { clientFor, shopRecords } from '../pipeline/support.js';
import { useSandbox } from '../support/sandbox.js';
import { sleep, until } from '../support/wait.js';
import { deployment, overlaps } from './fixture.js';
import { postgresAvailable, sql } from './support.js';

const PRODUCTS = 1200;
const HEARTBEAT_MS = 300;
const DEAD_AFTER_MS = 2500;

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });

/** The local TCP ports of a process's connections to PostgreSQL (as root, `ss` names each socket's process). */
function pgPortsOf(pid: number): number[] {
  const out = execFileSync('ss', ['-Htnp', 'state', 'established', '( dport = :5432 )'], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes(`pid=${pid},`))
    .map((line) => Number(/:(\d+)\s+\S+:5432\b/.exec(line)?.[1]))
    .filter((port) => Number.isInteger(port) && port > 0);
}

/** The server ends every session of that process. */
async function endSessionsOf(pid: number): Promise<number> {
  const ports = pgPortsOf(pid);
  if (ports.length === 0) return 0;
  const ended = await sql<{ n: string }>(`SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE client_port = ANY($1::int[]) AND pid <> pg_backend_pid()`, [ports]);
  return Number(ended[0]?.n ?? 0);
}

describe.skipIf(!postgresAvailable)('a replica frozen mid-run and woken after a takeover', () => {
  it('stops its run without another write, leaves the run crashed as the taker marked it, and logs the takeover', { timeout: 180_000 }, async () => {
    const d = await deployment(sandbox, { products: PRODUCTS, orders: 0, ordersPipeline: false, requestsPerSecond: 20, heartbeatMs: HEARTBEAT_MS, deadAfterMs: DEAD_AFTER_MS });
    const replicas = [await d.spawn('r1'), await d.spawn('r2')];
    const shop = clientFor(sandbox);
    try {
      const added = await runCli(['jobs', 'add', 'products', '--config', d.config], { env: d.env(), cwd: d.dir });
      expect(added.code, added.stderr).toBe(0);
      let frozenRun: { id: number; pid: number } | undefined;
      await until(async () => {
        const [run] = await d.state.runs.list({ pipeline: 'products', status: 'running', limit: 1 });
        if (run && run.counts.created >= 100 && run.pid !== undefined) frozenRun = { id: run.id, pid: run.pid };
        return frozenRun !== undefined;
      }, 60_000, 50);
      const victim = replicas.find((r) => r.proc.child.pid === frozenRun!.pid)!;
      const taker = replicas.find((r) => r !== victim)!;
      victim.proc.child.kill('SIGSTOP');
      expect(await endSessionsOf(frozenRun!.pid)).toBeGreaterThan(0);
      const createdWhenFrozen = (await d.state.runs.get(frozenRun!.id))!.counts.created;

      // The taker reaps the silent replica, takes the job and the lane, marks the run crashed and finishes the lane.
      await until(async () => (await d.runs('products')).some((r) => r.id > frozenRun!.id && r.status === 'succeeded'), 90_000, 200);
      const taken = (await d.state.runs.get(frozenRun!.id))!;
      expect(taken.status).toBe('crashed');
      const productsBefore = (await shopRecords(shop, 'products')).length;

      victim.proc.child.kill('SIGCONT');
      // The woken run ends one way or the other: taken over (as it must), or finished as if it were still its own.
      await victim.proc.waitFor(new RegExp(`"runId":${frozenRun!.id}[^\\n]*("msg":"run finished"|the run was taken over by another process)`), 60_000);
      await sleep(1000);

      const after = (await d.state.runs.get(frozenRun!.id))!;
      expect(after).toMatchObject({ status: 'crashed', finishedAt: taken.finishedAt });
      expect(after.owner).toMatch(new RegExp(`:${taker.proc.child.pid}:`));
      expect(after.counts.created).toBe(createdWhenFrozen);
      const runs = await d.runs('products');
      expect(runs.filter((r) => r.status === 'running')).toEqual([]);
      expect(overlaps(runs)).toEqual([]);
      const line = victim.proc.stdout().split('\n').find((l) => l.includes('the run was taken over by another process') && l.includes(`"runId":${frozenRun!.id}`))!;
      expect(JSON.parse(line)).toMatchObject({ level: 40, runId: frozenRun!.id, takenBy: after.owner, statusNow: 'crashed' });
      expect(victim.proc.stdout()).not.toMatch(new RegExp(`"runId":${frozenRun!.id}[^\\n]*"msg":"run finished"`));
      const products = await shopRecords(shop, 'products');
      expect(products.length).toBe(productsBefore);
      expect(new Set(products.map((p) => String(p.products_model))).size).toBe(PRODUCTS);
    } finally {
      for (const r of replicas) {
        r.proc.child.kill('SIGCONT');
        r.proc.child.kill('SIGTERM');
      }
      for (const r of replicas) await r.proc.exited;
      await shop.close();
      await d.close();
    }
  });

  it('answers its first /readyz after a freeze longer than the state check\'s interval with a probe made then', { timeout: 120_000 }, async () => {
    const d = await deployment(sandbox, { products: 10, orders: 0, ordersPipeline: false, requestsPerSecond: 100, heartbeatMs: 1000, deadAfterMs: 60_000 });
    const r = await d.spawn('r1');
    try {
      const before = await fetch(`${r.url}/readyz`);
      expect(before.status).toBe(200);
      r.proc.child.kill('SIGSTOP');
      // While it is frozen the state stops answering its check (its version table is gone).
      await sql(`ALTER TABLE "${d.schema}".schema_version RENAME TO schema_version_away`);
      // Longer than the check's interval (5 s), on a clock that runs on while the process is stopped.
      await sleep(6000);
      r.proc.child.kill('SIGCONT');
      const after = await fetch(`${r.url}/readyz`);
      const body = (await after.json()) as { status: string; checks: Record<string, { ok: boolean; detail: string }> };
      expect(after.status).toBe(503);
      expect(body.checks.state).toMatchObject({ ok: false, detail: expect.stringContaining('does not answer') });
      await sql(`ALTER TABLE "${d.schema}".schema_version_away RENAME TO schema_version`);
    } finally {
      r.proc.child.kill('SIGCONT');
      r.proc.child.kill('SIGTERM');
      await r.proc.exited;
      await d.close();
    }
  });
});
