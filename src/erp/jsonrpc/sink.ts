/**
 * The JSON-RPC sink: each mapped record becomes one ERP record (a Tryton `sale.sale`, an Odoo
 * `sale.order`) created through `<model>.create`, exactly once.
 *
 * Neither ERP knows an idempotency key, so the record's reference (the shop's order id, in Tryton's
 * `reference` or Odoo's `client_order_ref`) is searched before creating: one search per batch. A
 * record found there is not created again and not written to (the ERP may have processed it since:
 * confirmed, shipped, invoiced); it counts as `updated`, meaning "already in the ERP". A create whose
 * answer was lost is looked up again by its reference before it is sent again.
 *
 * A record the ERP refuses (UserError, ValidationError, AccessError) is `refused` with the ERP's
 * message and dead-lettered; the other records of the batch are created.
 */
import type { JsonrpcConnection } from './config.js';
import type { JsonrpcSinkConfig } from './config.js';
import type { ConnectorContext, ErpRecord, Sink, SinkBatch, SinkOutcome, SinkResult } from '../types.js';
import { CONNECTOR_CODES } from '../errors.js';
import { pathReader } from '../values.js';
import { sleep } from '../../util/time.js';
import { openRpcClient, type RpcClient } from './client.js';
import { one2manyValue } from './dialects.js';
import { JSONRPC_CODES, RpcError } from './errors.js';

/** References per search call: a batch's worth, bounded so the domain stays a sane size. */
const SEARCH_CHUNK = 500;

interface Prepared {
  readonly index: number;
  /** The reference as text: what the search matches and the ERP's char field holds. */
  readonly ref: string;
  readonly values: Record<string, unknown>;
}

type Refused = Extract<SinkOutcome, { kind: 'refused' }>;

/** Open a JSON-RPC sink: logs in, and checks that the model and its fields exist and that the user may create there. */
export async function jsonrpcSink(conn: JsonrpcConnection, cfg: JsonrpcSinkConfig, ctx: ConnectorContext): Promise<Sink> {
  const client = await openRpcClient(conn, ctx);
  const field = cfg.reference.field;
  let refIsText = true;
  try {
    refIsText = await checkModel(client, cfg);
  } catch (err) {
    await client.close();
    throw err;
  }
  const logger = ctx.logger.child({ model: cfg.model });
  const readRef = pathReader(cfg.reference.from ?? field);
  // A top-level `from` other than the field is the mapping's name for it: sent under `field` only (the ERP knows no other).
  const dropFrom = cfg.reference.from !== undefined && !cfg.reference.from.includes('.') && cfg.reference.from !== field ? cfg.reference.from : undefined;
  const target = `${cfg.model} on ${client.target}`;

  function prepare(record: ErpRecord, index: number): Prepared | Refused {
    const raw = readRef(record);
    if (raw === undefined || raw === null || raw === '') {
      return refused(JSONRPC_CODES.referenceMissing, `the mapped record has no ${cfg.reference.from ?? field}, so ${cfg.model} could not be searched for it before creating: not created. Map the shop's order id to ${cfg.reference.from ?? field}`);
    }
    const values: Record<string, unknown> = { ...record };
    if (dropFrom !== undefined) delete values[dropFrom];
    values[field] = refIsText ? String(raw) : raw;
    for (const name of cfg.one2many) {
      const children = values[name];
      if (children === undefined || children === null) continue;
      if (!Array.isArray(children) || !children.every((c) => c !== null && typeof c === 'object' && !Array.isArray(c))) {
        return refused(CONNECTOR_CODES.invalidRecord, `${name} is listed in the sink's one2many but the mapped record's ${name} is not a list of objects (${JSON.stringify(children)?.slice(0, 80)})`);
      }
      values[name] = one2manyValue(client.dialect, children as Record<string, unknown>[]);
    }
    return { index, ref: String(raw), values };
  }

  /** Which references the ERP holds already, with the record's id. */
  async function existing(refs: readonly string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    const unique = [...new Set(refs)];
    for (let i = 0; i < unique.length; i += SEARCH_CHUNK) {
      const chunk = unique.slice(i, i + SEARCH_CHUNK);
      const rows = await client.searchRead(cfg.model, [[field, 'in', refIsText ? chunk : chunk.map(asNumberIfNumeric)]], ['id', field]);
      for (const row of rows) if (typeof row.id === 'number') found.set(String(row[field]), row.id);
    }
    return found;
  }

  /** Create one record; a lost answer is looked up by reference before the create is sent again. */
  async function createOne(p: Prepared): Promise<SinkOutcome> {
    for (let attempt = 0; ; attempt++) {
      try {
        const [id] = await client.create(cfg.model, [p.values]);
        logger.debug({ reference: p.ref, id }, 'created');
        return { kind: 'created' };
      } catch (err) {
        const outcome = refusal(err);
        if (outcome) return outcome;
        if (!(err instanceof RpcError) || err.code !== JSONRPC_CODES.unreachable || attempt >= conn.retries) throw err;
        const id = (await existing([p.ref])).get(p.ref);
        if (id !== undefined) {
          logger.info({ reference: p.ref, id }, 'the answer to a create was lost, but the record is there (found by its reference): created once');
          return { kind: 'created' };
        }
        const waitMs = Math.min(conn.maxBackoffMs, conn.backoffMs * 2 ** attempt);
        logger.warn({ reference: p.ref, attempt: attempt + 1, waitMs, error: err.message }, 'create failed and the record is not there: sending it again');
        await sleep(waitMs);
      }
    }
  }

  /** One create call for the batch; when the ERP refuses it (one bad record fails it whole) or its answer is lost, record by record. */
  async function createAll(todo: readonly Prepared[], outcomes: SinkOutcome[]): Promise<void> {
    let oneByOne = todo;
    if (!cfg.perRecord && todo.length > 1) {
      try {
        await client.create(cfg.model, todo.map((p) => p.values));
        for (const p of todo) outcomes[p.index] = { kind: 'created' };
        return;
      } catch (err) {
        if (refusal(err)) {
          logger.info({ records: todo.length, error: (err as RpcError).message }, 'the ERP refused the batch: creating its records one by one, so only the refused one is left out');
        } else if (err instanceof RpcError && err.code === JSONRPC_CODES.unreachable) {
          // One call is one transaction on the server: all of the batch is there, or none of it.
          const found = await existing(todo.map((p) => p.ref));
          for (const p of todo) if (found.has(p.ref)) outcomes[p.index] = { kind: 'created' };
          oneByOne = todo.filter((p) => !found.has(p.ref));
          logger.warn({ records: todo.length, found: todo.length - oneByOne.length }, 'the answer to a batch create was lost: looked its references up');
        } else throw err;
      }
    }
    for (const p of oneByOne) outcomes[p.index] = await createOne(p);
  }

  async function write(batch: SinkBatch): Promise<SinkResult> {
    const outcomes: SinkOutcome[] = new Array<SinkOutcome>(batch.records.length);
    const prepared: Prepared[] = [];
    batch.records.forEach((record, index) => {
      const p = prepare(record, index);
      if ('kind' in p) outcomes[index] = p;
      else prepared.push(p);
    });
    const found = await existing(prepared.map((p) => p.ref));
    const todo: Prepared[] = [];
    const queued = new Set<string>();
    for (const p of prepared) {
      const id = found.get(p.ref);
      if (queued.has(p.ref)) {
        outcomes[p.index] = refused(JSONRPC_CODES.recordRefused, `another record of the same batch carries ${field} ${p.ref}: only the first is created. Check that the mapping writes each shop record's own id into ${cfg.reference.from ?? field}`);
      } else if (id !== undefined) {
        logger.info({ reference: p.ref, id }, `already in the ERP (found by ${field}): not created again, and not written to`);
        outcomes[p.index] = { kind: 'updated' };
      } else {
        queued.add(p.ref);
        todo.push(p);
      }
    }
    await createAll(todo, outcomes);
    return { outcomes };
  }

  return { kind: 'jsonrpc', target, write, close: () => client.close() };
}

function refused(code: string, message: string, details?: Record<string, unknown>): Refused {
  return { kind: 'refused', code, message, ...(details ? { details } : {}) };
}

/** An error answer about the data sent (not the session): that record is refused with the ERP's message. */
function refusal(err: unknown): Refused | undefined {
  if (!(err instanceof RpcError) || !err.fault || err.fault.session) return undefined;
  return refused(JSONRPC_CODES.recordRefused, `the ERP refused the record (${err.fault.type}): ${err.fault.message}`, { errorType: err.fault.type });
}

function asNumberIfNumeric(ref: string): string | number {
  return /^-?\d+$/.test(ref) ? Number(ref) : ref;
}

/** The model answers fields_get with the reference and one2many fields, and the user may create there; says whether the reference is a text field. */
async function checkModel(client: RpcClient, cfg: JsonrpcSinkConfig): Promise<boolean> {
  const names = [cfg.reference.field, ...cfg.one2many];
  let fields: unknown;
  try {
    fields = await client.call(cfg.model, 'fields_get', [names], client.dialect === 'odoo' ? { attributes: ['type', 'relation'] } : undefined);
  } catch (err) {
    if (!(err instanceof RpcError) || err.code !== JSONRPC_CODES.callFailed) throw err;
    throw new RpcError(JSONRPC_CODES.modelMismatch, `${cfg.model} does not answer fields_get on ${client.target} (${err.message}): check the sink's model (Tryton sale.sale, Odoo sale.order) and that its module is activated`, { cause: err });
  }
  const known = (fields ?? {}) as Record<string, { type?: unknown }>;
  const missing = names.filter((n) => known[n] === undefined);
  if (missing.length > 0) throw new RpcError(JSONRPC_CODES.modelMismatch, `${cfg.model} on ${client.target} has no field ${missing.join(', ')} (named by the sink's ${missing.includes(cfg.reference.field) ? 'reference.field' : 'one2many'})`);
  const notLists = cfg.one2many.filter((n) => known[n]?.type !== 'one2many');
  if (notLists.length > 0) throw new RpcError(JSONRPC_CODES.modelMismatch, `${cfg.model}'s ${notLists.join(', ')} ${notLists.length > 1 ? 'are not one2many fields' : 'is not a one2many field'} (type ${notLists.map((n) => String(known[n]?.type)).join(', ')}): remove ${notLists.length > 1 ? 'them' : 'it'} from the sink's one2many`);
  if (!(await mayCreate(client, cfg.model))) throw new RpcError(JSONRPC_CODES.modelMismatch, `the ERP user may not create ${cfg.model} records on ${client.target}: give the user's group create access to ${cfg.model}`);
  const type = known[cfg.reference.field]?.type;
  return type === 'char' || type === 'text';
}

async function mayCreate(client: RpcClient, model: string): Promise<boolean> {
  if (client.dialect === 'odoo') return (await client.call(model, 'check_access_rights', ['create'], { raise_exception: false }, { retry: true })) === true;
  const access = (await client.call('ir.model.access', 'get_access', [[model]], undefined, { retry: true })) as Record<string, { create?: unknown }> | null;
  return access?.[model]?.create !== false;
}
