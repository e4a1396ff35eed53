/**
 * What the SQL sink checks before its first batch: that its tables exist (a missing one named with
 * its schema and the nearest names), that a unique key covers exactly the sink's key on the parent
 * and each child table, and that its owner column is there. A typo or a table the sink cannot work
 * with fails at start-up, not mid-run.
 */
import type { ConnectorError } from '../../errors.js';
import { nearMatches } from '../../util/suggest.js';
import { CONNECTOR_CODES, connectorError } from '../errors.js';
import { keyCovering, tableColumns, uniqueKeys } from './catalog.js';
import { keyList, type SqlSinkConfig } from './config.js';
import type { SqlDriver } from './driver.js';
import { notUniqueError } from './ownership.js';

/**
 * Check before the first batch that the target tables exist, that a unique key covers exactly the
 * sink's key (and each child table's), and that the owner column is there: a typo or a table the
 * sink cannot work with fails at start-up, not mid-run.
 */
export async function checkTables(driver: SqlDriver, cfg: SqlSinkConfig): Promise<void> {
  await checkReadable(driver, cfg);
  try {
    const problem = await keyProblem(driver, cfg);
    if (problem) throw problem;
  } catch (err) {
    await driver.close().catch(() => undefined);
    throw err;
  }
}

/** Check that the sink's tables exist and can be read; closes the driver when not. */
export async function checkReadable(driver: SqlDriver, cfg: SqlSinkConfig): Promise<void> {
  for (const table of [cfg.table, ...cfg.children.map((c) => c.table)]) {
    try {
      await driver.query(`SELECT * FROM ${driver.quote(table)} WHERE 1 = 0`, []);
    } catch (err) {
      if ((err as { code?: unknown }).code !== CONNECTOR_CODES.queryFailed) {
        await driver.close().catch(() => undefined);
        throw err;
      }
      const missing = await missingTable(driver, table).catch(() => undefined);
      await driver.close().catch(() => undefined);
      if (missing) throw connectorError(driver.kind, CONNECTOR_CODES.queryFailed, missing, { cause: err });
      throw connectorError(driver.kind, CONNECTOR_CODES.queryFailed, `sink table ${table} cannot be read: ${(err as Error).message}. Create the (staging) table with a primary key or unique index on the sink's key.`, { cause: err });
    }
  }
}

/** What keeps the tables from working as the sink needs (a key without a unique index, a missing owner column), if anything. */
export async function keyProblem(driver: SqlDriver, cfg: SqlSinkConfig): Promise<ConnectorError | undefined> {
  const keys = keyList(cfg.key);
  const parentKeys = await uniqueKeys(driver, cfg.table);
  if (!keyCovering(parentKeys, keys)) return notUniqueError(driver.kind, cfg.table, keys, parentKeys);
  for (const child of cfg.children) {
    const childKeys = keyList(child.key);
    const found = await uniqueKeys(driver, child.table);
    if (!keyCovering(found, childKeys)) return notUniqueError(driver.kind, child.table, childKeys, found, child.field);
  }
  if (cfg.ownerColumn !== undefined) {
    const columns = await tableColumns(driver, cfg.table);
    if (!columns.some((c) => c.name.toLowerCase() === cfg.ownerColumn!.toLowerCase())) {
      return connectorError(driver.kind, CONNECTOR_CODES.queryFailed, `sink table ${cfg.table} has no column ${cfg.ownerColumn} (the sink's ownerColumn). Add it to the staging table (a text column, e.g. VARCHAR(200)), or remove ownerColumn to let the pipeline's state tell the sink's rows.`);
    }
  }
  return undefined;
}

/** When `table` is not among the tables the connection sees: a message naming schema and table and the nearest names. */
async function missingTable(driver: SqlDriver, table: string): Promise<string | undefined> {
  const [schema, name] = table.includes('.') ? (table.split('.') as [string, string]) : [await driver.defaultSchema(), table];
  const known = await driver.tables();
  const wanted = `${schema}.${name}`.toLowerCase();
  if (known.some((t) => t.toLowerCase() === wanted)) return undefined;
  // Tables of the named schema first, so a near name there comes before the same name elsewhere.
  const inSchema = (t: string) => t.toLowerCase().startsWith(`${schema.toLowerCase()}.`);
  const ordered = [...known.filter(inSchema), ...known.filter((t) => !inSchema(t))];
  const near = nearMatches(name, ordered, { spelling: (t) => t.slice(t.indexOf('.') + 1) });
  return `sink table ${name} does not exist in schema ${schema}${near.length > 0 ? `; near matches: ${near.join(', ')}` : ''}. Fix \`table\` (qualify it as schema.table when it lives in another schema), or create the (staging) table with a primary key or unique index on the sink's key.`;
}
