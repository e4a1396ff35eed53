/**
 * Named ERP connections: where the data lives. The per-pipeline part (which query, which folder,
 * which endpoint) lives in the source and sink schemas next to each connector.
 */
import { z } from 'zod';
import { jsonrpcConnectionSchema } from './jsonrpc/config.js';
import { TABLE_NAME } from './names.js';

/** SQL identifiers we are willing to quote: table and column names from config and records. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A validated SQL identifier. */
export const identifierSchema = z.string().regex(IDENTIFIER, 'expected an SQL identifier matching ^[A-Za-z_][A-Za-z0-9_]*$');

/** A table name, optionally qualified: `auftraege`, `erp.auftraege` (PostgreSQL schema, MariaDB database). */
export const tableNameSchema = z
  .string()
  .regex(TABLE_NAME, 'expected a table name such as auftraege or erp.auftraege (letters, digits and _, one optional schema part)');

/** Ports arrive as strings after `${VAR}` interpolation; accept both. */
const portSchema = z.coerce.number().int().min(1).max(65535);

const serverFields = {
  /** Optional label, for logs. */
  name: z.string().optional(),
  /** Full connection URL (postgres://… or mysql://…); wins over the separate fields. */
  url: z.string().min(1).optional(),
  host: z.string().min(1).optional(),
  port: portSchema.optional(),
  user: z.string().optional(),
  password: z.string().optional(),
  database: z.string().optional(),
  /** Use TLS; the server's certificate must verify against the system's CAs (or `sslCaFile`) and name the host. @default false */
  ssl: z.boolean().default(false),
  /** PEM file of the CA(s) that signed the server's certificate (a company CA), relative to the config file; trusted instead of the system's CAs. Needs `ssl: true`. */
  sslCaFile: z.string().min(1).optional(),
  /** Accept a server certificate that does not verify (self-signed, wrong host); the password then travels to whoever answers. Needs `ssl: true`. @default false */
  allowUntrustedCertificate: z.boolean().default(false),
  /** Connections kept open per source or sink. @default 4 */
  poolSize: z.coerce.number().int().min(1).max(64).default(4),
  /** Give up connecting after this long. @default 10000 */
  connectTimeoutMs: z.coerce.number().int().positive().default(10_000),
  /** Pipelines (shops) of one process reading the same query with the same cursor share one database round trip (read once, fan out; src/erp/sql/sharedReads.ts). @default true */
  shareReads: z.boolean().default(true),
  /** How long a shared answer stays reusable by runs that began before its query started. @default 2000 */
  shareReadsWindowMs: z.coerce.number().int().min(0).max(60_000).default(2000),
};

/** TLS options that mean nothing without `ssl: true` are refused rather than silently ignored. */
function checkTls(conn: { ssl: boolean; sslCaFile?: string | undefined; allowUntrustedCertificate: boolean }, ctx: z.core.$RefinementCtx): void {
  for (const field of ['sslCaFile', 'allowUntrustedCertificate'] as const) {
    if (!conn.ssl && conn[field] !== undefined && conn[field] !== false) {
      ctx.addIssue({ code: 'custom', path: [field], message: `${field} applies to TLS connections only: set ssl: true as well, or remove ${field}` });
    }
  }
  if (conn.sslCaFile !== undefined && conn.allowUntrustedCertificate) {
    ctx.addIssue({ code: 'custom', path: ['allowUntrustedCertificate'], message: 'allowUntrustedCertificate: true skips the check that sslCaFile is for; keep one of them' });
  }
}

/** PostgreSQL; missing fields fall back to PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE. */
export const postgresConnectionSchema = z
  .strictObject({
    kind: z.literal('postgres'),
    ...serverFields,
    /** Schema the ERP keeps its tables in; set as the session's search_path, so unqualified names resolve there. */
    schema: identifierSchema.optional(),
  })
  .superRefine(checkTls);

/** MariaDB/MySQL; missing fields fall back to MYSQL_URL, MYSQL_HOST, MYSQL_PORT, MYSQL_USER, MYSQL_PASSWORD, MYSQL_DATABASE. */
export const mysqlConnectionSchema = z.strictObject({ kind: z.literal('mysql'), ...serverFields }).superRefine(checkTls);

/** A SQLite database file (relative to the config file's folder). */
export const sqliteConnectionSchema = z.strictObject({
  kind: z.literal('sqlite'),
  name: z.string().optional(),
  path: z.string().min(1),
  /** Wait this long for a lock held by the ERP. @default 5000 */
  busyTimeoutMs: z.coerce.number().int().nonnegative().default(5000),
  /** Pipelines (shops) of one process reading the same query with the same cursor share one database round trip (read once, fan out; src/erp/sql/sharedReads.ts). @default true */
  shareReads: z.boolean().default(true),
  /** How long a shared answer stays reusable by runs that began before its query started. @default 2000 */
  shareReadsWindowMs: z.coerce.number().int().min(0).max(60_000).default(2000),
});

/** A folder tree where an ERP drops and picks up files. */
export const filesConnectionSchema = z.strictObject({
  kind: z.literal('files'),
  name: z.string().optional(),
  /** Root folder; sources and sinks name sub-folders below it. @default the config file's folder */
  folder: z.string().min(1).default('.'),
});

/** An HTTP JSON API. */
export const httpConnectionSchema = z.strictObject({
  kind: z.literal('http'),
  name: z.string().optional(),
  /** Base URL; source and sink paths are resolved against it. */
  baseUrl: z.url(),
  /** Header carrying the credential, e.g. `{ header: Authorization, value: 'Bearer ${ERP_TOKEN}' }`. */
  auth: z.strictObject({ header: z.string().min(1).default('Authorization'), value: z.string().min(1) }).optional(),
  /** Extra headers sent with every request. */
  headers: z.record(z.string(), z.string()).default({}),
  /** One deadline per request (each attempt): connecting, the headers and the whole body must arrive within it. @default 30000 */
  timeoutMs: z.coerce.number().int().positive().default(30_000),
  /**
   * Largest answer body read, in bytes (after decompression); a larger one fails with
   * CONNECTOR_RESPONSE_TOO_LARGE while it is read, instead of filling memory. @default 67108864 (64 MiB)
   */
  maxResponseBytes: z.coerce.number().int().positive().default(64 * 1024 * 1024),
  /** Attempts after the first on network errors, 5xx and 429. @default 5 */
  retries: z.coerce.number().int().min(0).max(20).default(5),
  /** First backoff delay, doubled per attempt (with jitter). @default 500 */
  backoffMs: z.coerce.number().int().nonnegative().default(500),
  /** Backoff ceiling, also caps Retry-After. @default 30000 */
  maxBackoffMs: z.coerce.number().int().nonnegative().default(30_000),
});

/** A named ERP connection, discriminated on `kind`. */
export const connectionSchema = z.discriminatedUnion('kind', [
  postgresConnectionSchema,
  mysqlConnectionSchema,
  sqliteConnectionSchema,
  filesConnectionSchema,
  httpConnectionSchema,
  jsonrpcConnectionSchema,
]);

export type Connection = z.output<typeof connectionSchema>;
export type ConnectionInput = z.input<typeof connectionSchema>;
export type PostgresConnection = z.output<typeof postgresConnectionSchema>;
export type MysqlConnection = z.output<typeof mysqlConnectionSchema>;
export type SqliteConnection = z.output<typeof sqliteConnectionSchema>;
export type FilesConnection = z.output<typeof filesConnectionSchema>;
export type HttpConnection = z.output<typeof httpConnectionSchema>;
export type { JsonrpcConnection } from './jsonrpc/config.js';
export { jsonrpcConnectionSchema };
