/**
 * Where lookups ask: one port per lookup over the ERP connection it names. An RPC port searches a
 * model (one `search_read` per batch of values on a plain field; one search per value through a
 * dotted relation, whose rows do not carry the value compared); an SQL port runs the user's query
 * once per value with `:value` bound.
 */
import { ConfigError } from '../../errors.js';
import { connectionSchema, openRpcClient, openSqlReader, type Connection, type ConnectionInput, type ConnectorContext } from '../../erp/index.js';
import { parseConfig } from '../../erp/errors.js';
import { compileNamed } from '../../erp/sql/params.js';
import type { SqlDriver } from '../../erp/sql/driver.js';
import { jsonSafe } from '../../erp/values.js';
import { isRpcLookup, type LookupDef, type RpcLookupDef, type SqlLookupDef } from './schema.js';

/** A lookup's value as the ERP is asked for it. */
export type LookupValue = string | number;

/** What a lookup needs of the ERP. */
export interface LookupPort {
  /** What the ERP holds for each value: the `returns` of every record matching it (an empty list: none). Keyed by `String(value)`. */
  find(values: readonly LookupValue[]): Promise<Map<string, unknown[]>>;
  /** Create a record and answer its `returns`; absent where the lookup cannot create. */
  create?(values: Record<string, unknown>): Promise<unknown>;
  /** What the port searches, for messages: `party.party.contact_mechanisms.value in tryton`. */
  readonly describe: string;
}

/** The part of a JSON-RPC client (src/erp/jsonrpc/client.ts) a lookup uses. */
export interface RpcLookupClient {
  searchRead(model: string, domain: unknown[], fields: string[], options?: { limit?: number }): Promise<Record<string, unknown>[]>;
  create(model: string, valuesList: Record<string, unknown>[]): Promise<unknown[]>;
  close(): Promise<void>;
}

/** Opens what a lookup's connection speaks; the run closes what it opened. */
export interface LookupConnections {
  sql(name: string): Promise<SqlDriver>;
  rpc(name: string): Promise<RpcLookupClient>;
  close(): Promise<void>;
}

/** A Many2One read the Odoo way (`[id, name]`) is its id, as Tryton answers it. */
function idOf(v: unknown): unknown {
  return Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' && typeof v[1] === 'string' ? v[0] : v;
}

/** An RPC port on a model. */
export function rpcPort(client: RpcLookupClient, def: RpcLookupDef, connection: string): LookupPort {
  const dotted = def.field.includes('.');
  const fields = [...new Set(['id', def.returns, ...(dotted ? [] : [def.field])])];
  return {
    describe: `${def.model}.${def.field} in ${connection}`,
    async find(values) {
      const out = new Map<string, unknown[]>();
      for (const v of values) out.set(String(v), []);
      if (values.length === 0) return out;
      if (!dotted) {
        for (const row of await client.searchRead(def.model, [[def.field, 'in', [...values]]], fields)) out.get(String(row[def.field]))?.push(idOf(row[def.returns]));
        return out;
      }
      for (const v of values) {
        // Two are enough to know the answer is not one.
        const rows = await client.searchRead(def.model, [[def.field, '=', v]], fields, { limit: 2 });
        out.set(String(v), rows.map((r) => idOf(r[def.returns])));
      }
      return out;
    },
    async create(values) {
      const model = def.create?.model ?? def.model;
      const [id] = await client.create(model, [values]);
      if (def.returns === 'id' || model !== def.model) return id;
      const [row] = await client.searchRead(model, [['id', '=', id]], [def.returns], { limit: 1 });
      return idOf(row?.[def.returns]);
    },
  };
}

/** An SQL port: the query once per value. */
export function sqlPort(driver: SqlDriver, def: SqlLookupDef, connection: string): LookupPort {
  return {
    describe: `the query of ${connection}`,
    async find(values) {
      const out = new Map<string, unknown[]>();
      for (const v of values) {
        const { sql, params } = compileNamed(def.query, { value: v }, driver.style);
        const rows = await driver.query(sql, params);
        out.set(String(v), rows.map((r) => jsonSafe(def.returns !== undefined ? r[def.returns] : Object.values(r)[0])));
        if (def.returns !== undefined && rows[0] && !(def.returns in rows[0])) {
          throw new ConfigError(`lookup query on ${connection} answers the columns ${Object.keys(rows[0]).join(', ')}, not \`returns: ${def.returns}\``);
        }
      }
      return out;
    },
  };
}

/** Connections opened on first use, each once per run. */
export function lookupConnections(connections: Readonly<Record<string, Connection | ConnectionInput>>, ctx: ConnectorContext): LookupConnections {
  const sql = new Map<string, Promise<SqlDriver>>();
  const rpc = new Map<string, Promise<RpcLookupClient>>();
  const connection = (name: string): Connection => {
    const c = connections[name];
    if (!c) throw new ConfigError(`lookup connection \`${name}\` is not under \`connections:\` (known: ${Object.keys(connections).join(', ') || 'none'})`);
    // Parsed again: defaults (timeouts, session renewal) are the schema's, whoever built the object.
    return parseConfig(connectionSchema, c, 'connection');
  };
  const once = <T>(map: Map<string, Promise<T>>, name: string, open: () => Promise<T>): Promise<T> => {
    let p = map.get(name);
    if (!p) {
      p = open();
      p.catch(() => map.delete(name));
      map.set(name, p);
    }
    return p;
  };
  return {
    sql: (name) =>
      once(sql, name, async () => {
        const c = connection(name);
        if (c.kind !== 'postgres' && c.kind !== 'mysql' && c.kind !== 'sqlite') throw new ConfigError(`lookup with \`query:\` needs a SQL connection; \`${name}\` is kind ${c.kind} (an RPC lookup takes \`model:\` and \`field:\`)`);
        return openSqlReader(c, ctx);
      }),
    rpc: (name) =>
      once(rpc, name, async () => {
        const c = connection(name);
        if (c.kind !== 'jsonrpc') throw new ConfigError(`lookup with \`model:\` and \`field:\` needs a \`kind: jsonrpc\` connection; \`${name}\` is kind ${c.kind} (an SQL lookup takes \`query:\`)`);
        return openRpcClient(c, { logger: ctx.logger.child({ connector: 'jsonrpc', connection: name, part: 'lookups' }) });
      }),
    async close() {
      const all = [...sql.values(), ...rpc.values()];
      sql.clear();
      rpc.clear();
      await Promise.allSettled(all.map(async (p) => (await p).close()));
    },
  };
}

/** The port of one lookup over its connection. */
export async function openPort(def: LookupDef, connections: LookupConnections): Promise<LookupPort> {
  if (isRpcLookup(def)) return rpcPort(await connections.rpc(def.connection), def, def.connection);
  return sqlPort(await connections.sql(def.connection), def, def.connection);
}
