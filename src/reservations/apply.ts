/**
 * Subtract unbooked order quantities from a mapped payload's stock fields, before it is hashed:
 * the article's total (all its lines, with or without SKU: the shop books both), each SKU entry by
 * its model, and the storages[] row of the warehouse the shop sells from when the pipeline names
 * it (`reservations.warehouse`); other storages[] rows are the ERP's figures as they are.
 */
import type { StockDef, StockFieldDef } from '../shop/registry/index.js';
import { isRecord } from '../util/guards.js';
import { reservedFigure } from './figure.js';
import type { ReservationLine } from './types.js';

/** One stock figure of a payload: where it is, what the ERP said, what was subtracted, what goes out. */
export interface StockFigure {
  /** `products_quantity`, `storages[1/0].products_quantity`, `options[SKU-1].quantity`. */
  readonly field: string;
  readonly kind: StockFieldDef['kind'];
  readonly erp: number;
  readonly reserved: number;
  readonly sent: number;
  readonly orders: readonly number[];
}

/** A warning of the push (STOCK_OVERSOLD). */
export interface StockWarning {
  readonly code: string;
  readonly message: string;
  readonly field: string;
}

/** What applying gave. */
export interface Applied {
  readonly payload: Record<string, unknown>;
  readonly figures: StockFigure[];
  readonly warnings: StockWarning[];
}

const num = (v: unknown): number | undefined => {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
};

/** The value written back in the type it came in (a decimal string stays a string). */
const like = (original: unknown, value: number): unknown => (typeof original === 'string' ? String(value) : value);

function sum(lines: readonly ReservationLine[]): { units: number; orders: number[] } {
  return { units: lines.reduce((n, l) => n + l.quantity, 0), orders: [...new Set(lines.map((l) => l.ordersId))] };
}

/**
 * Apply `lines` (the unbooked lines of this payload's article) to its stock fields. `subtract`
 * false only reads the figures (mapping `stock: available`): nothing is taken off.
 */
export function applyReservations(payload: Record<string, unknown>, stock: StockDef, lines: readonly ReservationLine[], options: { readonly subtract: boolean; readonly warehouse?: number }): Applied {
  const figures: StockFigure[] = [];
  const warnings: StockWarning[] = [];
  const out: Record<string, unknown> = { ...payload };
  const take = (field: string, kind: StockFieldDef['kind'], original: unknown, from: readonly ReservationLine[]): unknown => {
    const erp = num(original);
    if (erp === undefined) return original;
    const { units, orders } = options.subtract ? sum(from) : { units: 0, orders: [] };
    // Nothing reserved: the ERP's figure as it is, a negative one too (it is the ERP's to show).
    const sent = units === 0 ? erp : reservedFigure(erp, units);
    if (options.subtract && erp - units < 0) {
      warnings.push({ code: 'STOCK_OVERSOLD', field, message: `the ERP has ${erp} and the shop's orders ${orders.join(', ')} not yet booked there take ${units}: the shop has sold more than there is; 0 is sent` });
    }
    figures.push({ field, kind, erp, reserved: erp - sent, sent, orders });
    return sent === erp ? original : like(original, sent);
  };
  for (const def of stock.fields) {
    if (def.kind === 'scalar') {
      if (def.field in out) out[def.field] = take(def.field, 'scalar', out[def.field], lines);
    } else if (def.kind === 'rows') {
      const rows = out[def.list];
      if (!Array.isArray(rows)) continue;
      out[def.list] = rows.map((row) => {
        if (!isRecord(row) || !(def.quantity in row)) return row;
        const id = def.keys.map((k) => String(row[k] ?? 0)).join('/');
        const field = `${def.list}[${id}].${def.quantity}`;
        const warehouse = num(row[def.warehouse]);
        const plain = def.keys.filter((k) => k !== def.warehouse).every((k) => (num(row[k]) ?? 0) === 0);
        // Only the warehouse the shop sells from, and only its article row (a SKU's row is keyed by a shop id the ledger does not hold).
        const from = options.warehouse !== undefined && warehouse === options.warehouse && plain ? lines : [];
        return { ...row, [def.quantity]: take(field, 'rows', row[def.quantity], from) };
      });
    } else {
      const entries = out[def.list];
      if (!Array.isArray(entries)) continue;
      out[def.list] = entries.map((entry) => {
        if (!isRecord(entry) || !(def.quantity in entry) || typeof entry[def.model] !== 'string') return entry;
        const model = entry[def.model] as string;
        return { ...entry, [def.quantity]: take(`${def.list}[${model}].${def.quantity}`, 'skus', entry[def.quantity], lines.filter((l) => l.sku === model)) };
      });
    }
  }
  return { payload: out, figures, warnings };
}
