/**
 * What a trigger needs of its pipeline's source: the connection it reads and its own settings,
 * validated by the connector's schema (the same one a run uses), so a trigger watches or probes
 * exactly what the run then reads.
 */
import { ConfigError } from '../errors.js';
import type { Config, PipelineConfig } from '../config/index.js';
import type { Connection } from '../erp/index.js';

/** The source side of a push pipeline: its connection and the connector settings without `connection`. */
export interface TriggerSource {
  /** Its name under `connections:`. */
  readonly name: string;
  readonly connection: Connection;
  readonly settings: Record<string, unknown>;
}

/** Stable codes of a trigger whose pipeline's source cannot have it. */
export const TRIGGER_SOURCE_CODES = {
  /** The pipeline has no source (a pull writes to the ERP), or its connection is of a kind this trigger cannot watch. */
  wrongSource: 'TRIGGER_WRONG_SOURCE',
} as const;

/**
 * The pipeline's source, or a ConfigError naming the trigger key when the pipeline has none (a
 * pull writes to the ERP: nothing there to watch) or its connection is of another kind. Pure (the
 * config alone), so `shopsync config check` and `doctor` say what the daemon would refuse at start.
 */
export function triggerSourceOf(p: PipelineConfig, connections: Config['connections'], key: string, kinds: readonly Connection['kind'][], instead: string, file?: string): TriggerSource {
  const where = `pipelines[${p.name}].trigger.${key}`;
  const code = TRIGGER_SOURCE_CODES.wrongSource;
  if (!p.source) throw new ConfigError(`${where}: a ${p.direction} pipeline has no source to watch; remove trigger.${key} (${instead})`, { key: where, code });
  const { connection: name, ...settings } = p.source as { connection: string } & Record<string, unknown>;
  const connection = connections[name];
  if (!connection) throw new ConfigError(`${where}: no connection named "${name}"`, { key: where, code });
  if (!kinds.includes(connection.kind)) {
    throw new ConfigError(`${where} needs a source on a ${kinds.join(' or ')} connection; connection "${name}" is ${connection.kind}. ${instead}`, { key: where, code, ...(file !== undefined ? { file } : {}) });
  }
  return { name, connection, settings };
}
