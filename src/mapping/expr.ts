/**
 * The JSONata escape hatch. Expressions are compiled once at load; evaluation is asynchronous in
 * jsonata 2.x, so only mappings that use `expr` pay for it (their `apply` resolves expressions in
 * a first pass and then runs the synchronous rules once more with the results cached).
 */
import jsonata from 'jsonata';
import { PENDING, type CompiledExpression, type ExprRuntime } from './env.js';
import type { Scope } from './paths.js';
import type { MappingContext } from './types.js';

/** Compile a JSONata expression; throws with JSONata's message and position on a syntax error. */
export function compileExpression(source: string): CompiledExpression {
  return jsonata(source);
}

/** A failed evaluation, cached like a value so that the rule can report it. */
export class ExpressionFailure {
  constructor(readonly message: string) {}
}

/** Per-apply expression runtime: caches results by (input item, rule id), collects pending evaluations. */
export function createExprRuntime(expressions: readonly CompiledExpression[]): ExprRuntime & { readonly pending: Promise<void>[] } {
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
      };
      pending.push(
        expressions[ruleId].evaluate(scope.item, bindings).then(
          (v) => void slot.set(slotKey, v),
          (err: unknown) => void slot.set(slotKey, new ExpressionFailure(err instanceof Error ? err.message : String(err))),
        ),
      );
      return PENDING;
    },
  };
}
