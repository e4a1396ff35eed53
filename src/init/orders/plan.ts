/** What `--orders-pull` adds to an init (plain or `--erp`): the pipeline, its mapping, its note, and the staging layout to create. */
import path from 'node:path';
import type { ConnectionInput, ConnectionOrigin } from '../../erp/index.js';
import type { Logger } from '../../log.js';
import type { Answers } from '../answers.js';
import type { SqlKind } from '../cursor.js';
import { INIT_CODES, InitError } from '../errors.js';
import type { PlannedFile } from '../write.js';
import { createStaging } from './ddl.js';
import { OWNER_COLUMN, ORDERS_PULL_NAME, stagingLayout, stagingTables, type StagingLayout } from './layout.js';
import { renderOrdersMapping } from './mapping.js';
import { ordersPipeline, sinkTakesOwnerColumn } from './index.js';

/** The orders pull of one init. */
export interface OrdersPullPlan {
  readonly layout: StagingLayout;
  readonly pipeline: Record<string, unknown>;
  readonly mappingFile: PlannedFile;
  /** The config's comment on where the orders go. */
  readonly note: string;
  /** Create the layout (before any file is written) and say so. */
  create(connection: ConnectionInput, ctx: { logger: Logger; baseDir: string; origin?: ConnectionOrigin }, say: (line: string) => void): Promise<void>;
}

/** Plan the orders pull for a database source. */
export function planOrdersPull(answers: Answers, configDir: string): OrdersPullPlan {
  const kind = answers.source.kind as SqlKind;
  if (kind === 'sqlite' && answers.stagingSchema) throw new InitError(INIT_CODES.input, '--staging-schema: SQLite has no schemas; the staging tables go into the file, prefixed shopsync_in_ (leave the flag out)');
  const layout = stagingLayout(kind, answers.stagingSchema);
  const names = stagingTables(layout).map((t) => t.name).join(', ');
  const where = layout.schema ? `${kind === 'postgres' ? 'the schema' : 'the database'} ${layout.schema}, which init created` : 'the ERP database (created by init)';
  const owner = sinkTakesOwnerColumn()
    ? `the sink's ownerColumn ${OWNER_COLUMN} proves a row is this pipeline's`
    : `every row carries ${OWNER_COLUMN} = ${ORDERS_PULL_NAME}`;
  const note = `Orders: the pipeline ${ORDERS_PULL_NAME} pulls shop orders into the staging tables ${names} in ${where}; ${owner}. The ERP side claims each order there (status, imported_at: its columns, never written by shopsync) and imports it through its own API (docs/connectors.md "Orders into your ERP"); shopsync never writes into the ERP's own sale tables`;
  const mappingPath = path.join(configDir, 'mappings', `${ORDERS_PULL_NAME}.yaml`);
  return {
    layout,
    pipeline: ordersPipeline(layout),
    mappingFile: { path: mappingPath, text: renderOrdersMapping(path.dirname(mappingPath), layout) },
    note,
    async create(connection, ctx, say) {
      await createStaging(layout, connection, ctx);
      say(`created the staging tables ${names}${layout.schema ? ` in ${kind === 'postgres' ? 'schema' : 'database'} ${layout.schema}` : ' in the ERP database'} (if they were not there)`);
    },
  };
}
