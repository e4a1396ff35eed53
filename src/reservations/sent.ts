/**
 * "Stock travels on its own": a stock figure whose outgoing value, ERP figure and reserved units
 * equal the last ones actually sent for that record and field is dropped from the payload, so a price or text change never re-sends
 * (and never undoes) a booking the shop made meanwhile. The article total and storages[] rows are
 * dropped; options[] entries keep their quantity, because the options import replaces the SKU's
 * data (a SKU entry without quantity could reset it).
 */
import type { StockDef } from '../shop/registry/index.js';
import { isRecord } from '../util/guards.js';
import type { StockFigure } from './apply.js';
import type { StockSent } from './types.js';

/** The payload without unchanged stock figures, and the rows to remember once the shop accepted it. */
export function dropUnchangedStock(
  payload: Record<string, unknown>,
  stock: StockDef,
  figures: readonly StockFigure[],
  last: readonly StockSent[],
  meta: { readonly pipeline: string; readonly recordKey: string; readonly at: string },
): { payload: Record<string, unknown>; remember: StockSent[]; dropped: string[] } {
  const before = new Map(last.map((r) => [r.field, r]));
  // Equal only when the ERP's figure and the units reserved are as well: a new ERP figure less newly
  // reserved units can come out at the value sent before while the shop, having booked those orders
  // since, shows less (ERP 4 sent 4; an order of 3, the shop shows 1; ERP 7 less 3 = 4 must go out).
  const unchanged = (f: StockFigure): boolean => {
    const row = before.get(f.field);
    return row !== undefined && row.sent === String(f.sent) && row.erp === String(f.erp) && row.reserved === String(f.reserved);
  };
  const dropped = new Set(figures.filter((f) => f.kind !== 'skus' && unchanged(f)).map((f) => f.field));
  const remember = figures
    .filter((f) => !dropped.has(f.field))
    .map((f) => ({ pipeline: meta.pipeline, recordKey: meta.recordKey, field: f.field, erp: String(f.erp), reserved: String(f.reserved), sent: String(f.sent), at: meta.at }));
  if (dropped.size === 0) return { payload, remember, dropped: [] };
  const out: Record<string, unknown> = { ...payload };
  for (const def of stock.fields) {
    if (def.kind === 'scalar' && dropped.has(def.field)) delete out[def.field];
    if (def.kind === 'rows' && Array.isArray(out[def.list])) {
      out[def.list] = (out[def.list] as unknown[]).map((row) => {
        if (!isRecord(row)) return row;
        const field = `${def.list}[${def.keys.map((k) => String(row[k] ?? 0)).join('/')}].${def.quantity}`;
        if (!dropped.has(field)) return row;
        const { [def.quantity]: _gone, ...rest } = row;
        return rest;
      });
    }
  }
  return { payload: out, remember, dropped: [...dropped] };
}
