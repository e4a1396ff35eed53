/**
 * `doctor` and `mappings check --source`: does each push pipeline's source have the columns its
 * mapping reads? The source is read read-only (nothing claimed, moved or committed), up to the
 * first records that show every column (src/pipeline/sourceColumns.ts), and each missing column is
 * named with its mapping file:line and the nearest real column.
 */
import { connectionOrigin, type LoadedConfig, type PipelineConfig } from '../config/index.js';
import { createSource } from '../erp/index.js';
import type { SourceItem } from '../erp/types.js';
import type { Logger } from '../log.js';
import { loadMapping } from '../mapping/index.js';
import { missingColumnsError } from '../mapping/columns.js';
import { sampleColumns } from '../pipeline/sourceColumns.js';
import { resolveMappingPath } from './runtime.js';

/** What one pipeline's source said about its mapping's columns. */
export interface ColumnReport {
  readonly pipeline: string;
  readonly mapping: string;
  /** Records looked at (0: the source had none, nothing to judge by). */
  readonly records: number;
  /** Undefined when every column is there; else the MAPPING_SOURCE_COLUMN_MISSING message. */
  readonly problem?: string;
}

/** Check one push pipeline (undefined for pulls and pipelines without a source). */
export async function checkSourceColumns(loaded: LoadedConfig, p: PipelineConfig, logger: Logger): Promise<ColumnReport | undefined> {
  if (p.direction !== 'push' || !p.source) return undefined;
  const mappingFile = resolveMappingPath(p.mapping, loaded.baseDir);
  const mapping = await loadMapping(mappingFile, { vars: p.vars });
  const { connection: name, ...settings } = p.source as { connection: string } & Record<string, unknown>;
  const connection = loaded.config.connections[name];
  if (!connection) return undefined;
  const source = await createSource(connection, settings as never, { logger, baseDir: loaded.baseDir, origin: connectionOrigin(loaded, name, { pipeline: loaded.config.pipelines.indexOf(p), side: 'source' }) });
  try {
    const iterator = source.read({ pageSize: 100, readOnly: true })[Symbol.asyncIterator]();
    const kept: SourceItem[] = [];
    try {
      const sample = await sampleColumns(iterator, mapping.columns, kept);
      const problem = sample.missing.length > 0 ? missingColumnsError(mapping.file, sample.missing, sample.seen, `the ${source.kind} source of pipeline ${p.name}`).message : undefined;
      return { pipeline: p.name, mapping: mapping.file, records: sample.records, ...(problem ? { problem } : {}) };
    } finally {
      await iterator.return?.();
    }
  } finally {
    await source.close();
  }
}
