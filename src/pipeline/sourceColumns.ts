/**
 * The first read of every push run checks that the source has the columns its mapping reads
 * (src/mapping/columns.ts). The first records are held back until every column the mapping reads
 * was seen, or up to COLUMN_SAMPLE records (JSON records may leave empty fields out); a column none
 * of them had fails the run with MAPPING_SOURCE_COLUMN_MISSING before anything is written.
 */
import type { SourceItem } from '../erp/types.js';
import { missingColumns, missingColumnsError, type ColumnUse } from '../mapping/columns.js';
import type { CompiledMapping } from '../mapping/index.js';

/** Records read at most before the columns are judged. */
export const COLUMN_SAMPLE = 100;

/** What a source's first records tell about its columns. */
export interface ColumnSample {
  readonly seen: ReadonlySet<string>;
  /** Usable records looked at (0: nothing to judge by). */
  readonly records: number;
  readonly missing: readonly ColumnUse[];
}

/** Look at records until every column the mapping reads was seen or `limit` records were; the records go to `keep`. */
export async function sampleColumns(iterator: AsyncIterator<SourceItem>, uses: readonly ColumnUse[], keep: SourceItem[], limit = COLUMN_SAMPLE): Promise<ColumnSample & { readonly done: boolean }> {
  const seen = new Set<string>();
  let records = 0;
  let missing = missingColumns(uses, seen);
  while (records < limit && missing.length > 0) {
    const next = await iterator.next();
    if (next.done) return { seen, records, missing: records > 0 ? missing : [], done: true };
    keep.push(next.value);
    if (next.value.refused) continue;
    records++;
    for (const k of Object.keys(next.value.record)) seen.add(k);
    missing = missingColumns(uses, seen);
  }
  return { seen, records, missing: records > 0 ? missing : [], done: false };
}

/** `items`, after the check; without a generator layer once the held-back records are out (a promise per record counts). */
export function checkedColumns(items: AsyncIterable<SourceItem>, mapping: CompiledMapping, source: string): AsyncIterable<SourceItem> {
  if (missingColumns(mapping.columns, new Set()).length === 0) return items;
  return {
    [Symbol.asyncIterator]() {
      const iterator = items[Symbol.asyncIterator]();
      const held: SourceItem[] = [];
      let checked: Promise<boolean> | undefined;
      const check = async (): Promise<boolean> => {
        const sample = await sampleColumns(iterator, mapping.columns, held);
        if (sample.missing.length > 0) {
          await iterator.return?.();
          throw missingColumnsError(mapping.file, sample.missing, sample.seen, `the ${source} source`);
        }
        return sample.done;
      };
      let ended = false;
      let ready = false;
      const next = (): Promise<IteratorResult<SourceItem>> => {
        const item = held.shift();
        if (item) return Promise.resolve({ value: item, done: false });
        if (ended) return Promise.resolve({ value: undefined, done: true });
        return iterator.next();
      };
      return {
        next(): Promise<IteratorResult<SourceItem>> {
          if (ready) return next();
          checked ??= check();
          return checked.then((done) => {
            ended = done;
            ready = true;
            return next();
          });
        },
        async return(): Promise<IteratorResult<SourceItem>> {
          await iterator.return?.();
          return { value: undefined, done: true };
        },
      };
    },
  };
}
