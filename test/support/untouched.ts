/** What a look-only operation (a preview, a dry run) must leave exactly as it found it in the state. */
import type { StateStore } from '../../src/state/index.js';

/** Counts of runs, events and dead letters, references and open intents, and the pipelines' cursors. */
export async function stateSnapshot(state: StateStore, pipelines: readonly string[], resources: readonly string[]): Promise<Record<string, unknown>> {
  const cursors: Record<string, unknown> = {};
  const letters: Record<string, number> = {};
  const intents: Record<string, number> = {};
  for (const p of pipelines) {
    cursors[p] = (await state.cursors.get(p)) ?? null;
    letters[p] = await state.deadLetters.count(p);
    intents[p] = (await state.intents.list(p)).length;
  }
  const refs: Record<string, number> = {};
  for (const r of resources) refs[r] = await state.refs.count(r);
  return {
    runs: (await state.runs.list({ limit: 100_000 })).length,
    events: (await state.events.list({ limit: 100_000 })).length,
    deadLetters: letters,
    intents,
    refs,
    cursors,
  };
}
