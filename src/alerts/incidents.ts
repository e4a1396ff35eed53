/**
 * Incidents and the messages about them. An incident (`run-failed:products`, `stale:stock`,
 * `shop-auth`) sends one message when it opens and one when it recovers, never more in between;
 * every message is scrubbed of the config's secrets, and at most `maxPerHour` messages go out per
 * hour (the rest are logged). Open incidents live in memory: a restarted daemon reports a problem
 * that still exists once more, which is the safer side.
 */
import type { Logger } from '../log.js';
import type { AlertChannel } from './channels.js';

/** The kinds of incident. */
/** `mass-delete`: the mass-deletion guard refused a pipeline's onMissing step; `reconcile-drift`: a reconciliation found more drift than `reconcile.alertAbove`. */
export type IncidentKind = 'run-failed' | 'dead-letters' | 'stale' | 'shop-auth' | 'mass-delete' | 'reconcile-drift';

/** What a channel receives. */
export interface AlertMessage {
  readonly incident: string;
  readonly kind: IncidentKind;
  readonly state: 'firing' | 'resolved';
  readonly pipeline?: string;
  readonly title: string;
  readonly text: string;
  /** When the incident opened. */
  readonly since: string;
  readonly at: string;
}

interface Open {
  readonly since: string;
}

/** Opens and closes incidents and sends their messages. */
export class Incidents {
  private readonly open = new Map<string, Open>();
  private readonly sentAt: number[] = [];

  constructor(
    private readonly channels: readonly AlertChannel[],
    private readonly options: { readonly maxPerHour: number; readonly secrets: readonly string[]; readonly logger: Logger; readonly now?: () => number },
  ) {}

  /** Incidents open now. */
  list(): string[] {
    return [...this.open.keys()];
  }

  /** Open an incident (a message goes out only the first time). */
  async fire(kind: IncidentKind, pipeline: string | undefined, title: string, text: string): Promise<void> {
    const id = pipeline ? `${kind}:${pipeline}` : kind;
    if (this.open.has(id)) return;
    const since = new Date(this.now()).toISOString();
    this.open.set(id, { since });
    await this.send({ incident: id, kind, state: 'firing', ...(pipeline ? { pipeline } : {}), title, text, since, at: since });
  }

  /** Close an incident, if open (one recovery message). */
  async resolve(kind: IncidentKind, pipeline: string | undefined, title: string, text: string): Promise<void> {
    const id = pipeline ? `${kind}:${pipeline}` : kind;
    const was = this.open.get(id);
    if (!was) return;
    this.open.delete(id);
    await this.send({ incident: id, kind, state: 'resolved', ...(pipeline ? { pipeline } : {}), title, text, since: was.since, at: new Date(this.now()).toISOString() });
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private scrub(text: string): string {
    let out = text;
    for (const s of this.options.secrets) if (s.length >= 4) out = out.split(s).join('[redacted]');
    return out;
  }

  private async send(raw: AlertMessage): Promise<void> {
    const message: AlertMessage = { ...raw, title: this.scrub(raw.title), text: this.scrub(raw.text) };
    const hourAgo = this.now() - 3_600_000;
    while (this.sentAt.length > 0 && (this.sentAt[0] as number) < hourAgo) this.sentAt.shift();
    if (this.sentAt.length >= this.options.maxPerHour) {
      this.options.logger.warn({ incident: message.incident, state: message.state }, `alert not sent: more than ${this.options.maxPerHour} alerts this hour (alerts.maxPerHour)`);
      return;
    }
    this.sentAt.push(this.now());
    await Promise.all(
      this.channels.map(async (channel) => {
        try {
          await channel.send(message);
          this.options.logger.info({ incident: message.incident, state: message.state, channel: channel.name }, 'alert sent');
        } catch (err) {
          this.options.logger.error({ incident: message.incident, channel: channel.name, err: err instanceof Error ? err.message : String(err) }, 'alert could not be sent');
        }
      }),
    );
  }
}
