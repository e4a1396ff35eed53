/**
 * What a push run read, for the `onMissing` step: the ERP keys seen, the records the source could
 * not key (then nothing may be called missing), and the records `inactiveWhen` flags (kept out of
 * the push: for the shop they are gone from the ERP).
 *
 * The seen keys are a Set in memory: about 80 bytes a key, 8 MB per 100,000 articles (docs/catalog.md).
 */
import type { SourceItem } from '../../erp/types.js';
import { SOURCE_CODES } from '../../erp/types.js';
import type { PipelineOptions } from '../schema.js';

type InactiveWhen = NonNullable<PipelineOptions['inactiveWhen']>;

function valueAt(record: Readonly<Record<string, unknown>>, path: readonly string[]): unknown {
  let v: unknown = record;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[p];
  }
  return v;
}

/** Whether a source record is flagged inactive (`inactiveWhen`); values compare as text, `null` matches an empty column. */
export function flaggedInactive(rule: InactiveWhen | undefined, record: Readonly<Record<string, unknown>>): boolean {
  if (!rule) return false;
  const raw = valueAt(record, rule.field.split('.'));
  return rule.values.some((v) => (v === null ? raw === null || raw === undefined : raw !== null && raw !== undefined && String(v) === String(raw)));
}

/** The keys one run read. */
export class ReadTally {
  /** ERP keys the source delivered (refused rows included: their article still exists). */
  readonly seen = new Set<string>();
  /** Keys flagged inactive. */
  readonly inactive = new Set<string>();
  /** Rows the source could not key: an unknown article may hide behind each. */
  unkeyed = 0;

  /** `counts.read` also counts the records held back (the push counts the ones it takes). */
  constructor(
    private readonly rule: InactiveWhen | undefined,
    private readonly counts: { read: number },
    /** Keep the seen keys (only the `onMissing` step needs them). */
    private readonly remember = true,
  ) {}

  /**
   * The source stream as the push should see it: passed through `track`, or as it is when there is
   * nothing to note (no `inactiveWhen`, `onMissing: ignore`): a generator layer costs a promise per record.
   */
  watch(items: AsyncIterable<SourceItem>): AsyncIterable<SourceItem> {
    return this.rule || this.remember ? this.track(items) : items;
  }

  /** Pass a source stream through, noting keys and holding back flagged records. */
  async *track(items: AsyncIterable<SourceItem>): AsyncGenerator<SourceItem> {
    for await (const item of items) {
      if (item.refused?.code === SOURCE_CODES.keyMissing) this.unkeyed++;
      else if (!item.refused && flaggedInactive(this.rule, item.record)) {
        this.inactive.add(item.key);
        this.counts.read++;
        continue;
      }
      if (this.remember) this.seen.add(item.key);
      yield item;
    }
  }
}
