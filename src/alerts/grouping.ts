/**
 * Grouping and inhibition, as Alertmanager has them, for one rule: an incident has a `scope` (a
 * pipeline and its shop, or a shop) and maybe a `cause` (causes.ts). A pipeline's incident whose
 * cause concerns the shop is folded into the shop's incident of that cause, opened by it if the
 * cause allows: no message of its own; the shop incident's firing message lists the pipelines it
 * holds then, later ones are recorded in the state (so every replica folds into the same incident)
 * and its one recovery lists them all. A pipeline failing for another reason alerts on its own.
 */
import type { RunRecord, StateStore } from '../state/index.js';
import { CAUSES, causeOf, type Cause } from './causes.js';
import { incidentId, type Incidents, type IncidentKind } from './incidents.js';
import type { AlertShops } from './shops.js';

/** A pipeline and its shop. */
export interface PipelineScope {
  readonly pipeline: string;
  readonly shop: string;
}

/** The incidents of a deployment, grouped by shop and cause. */
export interface GroupedIncidents {
  /** Open a pipeline's incident, or fold it into its shop's incident when `cause` concerns the shop. */
  firePipeline(kind: IncidentKind, scope: PipelineScope, cause: Cause | undefined, title: string, text: string): Promise<void>;
  /** Open a shop's incident of a cause; `text` says what happened, the setting to fix and the pipelines held are added. True when this call opened it. */
  fireShop(cause: Cause, shop: string, text: string, members?: readonly string[]): Promise<boolean>;
  /** Resolve a shop's incident of a cause; the message lists the pipelines it held. */
  resolveShop(cause: Cause, shop: string, text: string): Promise<boolean>;
  /** A run of the shop worked after `requests` requests to it: resolve the shop incidents that such a run ends (each cause's `resolvedByRun`). */
  shopWorked(shop: string, pipeline: string, requests: number, text: string): Promise<void>;
  /** The shop-wide cause a pipeline fails for now: its shop is paused, or (with `lastRun`) its last ended run failed for one. */
  causeNow(scope: PipelineScope, options: { readonly lastRun: boolean }): Promise<Cause | undefined>;
}

const ENDED = ['succeeded', 'partial', 'failed'] as const;
const CAUSE_NAMES = Object.keys(CAUSES) as Cause[];
const sentence = (text: string) => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);
const list = (pipelines: readonly string[]) => pipelines.join(', ');
/** The shop-wide cause of a run as the state keeps it, if it failed for one. */
const causeOfRun = (run: RunRecord | undefined): Cause | undefined => (run?.status === 'failed' && run.error?.code !== undefined ? causeOf(String(run.error.code)) : undefined);

/** Group `incidents` by the shops of `shops`, reading runs and pauses from `state`. */
export function groupedIncidents(incidents: Incidents, shops: AlertShops, state: StateStore): GroupedIncidents {
  const fireShop = async (cause: Cause, shop: string, text: string, members: readonly string[] = []): Promise<boolean> => {
    const entry = CAUSES[cause];
    const label = shops.label(shop);
    const held = members.length ? ` Held so far: ${list(members)}; the other pipelines of ${label} that fail for this cause join this incident without a message of their own, and its recovery lists them.` : '';
    const fix = entry.fix ? ` ${entry.fix(shops, shop)}` : '';
    return incidents.fire(entry.kind, { shop }, entry.firing(label), `${sentence(text)}${fix}${held}`, { cause, members });
  };

  const resolveShop = (cause: Cause, shop: string, text: string): Promise<boolean> => {
    const entry = CAUSES[cause];
    return incidents.resolve(entry.kind, { shop }, entry.resolved(shops.label(shop)), (held) => `${sentence(text)}${held.length ? ` It held: ${list(held)}.` : ''}`, { cause });
  };

  /** Whether another pipeline of the shop failed for this cause in its last ended run. */
  const othersFailFor = async (cause: Cause, shop: string, pipeline: string): Promise<boolean> => {
    const others = (shops.pipelines(shop) ?? (await state.runs.latestByPipeline()).filter((r) => r.shop === shop).map((r) => r.pipeline)).filter((p) => p !== pipeline);
    for (const other of others) {
      const last = (await state.runs.list({ pipeline: other, status: [...ENDED], limit: 1 }))[0];
      if (causeOfRun(last) === cause) return true;
    }
    return false;
  };

  return {
    fireShop,
    resolveShop,
    async firePipeline(kind, scope, cause, title, text) {
      if (cause === undefined) {
        await incidents.fire(kind, scope, title, text);
        return;
      }
      const entry = CAUSES[cause];
      const holders = [...(entry.within ?? []), cause];
      for (const holder of holders) if (await incidents.join(CAUSES[holder].kind, scope.shop, scope.pipeline)) return;
      if (entry.opensOnRun) {
        if (await fireShop(cause, scope.shop, text, [scope.pipeline])) return;
        // Another replica opened it meanwhile: held by that one.
        if (await incidents.join(entry.kind, scope.shop, scope.pipeline)) return;
      }
      await incidents.fire(kind, scope, title, text, { cause });
    },
    async shopWorked(shop, pipeline, requests, text) {
      // A run with nothing to send succeeds while the shop is down or refuses the token: it proves nothing (issue 45: incidents opened twice).
      if (requests === 0) return;
      const open = new Set(await incidents.list());
      for (const cause of CAUSE_NAMES) {
        const entry = CAUSES[cause];
        // A bare `shop-auth`: opened by a version that kept one incident for all shops.
        const legacy = open.has(entry.kind);
        if (entry.resolvedByRun === undefined || (!legacy && !open.has(incidentId(entry.kind, { shop })))) continue;
        // One pipeline's success does not prove the credentials of another (a token lacking one pipeline's scope).
        if (entry.resolvedByRun === 'each-pipeline' && (await othersFailFor(cause, shop, pipeline))) continue;
        await resolveShop(cause, shop, text);
        if (legacy) await incidents.resolve(entry.kind, undefined, entry.resolved(shops.label(shop)), text, { cause });
      }
    },
    async causeNow(scope, options) {
      const streak = await state.streaks.get(scope.shop);
      if (streak?.pausedAt != null) return 'paused';
      if (!options.lastRun) return undefined;
      const last = (await state.runs.list({ pipeline: scope.pipeline, status: [...ENDED], limit: 1 }))[0];
      return causeOfRun(last);
    },
  };
}
