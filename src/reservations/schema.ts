/** The pipeline's `reservations:` block (issue 43; docs/configuration.md "reservations"). */
import { z } from 'zod';
import { durationSchema } from '../erp/sql/lookback.js';

/** How the ERP says it booked a shop order. */
export const bookedSchema = z.union(
  [
    z.strictObject({
      /** SQL on the pipeline's ERP source connection answering the ids of booked orders; `:orders` expands to the candidate shop order ids. */
      query: z.string().min(1).refine((q) => q.includes(':orders'), { message: 'the booked query names the candidate orders as `:orders`, e.g. `... WHERE orders_id IN (:orders)`' }),
      /** Column of the answer holding the shop order id. @default the first column */
      column: z.string().min(1).optional(),
    }),
    z.strictObject({
      /** For ERPs that cannot say: an order is booked once the ERP stock record's own change time (its cursor column) is later than the time the orders pull delivered it. */
      changedAfter: z.literal(true),
    }),
  ],
  { error: 'expected booked: { query: "SELECT orders_id FROM ... WHERE ... AND orders_id IN (:orders)" } or booked: { changedAfter: true }' },
);

export const reservationsSchema = z.strictObject({
  booked: bookedSchema,
  /** The storages_id the shop's orders take from: its storages[] row is reduced too. Absent: storages[] rows are the ERP's, only the article's total (and SKUs) are reduced. */
  warehouse: z.coerce.number().int().min(1).optional(),
  /** Orders are read again from this many days before the day of the last read (the export filters by day). @default 1 */
  overlapDays: z.coerce.number().int().min(0).max(60).default(1),
  /** An order unbooked for longer is an alert (STOCK_UNBOOKED_STUCK: the ERP's import is stuck). @default 24h */
  // A definition parsed once already (the config loader, then runPipeline) holds milliseconds.
  alertAfter: durationSchema.default(24 * 3_600_000),
});

/** A validated `reservations:` block. */
export type ReservationsConfig = z.output<typeof reservationsSchema>;
/** `booked:` as validated. */
export type BookedConfig = z.output<typeof bookedSchema>;
