/**
 * What a trigger needs of its pipeline's source: the connection it reads and its own settings,
 * validated by the connector's schema (the same one a run uses), so a trigger watches or probes
 * exactly what the run then reads.
 */
import { ConfigError } from '../errors.js';
import type { Connection } from '../erp/index.js';
import type { TriggerStart } from './index.js';

/** The source side of a push pipeline: its connection and the connector settings without `connection`. */
export interface TriggerSource {
  /** Its name under `connections:`. */
  readonly name: string;
  readonly connection: Connection;
  readonly settings: Record<string, unknown>;
}

/**
 * The pipeline's source, or a ConfigError naming the trigger key when the pipeline has none (a
 * pull writes to the ERP: nothing there to watch) or its connection is of another kind.
 */
export function triggerSource(ctx: TriggerStart, key: string, kinds: readonly Connection['kind'][], instead: string): TriggerSource {
  const p = ctx.pipeline;
  const where = `pipelines[${p.name}].trigger.${key}`;
  if (!p.source) throw new ConfigError(`${where}: a ${p.direction} pipeline has no source to watch; remove trigger.${key} (${instead})`, { key: where });
  const { connection: name, ...settings } = p.source as { connection: string } & Record<string, unknown>;
  const connection = ctx.runtime.loaded.config.connections[name];
  if (!connection) throw new ConfigError(`${where}: no connection named "${name}"`, { key: where });
  if (!kinds.includes(connection.kind)) {
    throw new ConfigError(`${where} needs a source on a ${kinds.join(' or ')} connection; connection "${name}" is ${connection.kind}. ${instead}`, { key: where, file: ctx.runtime.loaded.file });
  }
  return { name, connection, settings };
}
