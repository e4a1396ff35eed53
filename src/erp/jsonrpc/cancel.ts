/**
 * Cancelling the ERP's record of an order the shop cancelled (issue 44), for the jsonrpc sink.
 *
 * The sink never writes to a record it finds (the ERP may have processed it); a cancellation is the
 * one change it carries, and only through the model's own cancel button (Tryton `sale.sale.cancel`,
 * which runs the workflow: its cache, its checks), only while the sale is in a state where cancelling
 * harms nothing (Tryton: draft, quotation). A confirmed or processing sale may have shipped or been
 * invoiced: it is left untouched and the order becomes a dead letter naming the sale and its state,
 * because only a human can decide what undoing it means (a return, a credit note).
 *
 * Tryton's cancel button quietly skips a sale whose state has no transition to `cancelled` (an
 * already cancelled one, or one confirmed meanwhile): calling it twice does no harm, but it does not
 * say what it did either. So the states are read back after every call, and before a call is sent
 * again after a lost answer; a sale the button left uncancelled is refused with its state.
 */
import type { Logger } from '../../log.js';
import { sleep } from '../../util/time.js';
import type { ErpRecord, SinkOutcome } from '../types.js';
import type { RpcClient } from './client.js';
import type { JsonrpcConnection, JsonrpcSinkConfig } from './config.js';
import { JSONRPC_CODES, RpcError } from './errors.js';

/** The cancel option with the dialect's defaults filled in. */
export interface CancelRules {
  readonly from: string;
  readonly values: ReadonlySet<string>;
  readonly button: string;
  readonly states: readonly string[];
  readonly cancelled: string;
  readonly stateField: string;
  readonly numberField: string;
}

/** What the ERP's cancel button and states are called where the config does not say. */
const DEFAULTS = {
  tryton: { button: 'cancel', states: ['draft', 'quotation'], cancelled: 'cancelled', numberField: 'number' },
  // sale.order.action_cancel; not run against a real Odoo here: the states read back after the call are what counts.
  odoo: { button: 'action_cancel', states: ['draft', 'sent'], cancelled: 'cancel', numberField: 'name' },
} as const;

/** The sink's cancel rules, or undefined when it has no `cancel:`. */
export function cancelRules(cfg: JsonrpcSinkConfig, dialect: JsonrpcConnection['dialect']): CancelRules | undefined {
  const c = cfg.cancel;
  if (!c) return undefined;
  const d = DEFAULTS[dialect];
  return { from: c.from, values: new Set(c.values.map(String)), button: c.button ?? d.button, states: c.states ?? [...d.states], cancelled: c.cancelled ?? d.cancelled, stateField: c.stateField, numberField: c.numberField ?? d.numberField };
}

/** A copy of `values` without the dotted path `path` (objects along it copied, never mutated). */
export function withoutPath(values: Record<string, unknown>, path: string): Record<string, unknown> {
  const [head, ...rest] = path.split('.');
  if (head === undefined || !(head in values)) return values;
  const out = { ...values };
  const inner = out[head];
  if (rest.length === 0) delete out[head];
  else if (inner !== null && typeof inner === 'object' && !Array.isArray(inner)) out[head] = withoutPath(inner as Record<string, unknown>, rest.join('.'));
  return out;
}

/** An ERP record found by its reference, with what the cancel needs of it. */
export interface FoundRecord {
  readonly id: number;
  readonly state?: string;
  readonly number?: string;
}

/** One record whose sale the batch cancels. */
export interface CancelItem {
  /** Index of the record in the batch. */
  readonly index: number;
  readonly ref: string;
  readonly id: number;
  /** Created by this batch (outcome `created`), else found (outcome `updated`). */
  readonly created: boolean;
  readonly number?: string;
}

/** How the sink names the ERP and its model in messages. */
export interface CancelContext {
  readonly client: RpcClient;
  readonly model: string;
  readonly conn: JsonrpcConnection;
  readonly logger: Logger;
}

function erpName(client: RpcClient): string {
  return client.dialect === 'tryton' ? 'Tryton' : 'Odoo';
}

function named(model: string, sale: { id: number; number?: string }): string {
  return `${model} ${sale.id}${sale.number ? ` (${sale.number})` : ''}`;
}

/** What to do with a found record of a cancelled order: leave it (already cancelled), cancel it, or refuse (past the cancellable states). */
export function foundCancelled(rules: CancelRules, ctx: Pick<CancelContext, 'client' | 'model'>, ref: string, value: unknown, sale: FoundRecord): 'cancel' | SinkOutcome {
  const { model, client } = ctx;
  const details = { model, id: sale.id, reference: ref, ...(sale.number ? { number: sale.number } : {}), state: sale.state ?? null };
  if (sale.state === rules.cancelled) {
    return { kind: 'kept', message: `${named(model, sale)} of shop order ${ref} is already ${rules.cancelled} in ${erpName(client)}: the cancel button was not called again, and the sale was not written to`, details };
  }
  if (sale.state !== undefined && rules.states.includes(sale.state)) return 'cancel';
  return {
    kind: 'refused',
    code: JSONRPC_CODES.cancelRefused,
    message:
      `shop order ${ref} was cancelled in the shop (${rules.from} ${JSON.stringify(value)}), but ${named(model, sale)} is ${sale.state ?? 'in an unknown state'} in ${erpName(client)}: it was left untouched. ` +
      `The sink cancels only ${rules.states.join('/')} sales; a ${sale.state ?? 'later'} sale may have been shipped or invoiced already, so a human decides: cancel it in ${erpName(client)} (or handle the return there), then retry or drop this letter`,
    details,
  };
}

/** Read the states of `ids` back. */
async function statesOf(ctx: CancelContext, rules: CancelRules, ids: readonly number[]): Promise<Map<number, string | undefined>> {
  const rows = await ctx.client.searchRead(ctx.model, [['id', 'in', [...ids]]], ['id', rules.stateField]);
  const out = new Map<number, string | undefined>();
  for (const row of rows) if (typeof row.id === 'number') out.set(row.id, typeof row[rules.stateField] === 'string' ? (row[rules.stateField] as string) : undefined);
  return out;
}

/** One button call; a lost answer is followed by a read of the states, and only sales still cancellable are sent again. */
async function press(ctx: CancelContext, rules: CancelRules, ids: readonly number[]): Promise<RpcError | undefined> {
  let pending = ids;
  for (let attempt = 0; ; attempt++) {
    try {
      await ctx.client.call(ctx.model, rules.button, [pending], undefined, { retry: false });
      return undefined;
    } catch (err) {
      if (err instanceof RpcError && err.fault && !err.fault.session) return err;
      if (!(err instanceof RpcError) || err.code !== JSONRPC_CODES.unreachable || attempt >= ctx.conn.retries) throw err;
      const states = await statesOf(ctx, rules, pending);
      pending = pending.filter((id) => rules.states.includes(states.get(id) ?? ''));
      ctx.logger.warn({ ids: pending, attempt: attempt + 1, error: err.message }, pending.length === 0 ? 'the answer to a cancel was lost, but every sale is past it (read back): not sent again' : 'the answer to a cancel was lost and some sales are still cancellable (read back): sending the cancel for those again');
      if (pending.length === 0) return undefined;
      await sleep(Math.min(ctx.conn.maxBackoffMs, ctx.conn.backoffMs * 2 ** attempt));
    }
  }
}

/**
 * Cancel the sales of `items` (one button call for the batch; record by record when the ERP refuses
 * it), then read their states back: each is `created`/`updated` when cancelled, else refused with its state.
 */
export async function cancelAll(ctx: CancelContext, rules: CancelRules, items: readonly CancelItem[], outcomes: SinkOutcome[]): Promise<void> {
  if (items.length === 0) return;
  const errors = new Map<number, RpcError>();
  const failed = await press(ctx, rules, items.map((i) => i.id));
  if (failed && items.length === 1) errors.set(items[0]!.id, failed);
  else if (failed) {
    ctx.logger.info({ records: items.length, error: failed.message }, 'the ERP refused the cancel of the batch: cancelling its sales one by one, so only the refused one is left out');
    for (const item of items) {
      const err = await press(ctx, rules, [item.id]);
      if (err) errors.set(item.id, err);
    }
  }
  const states = await statesOf(ctx, rules, items.map((i) => i.id));
  const erp = erpName(ctx.client);
  for (const item of items) {
    const state = states.get(item.id);
    if (state === rules.cancelled) {
      ctx.logger.info({ reference: item.ref, id: item.id, created: item.created }, `cancelled through ${ctx.model}.${rules.button}`);
      outcomes[item.index] = { kind: item.created ? 'created' : 'updated' };
      continue;
    }
    const why = errors.get(item.id)?.message ?? `the button answered, but ${erp} holds it as ${state ?? 'missing'} (a person may have confirmed it meanwhile)`;
    const live = item.created ? ` It was created by this run and is a live ${state ?? ''} sale in ${erp}: cancel it there.` : ` Cancel it in ${erp} if it must be, then retry or drop this letter.`;
    outcomes[item.index] = {
      kind: 'refused',
      code: JSONRPC_CODES.cancelRefused,
      message: `shop order ${item.ref} was cancelled in the shop, but ${ctx.model}.${rules.button} did not cancel ${named(ctx.model, item)}: ${why}.${live}`,
      details: { model: ctx.model, id: item.id, reference: item.ref, state: state ?? null, ...(item.number ? { number: item.number } : {}), created: item.created },
    };
  }
}

/** The record's value at `from` when it says "cancelled", else undefined. */
export function cancelledValue(rules: CancelRules, read: (r: ErpRecord) => unknown, record: ErpRecord): { value: unknown } | undefined {
  const value = read(record);
  return value !== undefined && value !== null && rules.values.has(String(value)) ? { value } : undefined;
}
