/** What `--orders-pull` adds to an init (plain or `--erp`): the pipeline, its mapping, its note, and the staging layout to create. */
import path from 'node:path';
import type { ConnectionInput, ConnectionOrigin } from '../../erp/index.js';
import type { Logger } from '../../log.js';
import type { Answers } from '../answers.js';
import type { SqlKind } from '../cursor.js';
import { INIT_CODES, InitError } from '../errors.js';
import { followPlanOf, type FollowPlan } from '../follow.js';
import type { InitHooks } from '../index.js';
import type { PlannedFile } from '../write.js';
import { createStaging } from './ddl.js';
import { OWNER_COLUMN, ORDERS_PULL_NAME, stagingLayout, type StagingLayout } from './layout.js';
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

/** Refuse what the orders pull cannot be, before anything is asked. */
function checkOrdersPull(answers: Answers): void {
  if (answers.source.kind === 'sqlite' && answers.stagingSchema) throw new InitError(INIT_CODES.input, '--staging-schema: SQLite has no schemas; the staging tables go into the file, prefixed shopsync_in_ (leave the flag out)');
}

/** The orders pull of one init with its follow answer (`--follow`, the prompt, or init's default): the layout gets the changes table when the pull follows. */
export async function ordersPullOf(answers: Answers, configDir: string, hooks: InitHooks, say: (line: string) => void): Promise<OrdersPullPlan> {
  checkOrdersPull(answers);
  const follow = await followPlanOf(answers, hooks);
  say(follow.line);
  return planOrdersPull(answers, configDir, follow);
}

/** Plan the orders pull for a database source; with a follow plan that follows, `follow:` on the pull and the changes table with its appended child. */
export function planOrdersPull(answers: Answers, configDir: string, follow?: FollowPlan): OrdersPullPlan {
  checkOrdersPull(answers);
  const kind = answers.source.kind as SqlKind;
  const layout = stagingLayout(kind, answers.stagingSchema, follow?.follow === true);
  // The message and note name the three order tables as they always did (a test of the Tryton import reads them); the changes table is said on its own.
  const names = [layout.orders, layout.lines, layout.addresses].map((t) => t.name).join(', ');
  const changes = layout.changes ? `; the changes of followed orders are appended to ${layout.changes.name}, one row per order and seq, never rewritten (the ERP acts on each once and marks it in its imported_at; docs/init.md "The changes table")` : '';
  const where = layout.schema ? `${kind === 'postgres' ? 'the schema' : 'the database'} ${layout.schema}, which init created` : 'the ERP database (created by init)';
  const owner = sinkTakesOwnerColumn()
    ? `the sink's ownerColumn ${OWNER_COLUMN} proves a row is this pipeline's`
    : `every row carries ${OWNER_COLUMN} = ${ORDERS_PULL_NAME}`;
  const note = `Orders: the pipeline ${ORDERS_PULL_NAME} pulls shop orders into the staging tables ${names} in ${where}; ${owner}${changes}. The ERP side claims each order there (status, imported_at: its columns, never written by shopsync) and imports it through its own API (docs/connectors.md "Orders into your ERP"); shopsync never writes into the ERP's own sale tables`;
  const mappingPath = path.join(configDir, 'mappings', `${ORDERS_PULL_NAME}.yaml`);
  return {
    layout,
    pipeline: { ...ordersPipeline(layout), ...(follow?.block ? { follow: follow.block } : {}) },
    mappingFile: { path: mappingPath, text: renderOrdersMapping(path.dirname(mappingPath), layout) },
    note: follow ? `${note}. ${follow.note}` : note,
    async create(connection, ctx, say) {
      await createStaging(layout, connection, ctx);
      say(`created the staging tables ${names}${layout.schema ? ` in ${kind === 'postgres' ? 'schema' : 'database'} ${layout.schema}` : ' in the ERP database'} (if they were not there)${layout.changes ? `, and ${layout.changes.name} for the changes of followed orders` : ''}`);
    },
  };
}
