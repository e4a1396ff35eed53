/**
 * ERP connectors: SQL (PostgreSQL, MariaDB/MySQL, SQLite), file drops (CSV, JSON, NDJSON, XML)
 * and HTTP JSON APIs, behind the Source/Sink contract in ./types.ts.
 *
 * A *connection* says where the data lives (validated by `connectionSchema`); the per-pipeline
 * *source* or *sink* config says what to read or write there (`sourceSchema`, `sinkSchema`).
 *
 * The config's schemas load with this module (every command validates the config); each
 * connector's code loads when a source or sink of its kind opens (`import()` below), so a SQLite
 * sync loads neither the file drops (iconv-lite, csv, xml) nor the drivers of PostgreSQL and MariaDB
 * (docs/development.md, "Start-up").
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { connectionSchema, type Connection, type ConnectionInput } from './connection.js';
import { parseConfig } from './errors.js';
import { fileSinkSchema, fileSourceSchema } from './files/config.js';
import { httpSinkSchema, httpSourceSchema } from './http/config.js';
import { jsonrpcSinkSchema, jsonrpcSourceSchema } from './jsonrpc/config.js';
import { sqlSinkSchema, sqlSourceSchema } from './sql/config.js';
import type { SqlDriver } from './sql/driver.js';
import type { MappedField, SinkCheck } from './sql/sinkCheck.js';
import type { ConnectorContext, Sink, Source } from './types.js';

export * from './types.js';
export { CONNECTOR_CODES, type ConnectorCode } from './errors.js';
export { connectionSchema, postgresConnectionSchema, mysqlConnectionSchema, sqliteConnectionSchema, filesConnectionSchema, httpConnectionSchema, jsonrpcConnectionSchema } from './connection.js';
export type { Connection, ConnectionInput, PostgresConnection, MysqlConnection, SqliteConnection, FilesConnection, HttpConnection } from './connection.js';
export { sqlSourceSchema, sqlSinkSchema, type SqlSourceConfig, type SqlSinkConfig, type SqlSourceConfigInput, type SqlSinkConfigInput } from './sql/config.js';
export { fileSourceSchema, fileSinkSchema, type FileSourceConfig, type FileSinkConfig, type FileSourceConfigInput, type FileSinkConfigInput } from './files/config.js';
export { httpSourceSchema, httpSinkSchema, type HttpSourceConfig, type HttpSinkConfig, type HttpSourceConfigInput, type HttpSinkConfigInput } from './http/config.js';
export { jsonrpcSinkSchema, type JsonrpcConnection, type JsonrpcSinkConfig, type JsonrpcSinkConfigInput } from './jsonrpc/config.js';
export { openRpcClient, type RpcClient, type RpcClientContext, type CallOptions, type Domain } from './jsonrpc/client.js';
export { JSONRPC_CODES, RpcError, type JsonrpcCode, type RpcFault } from './jsonrpc/errors.js';
export { comparePositions } from './values.js';
export type { SqlDriver } from './sql/driver.js';
export type { MappedField, SinkCheck } from './sql/sinkCheck.js';

/** Any source config; `createSource` re-validates it against the schema of the connection's kind. */
export const sourceSchema = z.union([sqlSourceSchema, fileSourceSchema, httpSourceSchema]);
/** Any sink config; `createSink` re-validates it against the schema of the connection's kind. */
export const sinkSchema = z.union([sqlSinkSchema, fileSinkSchema, httpSinkSchema, jsonrpcSinkSchema]);

export type SourceConfig = z.output<typeof sourceSchema>;
export type SourceConfigInput = z.input<typeof sourceSchema>;
export type SinkConfig = z.output<typeof sinkSchema>;
export type SinkConfigInput = z.input<typeof sinkSchema>;

/** The source schema that applies to a connection kind (for precise config error messages). */
export function sourceSchemaFor(kind: Connection['kind']) {
  return kind === 'files' ? fileSourceSchema : kind === 'http' ? httpSourceSchema : kind === 'jsonrpc' ? jsonrpcSourceSchema : sqlSourceSchema;
}

/** The sink schema that applies to a connection kind. */
export function sinkSchemaFor(kind: Connection['kind']) {
  return kind === 'files' ? fileSinkSchema : kind === 'http' ? httpSinkSchema : kind === 'jsonrpc' ? jsonrpcSinkSchema : sqlSinkSchema;
}

const JSONRPC_NO_SOURCE = 'a jsonrpc connection (Tryton, Odoo) is a sink, not a source: read the ERP through its database (a postgres connection) or an HTTP API';

async function openSql(conn: Connection, ctx: ConnectorContext, readonly: boolean): Promise<SqlDriver> {
  const env = ctx.env ?? process.env;
  if (conn.kind === 'postgres') return (await import('./sql/postgres.js')).openPostgres(conn, env, ctx.logger, readonly, ctx.baseDir, ctx.origin);
  if (conn.kind === 'mysql') return (await import('./sql/mysql.js')).openMysql(conn, env, ctx.logger, readonly, ctx.baseDir, ctx.origin);
  if (conn.kind === 'sqlite') return (await import('./sql/sqlite.js')).openSqlite(conn, ctx.baseDir, readonly, ctx.origin);
  throw new ConfigError(`connection kind ${conn.kind} is not SQL`);
}

/** Open a read-only SQL connection (for `shopsync init`, which reads a table's columns and sample rows before any source exists). */
export async function openSqlReader(connection: ConnectionInput | Connection, ctx: ConnectorContext): Promise<SqlDriver> {
  const conn = parseConfig(connectionSchema, connection, 'connection');
  return openSql(conn, ctx, true);
}

/** Open a writable SQL connection (for `shopsync init --orders-pull`, which creates its staging tables). */
export async function openSqlWriter(connection: ConnectionInput | Connection, ctx: ConnectorContext): Promise<SqlDriver> {
  const conn = parseConfig(connectionSchema, connection, 'connection');
  return openSql(conn, ctx, false);
}

/** Validate the configs and open a source; throws ConfigError for bad config, ConnectorError when unreachable. */
export async function createSource(connection: ConnectionInput | Connection, sourceConfig: SourceConfigInput | SourceConfig, ctx: ConnectorContext): Promise<Source> {
  const conn = parseConfig(connectionSchema, connection, 'connection');
  const logger = ctx.logger.child({ connector: conn.kind, connection: conn.name });
  if (conn.kind === 'files') {
    const cfg = parseConfig(fileSourceSchema, sourceConfig, 'source');
    return (await import('./files/inbox.js')).fileSource(conn, cfg, { ...ctx, logger });
  }
  if (conn.kind === 'http') {
    const cfg = parseConfig(httpSourceSchema, sourceConfig, 'source');
    return (await import('./http/source.js')).httpSource(conn, cfg, { ...ctx, logger });
  }
  if (conn.kind === 'jsonrpc') throw new ConfigError(JSONRPC_NO_SOURCE, { key: 'source.connection' });
  const cfg = parseConfig(sqlSourceSchema, sourceConfig, 'source');
  const share = { identity: shareIdentity(conn, ctx), label: ctx.origin?.name ?? conn.name ?? conn.kind, settings: { enabled: conn.shareReads, windowMs: conn.shareReadsWindowMs } };
  const driver = await openSql(conn, ctx, true);
  return (await import('./sql/keyset.js')).keysetSource(driver, cfg, logger, share);
}

/**
 * What makes two SQL connections the same database for shared reads: the connection as configured,
 * the folder relative paths resolve in, and the environment variables the drivers fall back to
 * (two configs in one process may name different databases `erp`). A digest: passwords stay out of keys.
 */
function shareIdentity(conn: Connection, ctx: ConnectorContext): string {
  const env = ctx.env ?? process.env;
  const fallbacks = Object.entries(env).filter(([k]) => /^(PG|MYSQL)/.test(k)).sort(([a], [b]) => a.localeCompare(b));
  return createHash('sha256').update(JSON.stringify([conn, resolve(ctx.baseDir), fallbacks])).digest('hex');
}

/** Validate the configs and open a sink; throws ConfigError for bad config, ConnectorError when unreachable. */
export async function createSink(connection: ConnectionInput | Connection, sinkConfig: SinkConfigInput | SinkConfig, ctx: ConnectorContext): Promise<Sink> {
  const conn = parseConfig(connectionSchema, connection, 'connection');
  const logger = ctx.logger.child({ connector: conn.kind, connection: conn.name });
  if (conn.kind === 'files') {
    const cfg = parseConfig(fileSinkSchema, sinkConfig, 'sink');
    return (await import('./files/sink.js')).fileSink(conn, cfg, { ...ctx, logger });
  }
  if (conn.kind === 'http') {
    const cfg = parseConfig(httpSinkSchema, sinkConfig, 'sink');
    return (await import('./http/sink.js')).httpSink(conn, cfg, { ...ctx, logger });
  }
  if (conn.kind === 'jsonrpc') {
    const cfg = parseConfig(jsonrpcSinkSchema, sinkConfig, 'sink');
    return (await import('./jsonrpc/sink.js')).jsonrpcSink(conn, cfg, { ...ctx, logger });
  }
  const cfg = parseConfig(sqlSinkSchema, sinkConfig, 'sink');
  if (cfg.ownerColumn !== undefined && cfg.ownerMarker === undefined && ctx.pipeline === undefined) {
    throw new ConfigError(`sink.ownerColumn ${cfg.ownerColumn} needs the marker it writes: give sink.ownerMarker, or open the sink for a named pipeline`);
  }
  const driver = await openSql(conn, ctx, false);
  await (await import('./sql/sinkTables.js')).checkTables(driver, cfg);
  return (await import('./sql/sink.js')).sqlSink(driver, cfg, { logger, ...(ctx.pipeline !== undefined ? { pipeline: ctx.pipeline } : {}) });
}

/**
 * What a SQL sink needs from its tables and what it will do (`doctor`), without writing anything;
 * undefined for other kinds. Throws like `createSink` when the database or a table cannot be reached.
 */
export async function inspectSink(connection: ConnectionInput | Connection, sinkConfig: SinkConfigInput | SinkConfig, ctx: ConnectorContext, fields?: readonly MappedField[]): Promise<SinkCheck[] | undefined> {
  const conn = parseConfig(connectionSchema, connection, 'connection');
  if (conn.kind !== 'postgres' && conn.kind !== 'mysql' && conn.kind !== 'sqlite') return undefined;
  const cfg = parseConfig(sqlSinkSchema, sinkConfig, 'sink');
  const driver = await openSql(conn, ctx, false);
  await (await import('./sql/sinkTables.js')).checkReadable(driver, cfg);
  try {
    return await (await import('./sql/sinkCheck.js')).inspectSqlSink(driver, cfg, fields, ctx.pipeline);
  } finally {
    await driver.close();
  }
}
