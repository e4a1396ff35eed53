/**
 * `trigger:` of a pipeline: what wakes it besides its schedule. A schedule may stay beside a
 * trigger as a safety net (a lost wake-up then waits at most one schedule period); a pipeline with
 * only a trigger runs on wake-ups alone, and once after every (re)connect of its listener.
 */
import { z } from 'zod';
import { durationSchema } from '../erp/sql/lookback.js';

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/** The wake-up sources of one pipeline; several may stand together (e.g. `notify` and `hook`). */
export const triggerSchema = z.strictObject({
  /**
   * PostgreSQL source: LISTEN on a channel that triggers installed by `shopsync erp notify-setup`
   * NOTIFY once per statement. `true` uses the channel `shopsync_<pipeline>` (lower-cased, `-`/`.` → `_`).
   */
  notify: z.union([z.literal(true), z.strictObject({ channel: z.string().regex(CHANNEL, 'a channel name uses a–z, digits and _, at most 63').optional() })]).optional(),
  /**
   * File-drop source: watch its inbox folder and wake when a file is complete as the source judges it
   * (`stability`: unchanged for `settleMs`, or its marker file) — one definition for watcher and
   * reader. `rescan`: look at the folder this often anyway (events lost, network shares). @default rescan 30s
   */
  watch: z
    .union([z.literal(true), z.strictObject({ rescan: durationSchema.default(30_000) })], {
      error: 'expected watch: true or watch: { rescan: 30s }; when a file is complete is the source\'s stability.settleMs (or marker), not a setting of the watcher',
    })
    .optional(),
  /** Any source: `POST /hooks/<pipeline>` on the daemon wakes it, signed with this secret (HMAC-SHA256, replay-protected). */
  hook: z.strictObject({ secret: z.string().min(16, 'a hook secret needs at least 16 characters; take it from the environment: secret: ${HOOK_SECRET}') }).optional(),
  /** SQL source (MariaDB/MySQL, or any without NOTIFY): ask "anything newer than the cursor?" this often (e.g. `2s`). */
  poll: durationSchema.refine((ms) => ms >= 100, 'poll at most every 100ms, e.g. poll: 2s').optional(),
  /**
   * Wake-ups within this long after the first become one run, and a follow-up run waits this long
   * after the run before it. One second: the latency bench's p95 stays under 2 s while a steady
   * stream of changes costs about a quarter of the requests that 200 ms cost. @default 1s
   */
  debounce: durationSchema.default(1000),
});

/** A validated `trigger:` block. */
export type TriggerConfig = z.output<typeof triggerSchema>;

/** The NOTIFY channel of a pipeline: configured, or derived from its name. */
export function notifyChannel(pipeline: string, trigger: TriggerConfig): string | undefined {
  if (!trigger.notify) return undefined;
  if (trigger.notify !== true && trigger.notify.channel) return trigger.notify.channel;
  return `shopsync_${pipeline.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`.slice(0, 63);
}
