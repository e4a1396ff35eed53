/**
 * Restore marks and the user's say-so (`RewindStore`), kept as JSON values in the `state_marks`
 * table. The logic lives here once; each backend only reads and writes one named value.
 */
import type { RestoreMark, RewindAcceptance, RewindStore } from './store.js';

/** One named JSON value of the state_marks table. */
export interface MarkTable {
  get(name: string): Promise<string | undefined>;
  put(name: string, value: string): Promise<void>;
}

const RESTORED = 'restored';
const accepted = (pipeline: string) => `accepted:${pipeline}`;
const inFlight = (pipeline: string) => `inflight:${pipeline}`;

/** The rewind store over a backend's mark table. */
export class MarkedRewinds implements RewindStore {
  constructor(private readonly marks: MarkTable) {}

  private async read<T>(name: string): Promise<T | undefined> {
    const text = await this.marks.get(name);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  restored(): Promise<RestoreMark | undefined> {
    return this.read<RestoreMark>(RESTORED);
  }

  async markRestored(mark: RestoreMark): Promise<void> {
    await this.marks.put(RESTORED, JSON.stringify(mark));
  }

  acceptance(pipeline: string): Promise<RewindAcceptance | undefined> {
    return this.read<RewindAcceptance>(accepted(pipeline));
  }

  async accept(pipeline: string, at: number): Promise<RewindAcceptance> {
    const mark = await this.restored();
    const value: RewindAcceptance = { acceptedAt: at, ...(mark ? { restoredAt: mark.restoredAt } : {}), open: true };
    await this.marks.put(accepted(pipeline), JSON.stringify(value));
    return value;
  }

  async caughtUp(pipeline: string): Promise<void> {
    const current = await this.acceptance(pipeline);
    if (current?.open) await this.marks.put(accepted(pipeline), JSON.stringify({ ...current, open: false }));
    // Everything sent is now recorded as delivered: the keys kept for a lost acknowledgement are done with.
    if ((await this.marks.get(inFlight(pipeline))) !== undefined) await this.marks.put(inFlight(pipeline), '[]');
  }

  async inFlight(pipeline: string): Promise<ReadonlySet<string>> {
    return new Set((await this.read<string[]>(inFlight(pipeline))) ?? []);
  }

  async setInFlight(pipeline: string, keys: readonly string[]): Promise<void> {
    await this.marks.put(inFlight(pipeline), JSON.stringify(keys));
  }
}

/** Whether the state's restore (if any) is accepted for the pipeline. */
export function restoreAccepted(mark: RestoreMark | undefined, acceptance: RewindAcceptance | undefined): boolean {
  return mark === undefined || acceptance?.restoredAt === mark.restoredAt;
}
