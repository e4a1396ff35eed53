/**
 * The change latency of one push run: every record the shop took (created or updated) whose
 * cursor is a timestamp is observed once its settlement committed, from its change timestamp to
 * the moment the shop answered the request that carried it, if it is the first delivery of that
 * source version. Records settled without a request (unchanged, read again by the lookback)
 * delivered nothing and are not observed; a record sent again whose change time is not later than
 * the newest version delivered before (re-read by the lookback and sent again because the mapping
 * changed, a retry of a delivered record, the older of two rows of one key) is no late change and is
 * not observed either. The run's histogram is written to its row at most once a second and when
 * the run ends.
 */
import type { Logger } from '../../log.js';
import type { StateStore } from '../../state/index.js';
import type { SyncEvents } from '../events.js';
import { changeTimeOf, deliveredStamp, isNewVersion, LatencyHistogram } from '../latency.js';
import type { Settlement } from './work.js';

/** How a push run observes change latency; absent: it does not (first syncs, backfills, retries). */
export interface ChangeLatencyOptions {
  /** The ERP's zone offset (ms east of UTC) for naive timestamps; see `naiveOffsetOf`. @default 0 (UTC) */
  readonly naiveOffsetMs?: number;
  /** Write the run's histogram at most this often while it runs. @default 1000 */
  readonly saveEveryMs?: number;
}

/** One run's latency recorder. */
export class ChangeLatencyRecorder {
  readonly histogram = new LatencyHistogram();
  private dirty = false;
  private lastSave = 0;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly o: ChangeLatencyOptions & { readonly state: StateStore; readonly runId: number; readonly pipeline: string; readonly resource: string; readonly events?: SyncEvents; readonly logger: Logger },
  ) {}

  /** Observe the delivered records of committed settlements; `answeredAt` is when the shop answered their request. */
  delivered(settlements: readonly Settlement[], answeredAt: number): void {
    const seconds: number[] = [];
    let skewed = 0;
    for (const s of settlements) {
      if (s.kind !== 'done' || s.quiet === true || (s.outcome !== 'created' && s.outcome !== 'updated') || !s.item.position) continue;
      const changed = changeTimeOf(s.item.position.value, this.o.naiveOffsetMs);
      if (changed === undefined) continue;
      const stamp = deliveredStamp(s.item.position.value);
      if (stamp !== undefined && !isNewVersion(stamp, s.item.deliveredChange)) continue;
      const raw = (answeredAt - changed) / 1000;
      if (raw < 0) skewed++;
      seconds.push(this.histogram.observe(raw));
    }
    if (seconds.length === 0) return;
    this.dirty = true;
    this.o.events?.emit({ type: 'changes-delivered', runId: this.o.runId, pipeline: this.o.pipeline, resource: this.o.resource, seconds, skewed });
    if (Date.now() - this.lastSave >= (this.o.saveEveryMs ?? 1000)) void this.save();
  }

  /** Write the histogram now if anything was observed since the last write; waits for writes under way. */
  async flush(): Promise<void> {
    await this.save();
  }

  private save(): Promise<void> {
    this.saving = this.saving.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      this.lastSave = Date.now();
      try {
        await this.o.state.runs.saveLatency(this.o.runId, this.histogram.toJSON());
      } catch (err) {
        // A measurement, not bookkeeping: a failed write loses some of the dashboard's figures, never a record.
        this.o.logger.warn({ err }, 'the run\'s change latency could not be written to the state; the dashboard\'s p50/p95 miss it');
      }
    });
    return this.saving;
  }
}
