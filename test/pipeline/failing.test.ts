import { describe, expect, it } from 'vitest';
import { failingFirst, failingReasons, matchesStatus, parseStatusFilter, type PipelineFacts } from '../../src/pipeline/failing.js';
import { emptyCounts } from '../../src/state/index.js';

const NOW = Date.parse('2026-11-20T12:00:00Z');
const options = { now: NOW, staleAfterMinutes: 120 };
const run = (status: 'succeeded' | 'partial' | 'failed' | 'aborted' | 'crashed', failed = 0) => ({ id: 7, status, counts: { ...emptyCounts(), failed }, ...(status === 'failed' ? { error: { code: 'NETWORK_ERROR', message: 'unreachable' } } : {}) });
const facts = (over: Partial<PipelineFacts>): PipelineFacts => ({ name: 'products-at', deadLetters: 0, scheduled: true, lastSuccessAt: '2026-11-20T11:50:00Z', ...over });
const codes = (f: PipelineFacts) => failingReasons(f, options).map((r) => r.code);

describe('when a pipeline counts as failing', () => {
  it('is not failing after a clean run, after a run a person aborted, or before its first run', () => {
    expect(codes(facts({ lastFinished: run('succeeded') }))).toEqual([]);
    expect(codes(facts({ lastFinished: run('aborted') }))).toEqual([]);
    expect(codes(facts({ lastSuccessAt: undefined }))).toEqual([]);
  });

  it('is failing when its last run failed or crashed, naming the run and its error code', () => {
    expect(failingReasons(facts({ lastFinished: run('failed') }), options)).toEqual([{ code: 'run-failed', text: 'last run #7 failed [NETWORK_ERROR]' }]);
    expect(codes(facts({ lastFinished: run('crashed') }))).toEqual(['run-failed']);
  });

  it('is failing when its last run left records failed, and while dead letters wait', () => {
    expect(codes(facts({ lastFinished: run('partial', 3), deadLetters: 3 }))).toEqual(['records-failed', 'dead-letters']);
    expect(codes(facts({ lastFinished: run('succeeded'), deadLetters: 1 }))).toEqual(['dead-letters']);
  });

  it('is stale when scheduled and its last success is older than alerts.staleAfterMinutes; an unscheduled pipeline never is', () => {
    const old = '2026-11-20T09:00:00Z';
    expect(failingReasons(facts({ lastFinished: run('succeeded'), lastSuccessAt: old }), options)).toEqual([{ code: 'stale', text: 'no successful run for 180 min (stale after 120)' }]);
    expect(codes(facts({ lastFinished: run('succeeded'), lastSuccessAt: old, scheduled: false }))).toEqual([]);
  });

  it('is failing when the replicas gave up on its run job, whatever its last run said', () => {
    expect(failingReasons(facts({ lastFinished: run('succeeded'), jobFailing: 'connect ECONNREFUSED' }), options)).toEqual([{ code: 'job-failing', text: 'run job given up: connect ECONNREFUSED' }]);
  });
});

describe('an overdue or stuck lane', () => {
  const everyMinute = { expression: '* * * * *', timezone: 'UTC' };
  const at = (iso: string, f: Partial<PipelineFacts>) => failingReasons(facts(f), { now: Date.parse(iso), staleAfterMinutes: 120 }).map((r) => r.code);

  it('is overdue once three slots of its schedule passed without a run starting (each past a minute of grace), not before', () => {
    const f = { schedule: everyMinute, lastStartedAt: '2026-11-20T11:50:00.400Z', lastFinished: run('succeeded') };
    // Slots 11:51, 11:52 and 11:53 must each be over a minute old.
    expect(at('2026-11-20T11:53:59Z', f)).toEqual([]);
    expect(at('2026-11-20T11:54:00Z', f)).toEqual(['overdue']);
    // Every second: three seconds and the grace.
    expect(at('2026-11-20T11:51:03.300Z', { ...f, schedule: { expression: '* * * * * *' } })).toEqual(['overdue']);
  });

  it('counts the slots of the schedule, so a weekday schedule is not overdue over the weekend', () => {
    const workdays = { expression: '0 9-17 * * 1-5', timezone: 'Europe/Berlin' };
    // Friday 2026-11-20, 17:00 Berlin: the last slot of the week; Monday 09:00, 10:00 and 11:00 follow.
    const f = { schedule: workdays, lastStartedAt: '2026-11-20T16:00:01Z', lastFinished: run('succeeded'), lastSuccessAt: '2026-11-20T16:00:05Z' };
    expect(failingReasons(facts(f), { now: Date.parse('2026-11-23T08:30:00Z'), staleAfterMinutes: 1e9 })).toEqual([]);
    expect(failingReasons(facts(f), { now: Date.parse('2026-11-23T11:01:00Z'), staleAfterMinutes: 1e9 }).map((r) => r.code)).toEqual(['overdue']);
  });

  it('is never overdue without a schedule, and a paused shop\'s pipeline is paused, not overdue', () => {
    expect(at('2026-11-20T13:00:00Z', { scheduled: false, lastStartedAt: '2026-11-20T11:50:00Z', lastSuccessAt: undefined })).toEqual([]);
    expect(at('2026-11-20T13:00:00Z', { schedule: everyMinute, lastStartedAt: '2026-11-20T11:50:00Z', lastSuccessAt: undefined, shopPaused: { shop: 'at', pausedAt: NOW, reason: 'failing for days' } })).toEqual(['shop-paused']);
  });

  it('is stuck when a run still runs after three slots and no live process holds its lane; a run whose holder beats is only overdue', () => {
    const running = { id: 9, startedAt: '2026-11-20T11:50:00Z' };
    const base = { schedule: everyMinute, lastStartedAt: running.startedAt, lastSuccessAt: undefined };
    expect(at('2026-11-20T12:00:00Z', { ...base, running })).toEqual(['overdue', 'stuck']);
    expect(at('2026-11-20T12:00:00Z', { ...base, running: { ...running, holderBeatAt: '2026-11-20T11:56:00Z' } })).toEqual(['overdue', 'stuck']);
    expect(at('2026-11-20T12:00:00Z', { ...base, running: { ...running, holderBeatAt: '2026-11-20T11:59:50Z' } })).toEqual(['overdue']);
  });
});

describe('status filters and order', () => {
  it('reads failing, running, ok and "all" from a query string and refuses other words', () => {
    expect(parseStatusFilter('failing')).toBe('failing');
    expect(parseStatusFilter(undefined)).toBeUndefined();
    expect(parseStatusFilter('all')).toBeUndefined();
    expect(parseStatusFilter('broken')).toBe('invalid');
  });

  it('keeps failing ones for failing, the rest for ok, running ones for running', () => {
    const failingRunning = { failing: true, running: true };
    expect([matchesStatus('failing', failingRunning), matchesStatus('ok', failingRunning), matchesStatus('running', failingRunning), matchesStatus(undefined, failingRunning)]).toEqual([true, false, true, true]);
    expect(matchesStatus('ok', { failing: false, running: false })).toBe(true);
  });

  it('puts failing pipelines first and keeps the given order within each group', () => {
    const items = [{ n: 'a', failing: false }, { n: 'b', failing: true }, { n: 'c', failing: false }, { n: 'd', failing: true }];
    expect(failingFirst(items).map((i) => i.n)).toEqual(['b', 'd', 'a', 'c']);
  });
});
