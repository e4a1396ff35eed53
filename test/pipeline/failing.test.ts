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
