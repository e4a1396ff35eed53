/**
 * The JSON-RPC sink: each mapped record becomes one ERP record (a Tryton `sale.sale`, an Odoo
 * `sale.order`) created through `<model>.create`, exactly once.
 *
 * Neither ERP knows an idempotency key, so the record's reference (the shop's order id, in Tryton's
 * `reference` or Odoo's `client_order_ref`) is searched before creating: one search per batch. A
 * record found there is not created again and not written to (the ERP may have processed it since:
 * confirmed, shipped, invoiced); it is `kept`: counted unchanged, and a warning of the run when the
 * state had delivered an earlier version (the change did not reach the ERP). A create whose
 * answer was lost is looked up again by its reference before it is sent again.
 *
 * A record the ERP refuses (UserError, ValidationError, AccessError) is `refused` with the ERP's
 * message and dead-lettered; the other records of the batch are created.
 *
 * With `cancel:`, a record saying its order is cancelled has its sale cancelled through the model's
 * button while that is harmless, or created and cancelled in the same batch when the ERP has none
 * (it never sees the order as a live sale); a sale past those states is refused (./cancel.ts).
 */
import type { JsonrpcConnection } from './config.js';
import type { JsonrpcSinkConfig } from './config.js';
import type { ConnectorContext, ErpRecord, Sink, SinkBatch, SinkOutcome, SinkResult } from '../types.js';
import { CONNECTOR_CODES } from '../errors.js';
import { pathReader } from '../values.js';
import { sleep } from '../../util/time.js';
import { openRpcClient, type RpcClient } from './client.js';
import { cancelAll, cancelledValue, cancelRules, foundCancelled, withoutPath, type CancelItem, type CancelRules, type FoundRecord } from './cancel.js';
import { one2manyValue } from './dialects.js';
import { JSONRPC_CODES, RpcError } from './errors.js';

/** References per search call: a batch's worth, bounded so the domain stays a sane size. */
const SEARCH_CHUNK = 500;

interface Prepared {
  readonly index: number;
  /** The reference as text: what the search matches and the ERP's char field holds. */
  readonly ref: string;
  readonly values: Record<string, unknown>;
  /** The record's `cancel.from` value when it says the order is cancelled. */
  readonly cancel?: { readonly value: unknown };
}

type Refused = Extract<SinkOutcome, { kind: 'refused' }>;

/** Open a JSON-RPC sink: logs in, and checks that the model and its fields exist and that the user may create there. */
export async function jsonrpcSink(conn: JsonrpcConnection, cfg: JsonrpcSinkConfig, ctx: ConnectorContext): Promise<Sink> {
  const client = await openRpcClient(conn, ctx);
  const field = cfg.reference.field;
  let refIsText = true;
  const rules = cancelRules(cfg, client.dialect);
  try {
    refIsText = await checkModel(client, cfg, rules);
  } catch (err) {
    await client.close();
    throw err;
  }
  const logger = ctx.logger.child({ model: cfg.model });
  const readRef = pathReader(cfg.reference.from ?? field);
  // A top-level `from` other than the field is the mapping's name for it: sent under `field` only (the ERP knows no other).
  const dropFrom = cfg.reference.from !== undefined && !cfg.reference.from.includes('.') && cfg.reference.from !== field ? cfg.reference.from : undefined;
  const target = `${cfg.model} on ${client.target}`;
  const readCancel = rules ? pathReader(rules.from) : undefined;
  const cancelCtx = { client, model: cfg.model, conn, logger };

  function prepare(record: ErpRecord, index: number): Prepared | Refused {
    const raw = readRef(record);
    if (raw === undefined || raw === null || raw === '') {
      return refused(JSONRPC_CODES.referenceMissing, `the mapped record has no ${cfg.reference.from ?? field}, so ${cfg.model} could not be searched for it before creating: not created. Map the shop's order id to ${cfg.reference.from ?? field}`);
    }
    // The cancel signal is the mapping's word to shopsync, not a field of the ERP's model.
    const values: Record<string, unknown> = rules ? withoutPath(record, rules.from) : { ...record };
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
    const cancel = rules && readCancel ? cancelledValue(rules, readCancel, record) : undefined;
    return { index, ref: String(raw), values, ...(cancel ? { cancel } : {}) };
  }

  /** Which references the ERP holds already, with the record's id (and state and number when the sink cancels). */
  async function existing(refs: readonly string[]): Promise<Map<string, FoundRecord>> {
    const found = new Map<string, FoundRecord>();
    const fields = ['id', field, ...(rules ? [rules.stateField, rules.numberField] : [])];
    const unique = [...new Set(refs)];
    for (let i = 0; i < unique.length; i += SEARCH_CHUNK) {
      const chunk = unique.slice(i, i + SEARCH_CHUNK);
      const rows = await client.searchRead(cfg.model, [[field, 'in', refIsText ? chunk : chunk.map(asNumberIfNumeric)]], fields);
      for (const row of rows) if (typeof row.id === 'number') found.set(String(row[field]), { id: row.id, ...textField(row, rules?.stateField, 'state'), ...textField(row, rules?.numberField, 'number') });
    }
    return found;
  }

  /** Create one record (its id into `ids`); a lost answer is looked up by reference before the create is sent again. */
  async function createOne(p: Prepared, ids: Map<number, number>): Promise<SinkOutcome> {
    for (let attempt = 0; ; attempt++) {
      try {
        const [id] = await client.create(cfg.model, [p.values]);
        logger.debug({ reference: p.ref, id }, 'created');
        if (id !== undefined) ids.set(p.index, id);
        return { kind: 'created' };
      } catch (err) {
        const outcome = refusal(err);
        if (outcome) return outcome;
        if (!(err instanceof RpcError) || err.code !== JSONRPC_CODES.unreachable || attempt >= conn.retries) throw err;
        const id = (await existing([p.ref])).get(p.ref)?.id;
        if (id !== undefined) {
          logger.info({ reference: p.ref, id }, 'the answer to a create was lost, but the record is there (found by its reference): created once');
          ids.set(p.index, id);
          return { kind: 'created' };
        }
        const waitMs = Math.min(conn.maxBackoffMs, conn.backoffMs * 2 ** attempt);
        logger.warn({ reference: p.ref, attempt: attempt + 1, waitMs, error: err.message }, 'create failed and the record is not there: sending it again');
        await sleep(waitMs);
      }
    }
  }

  /** One create call for the batch; when the ERP refuses it (one bad record fails it whole) or its answer is lost, record by record. Returns the new ids by batch index. */
  async function createAll(todo: readonly Prepared[], outcomes: SinkOutcome[]): Promise<Map<number, number>> {
    const ids = new Map<number, number>();
    let oneByOne = todo;
    if (!cfg.perRecord && todo.length > 1) {
      try {
        const created = await client.create(cfg.model, todo.map((p) => p.values));
        todo.forEach((p, i) => {
          outcomes[p.index] = { kind: 'created' };
          ids.set(p.index, created[i]!);
        });
        return ids;
      } catch (err) {
        if (refusal(err)) {
          logger.info({ records: todo.length, error: (err as RpcError).message }, 'the ERP refused the batch: creating its records one by one, so only the refused one is left out');
        } else if (err instanceof RpcError && err.code === JSONRPC_CODES.unreachable) {
          // One call is one transaction on the server: all of the batch is there, or none of it.
          const found = await existing(todo.map((p) => p.ref));
          for (const p of todo) {
            const f = found.get(p.ref);
            if (f === undefined) continue;
            outcomes[p.index] = { kind: 'created' };
            ids.set(p.index, f.id);
          }
          oneByOne = todo.filter((p) => !found.has(p.ref));
          logger.warn({ records: todo.length, found: todo.length - oneByOne.length }, 'the answer to a batch create was lost: looked its references up');
        } else throw err;
      }
    }
    for (const p of oneByOne) outcomes[p.index] = await createOne(p, ids);
    return ids;
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
    const cancels: CancelItem[] = [];
    const queued = new Set<string>();
    for (const p of prepared) {
      const sale = found.get(p.ref);
      const id = sale?.id;
      if (queued.has(p.ref)) {
        outcomes[p.index] = refused(JSONRPC_CODES.recordRefused, `another record of the same batch carries ${field} ${p.ref}: only the first is created. Check that the mapping writes each shop record's own id into ${cfg.reference.from ?? field}`);
      } else if (sale !== undefined && p.cancel && rules) {
        const decided = foundCancelled(rules, cancelCtx, p.ref, p.cancel.value, sale);
        if (decided === 'cancel') cancels.push({ index: p.index, ref: p.ref, id: sale.id, created: false, ...(sale.number ? { number: sale.number } : {}) });
        else outcomes[p.index] = decided;
      } else if (id !== undefined) {
        logger.info({ reference: p.ref, id }, `already in the ERP (found by ${field}): not created again, and not written to`);
        outcomes[p.index] = { kind: 'kept', message: `${cfg.model} ${id} already carries ${field} ${p.ref}: it was not created again, and not written to (the ERP may have processed it since); a change of the shop's record does not reach it through this sink`, details: { model: cfg.model, id, reference: p.ref } };
      } else {
        queued.add(p.ref);
        todo.push(p);
      }
    }
    const ids = await createAll(todo, outcomes);
    // Created as the order was, cancelled in the same batch: the ERP never holds it as a live sale past this write.
    for (const p of todo) {
      const id = ids.get(p.index);
      if (p.cancel && id !== undefined && outcomes[p.index]?.kind === 'created') cancels.push({ index: p.index, ref: p.ref, id, created: true });
    }
    if (rules) await cancelAll(cancelCtx, rules, cancels, outcomes);
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

/** `{ [as]: text }` when the row's `name` holds text (Tryton answers `false`/null for an empty one). */
function textField(row: Record<string, unknown>, name: string | undefined, as: 'state' | 'number'): Partial<Record<'state' | 'number', string>> {
  const v = name === undefined ? undefined : row[name];
  return typeof v === 'string' && v !== '' ? { [as]: v } : {};
}

function asNumberIfNumeric(ref: string): string | number {
  return /^-?\d+$/.test(ref) ? Number(ref) : ref;
}

/** The model answers fields_get with the reference, one2many and cancel fields, and the user may create there; says whether the reference is a text field. */
async function checkModel(client: RpcClient, cfg: JsonrpcSinkConfig, rules: CancelRules | undefined): Promise<boolean> {
  const names = [cfg.reference.field, ...cfg.one2many, ...(rules ? [rules.stateField, rules.numberField] : [])];
  let fields: unknown;
  try {
    fields = await client.call(cfg.model, 'fields_get', [names], client.dialect === 'odoo' ? { attributes: ['type', 'relation', 'selection'] } : undefined);
  } catch (err) {
    if (!(err instanceof RpcError) || err.code !== JSONRPC_CODES.callFailed) throw err;
    throw new RpcError(JSONRPC_CODES.modelMismatch, `${cfg.model} does not answer fields_get on ${client.target} (${err.message}): check the sink's model (Tryton sale.sale, Odoo sale.order) and that its module is activated`, { cause: err });
  }
  const known = (fields ?? {}) as Record<string, { type?: unknown }>;
  const missing = names.filter((n) => known[n] === undefined);
  if (missing.length > 0) throw new RpcError(JSONRPC_CODES.modelMismatch, `${cfg.model} on ${client.target} has no field ${missing.join(', ')} (named by the sink's ${missing.includes(cfg.reference.field) ? 'reference.field' : cfg.one2many.some((n) => missing.includes(n)) ? 'one2many' : 'cancel.stateField / cancel.numberField'})`);
  if (rules) checkCancel(cfg, rules, client.target, known[rules.stateField] as { selection?: unknown });
  const notLists = cfg.one2many.filter((n) => known[n]?.type !== 'one2many');
  if (notLists.length > 0) throw new RpcError(JSONRPC_CODES.modelMismatch, `${cfg.model}'s ${notLists.join(', ')} ${notLists.length > 1 ? 'are not one2many fields' : 'is not a one2many field'} (type ${notLists.map((n) => String(known[n]?.type)).join(', ')}): remove ${notLists.length > 1 ? 'them' : 'it'} from the sink's one2many`);
  if (!(await mayCreate(client, cfg.model))) throw new RpcError(JSONRPC_CODES.modelMismatch, `the ERP user may not create ${cfg.model} records on ${client.target}: give the user's group create access to ${cfg.model}`);
  const type = known[cfg.reference.field]?.type;
  return type === 'char' || type === 'text';
}

/** The cancel states exist in the model's state selection, and the cancel signal is not the reference. */
function checkCancel(cfg: JsonrpcSinkConfig, rules: CancelRules, target: string, stateField: { selection?: unknown }): void {
  if (rules.from === (cfg.reference.from ?? cfg.reference.field)) throw new RpcError(JSONRPC_CODES.modelMismatch, `the sink's cancel.from (${rules.from}) is its reference too: map the shop's status to a field of its own (e.g. shop_status: { from: orders_status })`);
  // A selection computed by a method answers its name, not a list: nothing to compare then.
  if (!Array.isArray(stateField.selection)) return;
  const known = new Set(stateField.selection.map((o: unknown) => (Array.isArray(o) ? String(o[0]) : String(o))));
  const unknown = [...rules.states, rules.cancelled].filter((st) => !known.has(st));
  if (unknown.length > 0) throw new RpcError(JSONRPC_CODES.modelMismatch, `${cfg.model}.${rules.stateField} on ${target} has no state ${unknown.join(', ')} (named by the sink's cancel.states / cancel.cancelled); its states are ${[...known].join(', ')}`);
}

async function mayCreate(client: RpcClient, model: string): Promise<boolean> {
  if (client.dialect === 'odoo') return (await client.call(model, 'check_access_rights', ['create'], { raise_exception: false }, { retry: true })) === true;
  const access = (await client.call('ir.model.access', 'get_access', [[model]], undefined, { retry: true })) as Record<string, { create?: unknown }> | null;
  return access?.[model]?.create !== false;
}
