/** The pull pipeline's `follow:` block (issue 44; docs/pipelines-and-state.md "Orders after checkout"). */
import { z } from 'zod';
import { durationSchema } from '../erp/sql/lookback.js';

const statusIds = z.array(z.coerce.number().int().min(0));

export const followSchema = z
  .strictObject({
    /** How often a run of the pipeline also reads the delivered orders again (0s: every run). A run between passes reads only new orders. @default 1h */
    // A definition parsed once already (the config loader, then runPipeline) holds milliseconds.
    every: durationSchema.default(3_600_000),
    /** Final statuses: an order in one is no longer read again (e.g. delivered, cancelled). */
    until: statusIds.min(1, 'name the final statuses, e.g. until: [3, 4] (shipped, cancelled)'),
    /** Statuses that mean cancelled: the change is `cancelled`, reservations are released, and a push never re-opens the order. @default [] */
    cancelled: statusIds.default([]),
    /** Statuses that mean returned: the change is `return`. @default [] */
    returned: statusIds.default([]),
    /**
     * Statuses after which an order only waits for a final one (e.g. shipped, waiting for a return):
     * such an order is no longer read by its day or id; each pass asks the shop once per final status
     * for the orders that reached it. A change that does not move it to a final status is not seen. @default []
     */
    // Optional rather than a default: a parsed block without it stays as it was (configs, init's output).
    settled: statusIds.optional(),
    /** Orders placed more days ago are no longer followed, whatever their status. @default 14 */
    maxAgeDays: z.coerce.number().int().min(1).max(366).default(14),
  })
  .superRefine((f, ctx) => {
    const final = new Set(f.until);
    for (const id of f.settled ?? []) if (final.has(id)) ctx.addIssue({ code: 'custom', path: ['settled'], message: `status ${id} is in until (final) and in settled: a settled order still waits for a final status, so take it out of one of them` });
    for (const id of f.cancelled) if (!final.has(id)) ctx.addIssue({ code: 'custom', path: ['cancelled'], message: `status ${id} means cancelled but is not final: add it to until, or a cancelled order is read again until maxAgeDays` });
  });

/** A validated `follow:` block. */
export type FollowConfig = z.output<typeof followSchema>;
