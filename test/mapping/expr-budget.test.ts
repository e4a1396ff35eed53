/**
 * Every JSONata evaluation runs on a budget (issue 29, item 3): a recursive `expr` that never ends
 * fails its record with MAPPING_EXPR_BUDGET instead of freezing the process, the event loop keeps
 * turning meanwhile (timers, I/O, signals), and deep but legal expressions still work.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileMapping, type MappingContext, type MappingResult } from '../../src/mapping/index.js';
import { MappingFileError } from '../../src/mapping/problems.js';

const ctx: MappingContext = { lookupReference: () => undefined };
/** Tail-recursive, so JSONata runs it as a loop: it never grows a stack and never ends. */
const ENDLESS = '($f := function($x){ $f($x + 1) }; $f(1))';
/** Recursion without a base case that is not a tail call: the depth grows until something stops it. */
const BOTTOMLESS = '($f := function($x){ 1 + $f($x + 1) }; $f(1))';

function mappingYaml(expr: string, head = ''): string {
  return `name: budget\ndirection: erp-to-shop\ntarget: { resource: products, operation: upsert }\nkey: ARTNR\n${head}fields:\n  products_model: ARTNR\n  languages.de.products_name: { expr: ${JSON.stringify(expr)} }\n`;
}

interface ChildResult {
  readonly results: { ms: number; cpuMs: number; ticks: number; ok: boolean; payload?: Record<string, unknown>; errors: { code: string; field?: string; message: string }[] }[];
  readonly maxGapMs: number;
}

/** Apply the mapping to the records in a child process, killed after `timeoutMs` (a frozen process cannot time itself out). */
function applyInChild(yaml: string, records: readonly Record<string, unknown>[], timeoutMs: number): Promise<ChildResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'expr-budget.child.ts'), yaml, JSON.stringify(records)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the mapping was still being applied after ${timeoutMs} ms (killed)\n${err}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(out) as ChildResult);
      else reject(new Error(`exit ${code}\n${err}`));
    });
  });
}

function ok(result: MappingResult): Record<string, unknown> {
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
  return result.payload;
}

describe('the budget of an expression evaluation', { timeout: 60_000 }, () => {
  it('fails the record whose expression never ends with MAPPING_EXPR_BUDGET within the default second, maps the others, and lets the event loop turn', async () => {
    const yaml = mappingYaml(`Loop = 'yes' ? ${ENDLESS} : Name`);
    const records = [
      { ARTNR: 'A-1', Name: 'Tisch' },
      { ARTNR: 'A-2', Name: 'Stuhl', Loop: 'yes' },
      { ARTNR: 'A-3', Name: 'Lampe' },
    ];
    const { results, maxGapMs } = await applyInChild(yaml, records, 30_000);

    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    expect(results[0].payload).toEqual({ products_model: 'A-1', languages: { de: { products_name: 'Tisch' } } });
    expect(results[2].payload).toEqual({ products_model: 'A-3', languages: { de: { products_name: 'Lampe' } } });
    const [error] = results[1].errors;
    expect(error).toMatchObject({ code: 'MAPPING_EXPR_BUDGET', field: 'languages.de.products_name' });
    // Names the field and rule (with its line), the limit that was hit, and what to do.
    expect(error.message).toContain('field `languages.de.products_name`');
    expect(error.message).toContain('budget.yaml:7');
    expect(error.message).toContain('1000 ms');
    expect(error.message).toContain('expr_limits');
    expect(error.message).toMatch(/recursive function/);
    // The default budget is a second: stopped after it (wall time, which load only lengthens)…
    expect(results[1].ms).toBeGreaterThanOrEqual(1000);
    // …and not long after: the CPU it burnt is about the budget (a wall-clock upper bound would fail on a busy machine,
    // CPU time only shrinks there). One process, one evaluating thread: 2.5 s leaves room for GC threads, none for a second budget.
    expect(results[1].cpuMs).toBeLessThan(2500);
    // Without its pauses the evaluation held the loop for the whole second: no timer could have fired.
    expect(results[1].ticks).toBeGreaterThan(0);
    if (process.env.SHOW_FIGURES) console.info(`stopped after ${results[1].ms} ms (${Math.round(results[1].cpuMs)} ms CPU), ${results[1].ticks} timer turns, longest wait for a turn ${maxGapMs} ms`);
  });

  it('stops a recursion without a base case at the depth limit, long before the time budget', async () => {
    const { results } = await applyInChild(mappingYaml(BOTTOMLESS), [{ ARTNR: 'A-1' }], 30_000);
    expect(results[0].ok).toBe(false);
    expect(results[0].errors[0]).toMatchObject({ code: 'MAPPING_EXPR_BUDGET', field: 'languages.de.products_name' });
    // The depth limit stopped it, not the time budget (that message would read "stopped after 1000 ms"): no clock needed.
    expect(results[0].errors[0].message).toContain('evaluation depth 1000');
    expect(results[0].errors[0].message).not.toContain('ms (its time budget');
  });

  it('still evaluates deep but legal expressions: 300 nested calls, a tail recursion of 20000 steps, a $map over 20000 items', async () => {
    // Within the default depth; the time budget is the most a file may set, since how long 20000 steps take is the
    // machine's business (a busy one took more than the default second), not what this test is about.
    const roomy = 'expr_limits: { time_ms: 60000 }\n';
    const nested = compileMapping(mappingYaml('$string(($f := function($n){ $n <= 0 ? 0 : 1 + $f($n - 1) }; $f(300)))', roomy), 'budget.yaml');
    expect(ok(await nested.apply({ ARTNR: 'A' }, ctx)).languages).toEqual({ de: { products_name: '300' } });
    const loop = compileMapping(mappingYaml('$string(($f := function($n, $acc){ $n <= 0 ? $acc : $f($n - 1, $acc + 1) }; $f(20000, 0)))', roomy), 'budget.yaml');
    expect(ok(await loop.apply({ ARTNR: 'A' }, ctx)).languages).toEqual({ de: { products_name: '20000' } });
    const map = compileMapping(mappingYaml('$string($sum($map([1..20000], function($x){ $x * 2 })))', roomy), 'budget.yaml');
    expect(ok(await map.apply({ ARTNR: 'A' }, ctx)).languages).toEqual({ de: { products_name: String(20000 * 20001) } });
  });

  it('takes its limits from the mapping file’s `expr_limits`', async () => {
    const shallow = compileMapping(mappingYaml('$string(($f := function($n){ $n <= 0 ? 0 : 1 + $f($n - 1) }; $f(300)))', 'expr_limits: { depth: 100 }\n'), 'budget.yaml');
    const refused = await shallow.apply({ ARTNR: 'A' }, ctx);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.errors[0].message).toContain('evaluation depth 100 ');

    const quick = compileMapping(mappingYaml(ENDLESS, 'expr_limits: { time_ms: 150 }\n'), 'budget.yaml');
    const started = Date.now();
    const stopped = await quick.apply({ ARTNR: 'A' }, ctx);
    // The file's 150 ms, not the default second, is the limit the message names (the evidence; elapsed time is only a lower bound).
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(stopped.ok).toBe(false);
    if (!stopped.ok) expect(stopped.errors[0]).toMatchObject({ code: 'MAPPING_EXPR_BUDGET', message: expect.stringContaining('150 ms') });
  });

  it('keeps one account per evaluation: records mapped at the same time do not share a budget', async () => {
    // One compiled expression, evaluated for three records at once: the endless one is stopped,
    // the others finish with their values (a shared step or time account would fail them too).
    // 2000 steps took up to 410 ms on a machine under `stress --cpu 2` (their budget was 500 ms): 1000 steps in 1000 ms
    // keep them well inside their own budget at any load.
    const m = compileMapping(mappingYaml(`Loop = 'yes' ? ${ENDLESS} : $string(($f := function($n, $a){ $n <= 0 ? $a : $f($n - 1, $a + 1) }; $f(1000, 0)))`, 'expr_limits: { time_ms: 1000 }\n'), 'budget.yaml');
    const [first, looping, third] = await Promise.all([m.apply({ ARTNR: 'A' }, ctx), m.apply({ ARTNR: 'B', Loop: 'yes' }, ctx), m.apply({ ARTNR: 'C' }, ctx)]);
    expect(ok(first).languages).toEqual({ de: { products_name: '1000' } });
    expect(ok(third).languages).toEqual({ de: { products_name: '1000' } });
    expect(looping.ok).toBe(false);
    if (!looping.ok) expect(looping.errors[0].code).toBe('MAPPING_EXPR_BUDGET');
  });

  it('reports other failures of an expression as MAPPING_EXPR with JSONata’s message', async () => {
    const m = compileMapping(mappingYaml('$number("x") & ""'), 'budget.yaml');
    const r = await m.apply({ ARTNR: 'A' }, ctx);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors[0].code).toBe('MAPPING_EXPR');
      // JSONata throws plain objects: their message used to be lost ("[object Object]").
      expect(r.errors[0].message).toContain('the expression failed: Unable to cast value to a number: "x"');
    }
  });

  it('refuses `expr_limits` out of range, misspelt, or in a file without an expression', () => {
    const problems = (yaml: string) => {
      try {
        compileMapping(yaml, 'budget.yaml');
        return [];
      } catch (err) {
        if (!(err instanceof MappingFileError)) throw err;
        return err.problems.map((p) => `${p.code} ${p.message}`);
      }
    };
    expect(problems(mappingYaml(ENDLESS, 'expr_limits: { time_ms: 0 }\n')).join('\n')).toContain('MAPPING_SCHEMA');
    expect(problems(mappingYaml(ENDLESS, 'expr_limits: { depth: 1000000 }\n')).join('\n')).toContain('at most 100000');
    expect(problems(mappingYaml(ENDLESS, 'expr_limits: { time: 10 }\n')).join('\n')).toContain('MAPPING_SCHEMA');
    const plain = `name: budget\ndirection: erp-to-shop\ntarget: { resource: products, operation: upsert }\nkey: ARTNR\nexpr_limits: { time_ms: 100 }\nfields:\n  products_model: ARTNR\n`;
    expect(problems(plain)).toEqual([expect.stringMatching(/^MAPPING_RULE budget\.yaml:5:1: `expr_limits` .* has none/)]);
  });
});
