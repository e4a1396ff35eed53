/**
 * A preview of a push pipeline: the next records after its cursor, each beside the payload the
 * mapping makes of it, its field diff against the shop's current record and every finding of the
 * mapping and the guard rails.
 *
 * It is a dry run (`runPipeline` in `dry-run` mode: the same mapper, guard rails, reference
 * lookups and differ as `shopsync sync --dry-run`), cut to the first N records. The source is
 * opened read-only and no event stream is passed, so a preview leaves no run row, event, dead
 * letter, cursor move, shop write, moved file, metric or alert behind; it only reads.
 */
import { ConfigError, errorCode } from '../errors.js';
import type { CursorPosition, ErpRecord, ReadOptions, RecordOrigin, Source, SourceItem } from '../erp/types.js';
import { silentLogger } from '../log.js';
import { parseDefinition, runPipeline } from './run.js';
import type { PipelineDefinition, PipelineDefinitionInput } from './schema.js';
import type { PipelineDeps, PlannedRecord, RunSummary, SourceProvider } from './types.js';

/** Records a preview shows by default. */
export const PREVIEW_DEFAULT_RECORDS = 10;
/** Most records one preview reads: each update costs a read of the shop's record. */
export const PREVIEW_MAX_RECORDS = 50;
/** How long a preview may read before it shows what it has. */
export const PREVIEW_TIMEOUT_MS = 30_000;
/** After the timeout, how long a source that ignores the abort is waited for before the preview gives up. */
const ABANDON_AFTER_MS = 5_000;

/** Options of one preview. */
export interface PreviewOptions {
  /** Records to read after the cursor, 1 to PREVIEW_MAX_RECORDS. @default PREVIEW_DEFAULT_RECORDS */
  readonly limit?: number;
  /** Aborting stops the reading (the page was closed); the records read so far are returned. */
  readonly signal?: AbortSignal;
  /** @default PREVIEW_TIMEOUT_MS */
  readonly timeoutMs?: number;
}

/** One previewed record: the dry run's verdict beside the source record it was made from. */
export interface PreviewedRecord extends PlannedRecord {
  /** The record as the source delivered it. */
  readonly source: ErpRecord;
  /** File and line (or row) the record came from, when the source says. */
  readonly origin?: RecordOrigin;
}

/** What a preview found. */
export interface PipelinePreview {
  readonly pipeline: string;
  readonly resource: string;
  /** The cursor the records were read after; undefined: from the start of the source. */
  readonly after?: CursorPosition;
  readonly limit: number;
  readonly records: readonly PreviewedRecord[];
  /** The source holds more records after the last one shown. */
  readonly more: boolean;
  /** Shop requests made (reads of the records an update would change). */
  readonly requests: number;
  readonly durationMs: number;
  /** Set when reading stopped early; `records` holds what was read until then. */
  readonly stopped?: 'timeout' | 'aborted';
  /** Why nothing could be previewed: the source could not be read, the shop could not be reached, the mapping does not fit. */
  readonly error?: { readonly code: string; readonly message: string };
}

/** A record count from user input, clamped to 1..PREVIEW_MAX_RECORDS; the default when absent or not a number. */
export function previewLimit(value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(n)) return PREVIEW_DEFAULT_RECORDS;
  return Math.min(PREVIEW_MAX_RECORDS, Math.max(1, Math.floor(n)));
}

/** What the cut-down source saw. */
interface Taken {
  readonly items: SourceItem[];
  more: boolean;
}

/** The pipeline's source, read-only and cut to the first `limit` items; one more is read to learn whether more follow. */
function firstItems(provider: SourceProvider | undefined, limit: number, taken: Taken): SourceProvider | undefined {
  if (provider === undefined) return undefined;
  return async (): Promise<Source> => {
    const owned = typeof provider === 'function';
    const inner = owned ? await provider() : provider;
    async function* read(options: ReadOptions): AsyncGenerator<SourceItem> {
      // Leaving the loop closes the inner read (its query, file or page stream).
      for await (const item of inner.read({ ...options, pageSize: Math.min(options.pageSize ?? limit + 1, limit + 1), readOnly: true })) {
        if (taken.items.length >= limit) {
          taken.more = true;
          return;
        }
        taken.items.push(item);
        yield item;
      }
    }
    // No commit: nothing a preview reads is ever settled. A shared source is the owner's to close.
    // rowsOf reads nothing it settles: a preview sees a live twin of a key (SOURCE_DUPLICATE_KEY) as a sync would.
    return { kind: inner.kind, read, ...(inner.rowsOf ? { rowsOf: inner.rowsOf.bind(inner) } : {}), close: async () => (owned ? inner.close() : undefined) };
  };
}

/** The source record of each planned record, matched by ERP key in reading order. */
function pair(plan: readonly PlannedRecord[], items: readonly SourceItem[]): PreviewedRecord[] {
  const byKey = new Map<string, SourceItem[]>();
  for (const item of items) byKey.set(item.key, [...(byKey.get(item.key) ?? []), item]);
  return plan.map((p) => {
    const item = byKey.get(p.erpKey)?.shift();
    return { ...p, source: item?.record ?? {}, ...(item?.origin ? { origin: item.origin } : {}) };
  });
}

/**
 * Preview the next `limit` records of a push pipeline after its cursor. Never throws for a source,
 * shop or mapping that fails: the preview carries the error instead. Throws a ConfigError for a
 * pull pipeline (its records come from the shop; `shopsync sync <name> --dry-run` shows them).
 */
export async function previewPipeline(definition: PipelineDefinition | PipelineDefinitionInput, deps: PipelineDeps, options: PreviewOptions = {}): Promise<PipelinePreview> {
  const def = parseDefinition(definition);
  if (def.direction !== 'push') {
    throw new ConfigError(`pipeline ${def.name} is a pull (shop → ERP): a preview reads ERP records for the shop; see what a pull would deliver with \`shopsync sync ${def.name} --dry-run\``);
  }
  const limit = previewLimit(options.limit ?? PREVIEW_DEFAULT_RECORDS);
  const timeoutMs = options.timeoutMs ?? PREVIEW_TIMEOUT_MS;
  const started = Date.now();
  const stored = await deps.state.cursors.get(def.name);
  const after = stored ? { value: stored.value, key: stored.key } : undefined;
  const base = { pipeline: def.name, resource: def.resource, ...(after ? { after } : {}), limit };

  const taken: Taken = { items: [], more: false };
  const controller = new AbortController();
  let stopped: PipelinePreview['stopped'];
  const stop = (why: 'timeout' | 'aborted') => {
    stopped ??= why;
    controller.abort();
  };
  const onAbort = () => stop('aborted');
  if (options.signal?.aborted) stop('aborted');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  let abandon: NodeJS.Timeout | undefined;
  // No `events`: a preview is nobody's run (no metrics, alerts or live page updates).
  const { events: _events, ...quiet } = deps;
  const run: Promise<{ summary: RunSummary } | { thrown: { code: string; message: string } }> = runPipeline(
    def,
    { ...quiet, source: firstItems(deps.source, limit, taken), logger: (deps.logger ?? silentLogger).child({ preview: true }) },
    { mode: 'dry-run', signal: controller.signal },
  ).then(
    (summary) => ({ summary }),
    // The mapping does not fit the pipeline (direction, resource): said before anything is read.
    (err: unknown) => ({ thrown: { code: errorCode(err), message: err instanceof Error ? err.message : String(err) } }),
  );
  // A source that ignores the abort (a query that hangs) must not hold the page: it is left to finish on its own.
  const deadline = new Promise<'abandoned'>((resolve) => {
    abandon = setTimeout(() => resolve('abandoned'), timeoutMs + ABANDON_AFTER_MS);
  });
  try {
    const result = await Promise.race([run, deadline]);
    const durationMs = Date.now() - started;
    if (result === 'abandoned') {
      return { ...base, records: [], more: false, requests: 0, durationMs, stopped: 'timeout', error: { code: 'PREVIEW_TIMEOUT', message: `the source gave no answer within ${Math.round((timeoutMs + ABANDON_AFTER_MS) / 1000)} s; check that the ERP is reachable (shopsync doctor) and try again` } };
    }
    if ('thrown' in result) return { ...base, records: [], more: false, requests: 0, durationMs, error: result.thrown };
    const { summary } = result;
    if (summary.status === 'failed') return { ...base, records: [], more: false, requests: summary.counts.requests, durationMs, error: summary.error ?? { code: 'INTERNAL', message: 'the dry run failed without saying why' } };
    return { ...base, records: pair(summary.plan ?? [], taken.items), more: taken.more, requests: summary.counts.requests, durationMs, ...(stopped ? { stopped } : {}) };
  } finally {
    clearTimeout(timer);
    clearTimeout(abandon);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
