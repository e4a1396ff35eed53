/**
 * A reconciliation report: what differs between the ERP (as the pipeline maps it) and the shop.
 * The JSON report holds the counts and the first entries of each kind; the CSV beside it holds
 * every entry. Reports are files, read back by the CLI and the dashboard through this schema.
 */
import { z } from 'zod';

/** How many entries of each kind the JSON report keeps (the CSV has them all). */
export const SAMPLE_SIZE = 100;

/**
 * One differing field. `erp` is what a push would send; for a stock field with `stock: reserved`
 * that is the ERP's figure (`onHand`) less the units of unbooked shop orders (`reserved`, `orders`).
 */
const fieldChange = z.object({ field: z.string(), shop: z.unknown(), erp: z.unknown(), onHand: z.number().optional(), reserved: z.number().optional(), orders: z.array(z.number()).optional() });

/** Reservations of the reconciliation (issue 43): what the ERP side had subtracted before comparing. */
export const reservationsSchema = z.object({
  /**
   * `reserved`: stock compared as ERP figure − unbooked orders; `available`: the ERP figure as it is;
   * `missing`: the mapping writes stock without `stock:` (STOCK_CHOICE_MISSING), compared as it is.
   */
  stock: z.enum(['reserved', 'available', 'missing']),
  /** Units of unbooked shop orders subtracted over every compared record (a SKU's units count once, as its article total's). */
  units: z.number(),
  /** Records whose stock had units subtracted. */
  records: z.number().int(),
  /** Distinct unbooked shop orders behind them (the first of them in `orderIds`). */
  orders: z.number().int(),
  orderIds: z.array(z.number()),
});

/** An ERP record the shop does not have. */
export const onlyInErpSchema = z.object({ erpKey: z.string(), shopKey: z.string() });
/** A shop record no ERP record maps to. */
export const onlyInShopSchema = z.object({ shopKey: z.string(), shopId: z.union([z.string(), z.number()]) });
/** A record on both sides whose mapped fields differ. */
export const differentSchema = z.object({ erpKey: z.string(), shopKey: z.string(), shopId: z.union([z.string(), z.number()]), fields: z.array(fieldChange) });
/**
 * A guarded field (`owner: guard`) the shop's people changed: a conflict, not drift, and never repaired
 * (issue 46). `sent` is what shopsync last sent; absent when it does not know.
 */
export const conflictSchema = z.object({ erpKey: z.string(), shopId: z.union([z.string(), z.number()]), field: z.string(), erp: z.unknown(), sent: z.unknown().optional(), shop: z.unknown() });
/** An ERP record the mapping refused (not drift: a dead letter of the pipeline would say the same). */
export const refusedSchema = z.object({ erpKey: z.string(), code: z.string(), message: z.string() });

const counts = z.object({
  /** ERP records read (flagged inactive ones left out). */
  erp: z.number().int(),
  /** Shop records read. */
  shop: z.number().int(),
  matched: z.number().int(),
  onlyInErp: z.number().int(),
  onlyInShop: z.number().int(),
  different: z.number().int(),
  /** Shop records without an ERP record that are deactivated already (onMissing did its work): not drift. */
  retired: z.number().int(),
  refused: z.number().int(),
  /** Guarded fields the shop's people changed (issue 46); absent in reports written before. */
  conflicts: z.number().int().optional(),
});

/** What a repair did (`--repair`). */
export const repairSchema = z.object({
  runId: z.number().int(),
  status: z.string(),
  pushed: z.number().int(),
  created: z.number().int(),
  updated: z.number().int(),
  failed: z.number().int(),
  deactivated: z.number().int(),
  deleted: z.number().int(),
  /** Why shop-only records were left alone (onMissing: ignore, or the mass-deletion guard). */
  shopOnly: z.string().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

/** One reconciliation. */
export const reconcileReportSchema = z.object({
  version: z.literal(1),
  id: z.string(),
  pipeline: z.string(),
  shop: z.string(),
  resource: z.string(),
  /** `shopKey`: ERP and shop records are paired by the mapping's shop key; `reference`: by the stored references. */
  matchBy: z.enum(['shopKey', 'reference']),
  shopKey: z.string(),
  startedAt: z.string(),
  finishedAt: z.string(),
  durationMs: z.number(),
  /** Records that drift: only in the ERP + only in the shop + different. */
  drift: z.number().int(),
  counts,
  /** Field paths that differ, with how many records differ in each. */
  fields: z.record(z.string(), z.number().int()),
  onlyInErp: z.array(onlyInErpSchema),
  onlyInShop: z.array(onlyInShopSchema),
  different: z.array(differentSchema),
  refused: z.array(refusedSchema),
  /** The first guarded fields the shop's people changed (the CSV has them all, kind `conflict`); absent in reports written before issue 46. */
  conflicts: z.array(conflictSchema).optional(),
  /** The CSV report's file name (beside the JSON). */
  csv: z.string(),
  /** Time reading and mapping the ERP side, and reading and comparing the shop side. */
  phases: z.object({ erpMs: z.number(), shopMs: z.number() }).optional(),
  repair: repairSchema.optional(),
  /** Present when the mapping writes stock of the resource. */
  reservations: reservationsSchema.optional(),
});

export type ReconcileReport = z.infer<typeof reconcileReportSchema>;
export type RepairResult = z.infer<typeof repairSchema>;
export type ReconcileCounts = z.infer<typeof counts>;
export type ReconcileConflict = z.infer<typeof conflictSchema>;
export type ReconcileReservations = z.infer<typeof reservationsSchema>;
