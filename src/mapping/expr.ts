/**
 * The JSONata escape hatch. Expressions are compiled once at load; evaluation is asynchronous in
 * jsonata 2.x, so only mappings that use `expr` pay for it (their `apply` resolves expressions in
 * a first pass and then runs the synchronous rules once more with the results cached).
 *
 * Every evaluation runs on a budget (issue 29): a recursive function that never ends
 * (`($f := function($x){ $f($x + 1) }; $f(1))` — JSONata turns its tail call into a loop, so it
 * neither grows a stack nor ends) used to run forever in microtasks, starving the event loop so
 * that not even SIGTERM was handled. Now such an evaluation fails its record with
 * MAPPING_EXPR_BUDGET, and while any evaluation runs it lets the event loop turn every few
 * milliseconds (timers, I/O, signals, health checks).
 */
import { createRequire } from 'node:module';
import type jsonataType from 'jsonata';
import { PENDING, type CompiledExpression, type ExprRuntime } from './env.js';
import type { Scope } from './paths.js';
import type { MappingContext } from './types.js';

/** Limits of one evaluation of one expression (one rule applied to one record or list entry). */
export interface ExprLimits {
  /** Milliseconds the evaluation may run, not counting the pauses in which it lets the event loop turn. */
  readonly timeMs: number;
  /** JSONata's evaluation depth: nested sub-expressions, about three per level of a (non-tail) recursive call. */
  readonly depth: number;
}

/**
 * The defaults (the mapping file's `expr_limits` overrides them). An expression in a mapping takes
 * microseconds to a few milliseconds per record, so a second is hundreds of times what a sane one
 * needs, yet a runaway costs one second per record, not the process. A depth of 1000 allows
 * about 330 nested calls of a recursive function (a walk down a category path or along a
 * string is far less) and stops a recursion without a base case within milliseconds, before its
 * pending frames take noticeable memory.
 */
export const DEFAULT_EXPR_LIMITS: ExprLimits = { timeMs: 1000, depth: 1000 };

/** The most expression work that runs before the event loop gets a turn. */
const SLICE_MS = 20;
/** Steps of one evaluation between clock readings (and at its first step). A step is typically well under a microsecond. */
const CHECK_EVERY = 64;
/** JSONata calls this binding before every step of an evaluation (jsonata 2.x, `evaluate`). */
const ENTRY_HOOK = Symbol.for('jsonata.__evaluate_entry');

/** An evaluation ran out of its budget; the rule reports it as MAPPING_EXPR_BUDGET. */
export class ExpressionBudgetError extends Error {
  constructor(
    readonly limit: 'time' | 'depth',
    readonly value: number,
  ) {
    super(
      limit === 'time'
        ? `the expression was stopped after ${value} ms (its time budget, \`expr_limits.time_ms\`): look for a recursive function that never ends; if the expression is meant to be this heavy, raise \`expr_limits: { time_ms: … }\` in the mapping file`
        : `the expression was stopped at evaluation depth ${value} (its depth limit, \`expr_limits.depth\`): look for a recursive function that never reaches its base case, or write the recursion as a tail call or with $map/$reduce; if it is meant to recurse this deep, raise \`expr_limits: { depth: … }\` in the mapping file`,
    );
    this.name = 'ExpressionBudgetError';
  }
}

/** One evaluation's account. */
interface Budget {
  readonly start: number;
  /** Time spent waiting for the event loop's turn, which is not the expression's. */
  paused: number;
  steps: number;
}

/** When the event loop last turned while expressions were evaluated (shared: all evaluations hold the same loop). */
let lastTurn = 0;
let watching = false;
/** Note the next turn of the event loop in `lastTurn`. */
function watchTurn(now: number): void {
  if (watching) return;
  // No watcher pending: the last one ran at a turn of the loop, and nothing of ours has held the loop since without arming one.
  lastTurn = now;
  watching = true;
  setImmediate(() => {
    watching = false;
    lastTurn = Date.now();
  });
}

/** Let the event loop turn (timers, I/O, signal handlers), then go on; the wait is not charged to the evaluation. */
function pause(budget: Budget, now: number): Promise<void> {
  return new Promise((resolve) =>
    setImmediate(() => {
      const back = Date.now();
      lastTurn = back;
      budget.paused += back - now;
      resolve();
    }),
  );
}

/** The entry hook of one compiled expression. Its state is per evaluation, found by JSONata's per-evaluation frame (`env.base`). */
function budgetHook(limits: ExprLimits): (node: unknown, input: unknown, env: { base: { depth: number } }) => Promise<void> | undefined {
  // Keyed by the evaluation's base frame: concurrent evaluations of one expression (records, list entries) keep their own account.
  const budgets = new WeakMap<object, Budget>();
  return (_node, _input, env) => {
    const base = env.base;
    // JSONata counts the depth on that frame before it calls the hook.
    if (base.depth > limits.depth) throw new ExpressionBudgetError('depth', limits.depth);
    let budget = budgets.get(base);
    if (budget === undefined) {
      budget = { start: Date.now(), paused: 0, steps: 0 };
      budgets.set(base, budget);
      watchTurn(budget.start);
    }
    if (budget.steps++ % CHECK_EVERY !== 0) return undefined;
    const now = Date.now();
    if (now - budget.start - budget.paused > limits.timeMs) throw new ExpressionBudgetError('time', limits.timeMs);
    if (now - lastTurn < SLICE_MS) {
      watchTurn(now);
      return undefined;
    }
    return pause(budget, now);
  };
}

/**
 * JSONata (250 kB), loaded with the first expression compiled: most mappings have none, and every
 * run compiles its mapping at start. Synchronous, since a mapping compiles synchronously.
 */
let jsonata: typeof jsonataType | undefined;

/** Compile a JSONata expression; throws with JSONata's message and position on a syntax error. */
export function compileExpression(source: string, limits: ExprLimits = DEFAULT_EXPR_LIMITS): CompiledExpression {
  jsonata ??= createRequire(import.meta.url)('jsonata') as typeof jsonataType;
  const expression = jsonata(source);
  // A Symbol-keyed binding: no expression can name, read or replace it.
  expression.assign(ENTRY_HOOK as unknown as string, budgetHook(limits));
  return expression;
}

/** A failed evaluation, cached like a value so that the rule can report it. */
export class ExpressionFailure {
  constructor(
    readonly message: string,
    /** MAPPING_EXPR_BUDGET when the evaluation ran out of its time or depth budget. */
    readonly code: 'MAPPING_EXPR' | 'MAPPING_EXPR_BUDGET' = 'MAPPING_EXPR',
  ) {}
}

/** The budget error behind a failed evaluation (`$eval` wraps errors of the expression it runs in its own). */
function budgetError(err: unknown): ExpressionBudgetError | undefined {
  for (let e = err, i = 0; e !== null && typeof e === 'object' && i < 16; e = (e as { error?: unknown }).error, i++) {
    if (e instanceof ExpressionBudgetError) return e;
  }
  return undefined;
}

function failureOf(err: unknown): ExpressionFailure {
  const budget = budgetError(err);
  if (budget) return new ExpressionFailure(budget.message, 'MAPPING_EXPR_BUDGET');
  return new ExpressionFailure(err instanceof Error ? err.message : String((err as { message?: unknown } | undefined)?.message ?? err));
}

/** Per-apply expression runtime: caches results by (input item, rule id), collects pending evaluations; `shop` is bound as `$shop`. */
export function createExprRuntime(expressions: readonly CompiledExpression[], shop?: Readonly<Record<string, unknown>>): ExprRuntime & { readonly pending: Promise<void>[] } {
  // Keyed by the input item and then by rule and position: `$index` differs for equal items at different positions.
  const cache = new Map<unknown, Map<string, unknown>>();
  const pending: Promise<void>[] = [];
  return {
    pending,
    value(ruleId: number, scope: Scope, ctx: MappingContext): unknown {
      const slotKey = `${ruleId}:${scope.index ?? ''}`;
      let perItem = cache.get(scope.item);
      if (perItem?.has(slotKey)) return perItem.get(slotKey);
      if (!perItem) {
        perItem = new Map();
        cache.set(scope.item, perItem);
      }
      const slot = perItem;
      slot.set(slotKey, PENDING);
      const bindings = {
        root: scope.root,
        rows: scope.rows,
        index: scope.index,
        reference: (resource: string, key: unknown) => ctx.lookupReference(resource, String(key)),
        // The pipeline's shop variables (`$shop.priceColumn`), as `${shop.…}` in the file.
        shop: shop ?? {},
      };
      pending.push(
        expressions[ruleId].evaluate(scope.item, bindings).then(
          (v) => void slot.set(slotKey, v),
          (err: unknown) => void slot.set(slotKey, failureOf(err)),
        ),
      );
      return PENDING;
    },
  };
}
