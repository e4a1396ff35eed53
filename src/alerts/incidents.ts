/**
 * Incidents and the messages about them. An incident (`run-failed:products`, `stale:stock`,
 * `shop-auth:at`) sends one message when it opens and one when it recovers, never more in between;
 * every message is scrubbed of the config's secrets, and at most `maxPerHour` messages go out per
 * hour from the whole deployment (the rest are logged).
 *
 * Incidents live in the state, not in memory, because replicas on one PostgreSQL state each see
 * only the runs they ran: opening and resolving are atomic claims (`IncidentStore`), and only the
 * replica whose claim changed the incident sends, so a person gets one message per incident
 * whatever the number of replicas. A claimed message stays in the state under a lease until it is
 * out; should its sender die first, another replica sends it once the lease ran out. When the state
 * cannot be reached, an opening message goes out without de-duplication rather than not at all.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import { describeError } from '../util/describeError.js';
import type { IncidentMessage, IncidentStore } from '../state/index.js';
import type { AlertChannel } from './channels.js';
import type { Cause } from './causes.js';

/**
 * The kinds of incident. `mass-delete`: the mass-deletion guard refused a pipeline's onMissing
 * step; `reconcile-drift`: a reconciliation found more drift than `reconcile.alertAbove`;
 * `watermark-held`: an ERP transaction stayed open longer than `alerts.watermarkHeldMinutes` and
 * holds a pipeline's cursor back; `shop-auth`: a shop refuses the credentials; `shop-unreachable`: a shop does not answer (or answers 5xx after every retry); `shop-circuit-open`: a shop's circuit breaker is open; `shop-paused`: a
 * shop failing for long is no longer asked; `shop-failing`: a shop's runs failed `failingShops.warnAfterRuns` times in a row; `shop-broken`: a shop's file did not load at the daemon's start; `stock-unbooked-stuck` (STOCK_UNBOOKED_STUCK): a shop order has waited longer than a stock push's `reservations.alertAfter` for the ERP to book it (src/alerts/stockUnbooked.ts). `shop-auth`, `shop-unreachable`, `shop-circuit-open`, `shop-paused`, `shop-failing` and `shop-broken` concern a shop as a whole
 * (keyed by shop); the others a pipeline (keyed by pipeline, which has one shop).
 */
export type IncidentKind = 'run-failed' | 'dead-letters' | 'stale' | 'pipeline-overdue' | 'shop-auth' | 'shop-unreachable' | 'shop-circuit-open' | 'shop-paused' | 'shop-failing' | 'shop-broken' | 'mass-delete' | 'reconcile-drift' | 'watermark-held' | 'stock-unbooked-stuck';

/** What an incident is about: a pipeline (and its shop), or a shop as a whole. */
export interface IncidentScope {
  readonly pipeline?: string;
  readonly shop?: string;
}

/** An incident's id: `kind:pipeline` when it has a pipeline (a pipeline has one shop, and ids stay as they were), else `kind:shop`, else `kind`. */
export function incidentId(kind: IncidentKind, scope: IncidentScope): string {
  const key = scope.pipeline ?? scope.shop;
  return key ? `${kind}:${key}` : kind;
}

/** The scope of the older call `fire(kind, pipeline, …)`. */
const scopeOf = (where: string | undefined | IncidentScope): IncidentScope => (typeof where === 'string' ? { pipeline: where } : (where ?? {}));

/** What a channel receives. */
export interface AlertMessage {
  readonly incident: string;
  readonly kind: IncidentKind;
  readonly state: 'firing' | 'resolved';
  readonly pipeline?: string;
  /** The shop it concerns (every incident of a pipeline carries its pipeline's shop): for routing per client. */
  readonly shop?: string;
  /** Why, when it concerns the shop as a whole (src/alerts/causes.ts): `auth`, `unreachable`, `circuit-open`, `paused`, `failing`. */
  readonly cause?: Cause;
  /** A shop-level incident's pipelines folded into it: those it held when it opened (firing), every one it held (resolved). */
  readonly pipelines?: readonly string[];
  readonly title: string;
  readonly text: string;
  /** When the incident opened. */
  readonly since: string;
  readonly at: string;
}

/** A message as the state keeps it until it is out (`since` comes from the incident's row). */
type Stored = Omit<AlertMessage, 'since'>;

/** What a message carries beside its text. */
export interface IncidentExtras {
  readonly cause?: Cause;
  /** Pipelines the incident holds from the start (a shop-level incident opened by a pipeline's). */
  readonly members?: readonly string[];
}

/** Options of `Incidents`. */
export interface IncidentOptions {
  readonly maxPerHour: number;
  readonly secrets: readonly string[];
  readonly logger: Logger;
  readonly now?: () => number;
  /** How long a replica may take to send a claimed message before another one takes it over; longer than the slowest channel's retries. @default 300000 */
  readonly leaseMs?: number;
}

/** Opens and closes incidents and sends their messages. */
export class Incidents {
  /** Sends of the last hour, counted here only while the state cannot be reached. */
  private readonly sentAt: number[] = [];
  private readonly leaseMs: number;

  constructor(
    private readonly channels: readonly AlertChannel[],
    private readonly store: IncidentStore,
    private readonly options: IncidentOptions,
  ) {
    this.leaseMs = options.leaseMs ?? 300_000;
  }

  /** Incidents open now, in the whole deployment. */
  list(): Promise<string[]> {
    return this.store.listOpen();
  }

  /** Open an incident (a message goes out only from the call that opened it); `where` is a pipeline's name or `{ pipeline?, shop? }`; true when this call opened it. */
  async fire(kind: IncidentKind, where: string | undefined | IncidentScope, title: string, text: string, extras: IncidentExtras = {}): Promise<boolean> {
    const scope = scopeOf(where);
    const id = incidentId(kind, scope);
    const at = this.now();
    const message: Stored = { incident: id, kind, state: 'firing', ...this.fields(scope, extras.cause, extras.members), title: this.scrub(title), text: this.scrub(text), at: new Date(at).toISOString() };
    const claim = randomUUID();
    let opened: boolean;
    try {
      opened = await this.store.open(id, at, JSON.stringify(message), claim, this.leaseMs, extras.members);
    } catch (err) {
      // A state that cannot be reached is when runs fail: better a message per replica than none.
      this.options.logger.error({ incident: id, err: describeError(err) }, 'alert state unreachable: sending the alert without de-duplication');
      await this.send({ ...message, since: message.at });
      return true;
    }
    if (opened) await this.deliver(claim, { ...message, since: message.at });
    return opened;
  }

  /** Hold a pipeline in an open shop-level incident (no message); false when that incident is not open, or the state cannot be reached (then the caller alerts otherwise). */
  async join(kind: IncidentKind, shop: string, pipeline: string): Promise<boolean> {
    const id = incidentId(kind, { shop });
    try {
      return await this.store.join(id, pipeline);
    } catch (err) {
      this.options.logger.warn({ incident: id, pipeline, err: describeError(err) }, 'alert state unreachable: the pipeline is not folded into its shop incident');
      return false;
    }
  }

  /**
   * Close an incident, if open (one recovery message, from the call that closed it); `where` as in
   * `fire`. A text given as a function gets the pipelines the incident held, read once it is
   * resolved (no pipeline joins a resolved incident, so the list is complete).
   */
  async resolve(kind: IncidentKind, where: string | undefined | IncidentScope, title: string, text: string | ((held: readonly string[]) => string), extras: Pick<IncidentExtras, 'cause'> = {}): Promise<boolean> {
    const scope = scopeOf(where);
    const id = incidentId(kind, scope);
    const at = new Date(this.now()).toISOString();
    const build = (held: readonly string[] | undefined): Stored => ({
      incident: id,
      kind,
      state: 'resolved',
      ...this.fields(scope, extras.cause, held?.length ? held : undefined),
      title: this.scrub(title),
      text: this.scrub(typeof text === 'function' ? text(held ?? []) : text),
      at,
    });
    const before = typeof text === 'function' ? await this.store.members(id) : undefined;
    const claim = randomUUID();
    const since = await this.store.resolve(id, JSON.stringify(build(before)), claim, this.leaseMs);
    if (since === undefined) return false;
    // A pipeline may have joined between the read and the claim: the list of the resolved row is final.
    const held = before === undefined ? undefined : await this.store.members(id);
    await this.deliver(claim, { ...build(held), since: new Date(since).toISOString() });
    return true;
  }

  /** Send the messages whose sender died before it confirmed them (the lease ran out). */
  async resendOverdue(): Promise<number> {
    const claim = randomUUID();
    const overdue = await this.store.takeOverdue(claim, this.leaseMs);
    for (const row of overdue) {
      this.options.logger.warn({ incident: row.id, state: row.state }, 'alert taken over: the process that claimed it did not confirm it within the lease');
      await this.deliver(claim, this.restore(row));
    }
    return overdue.length;
  }

  private restore(row: IncidentMessage): AlertMessage {
    return { ...(JSON.parse(row.message) as Stored), since: new Date(row.since).toISOString() };
  }

  private fields(scope: IncidentScope, cause?: Cause, pipelines?: readonly string[]): Pick<AlertMessage, 'pipeline' | 'shop' | 'cause' | 'pipelines'> {
    return { ...(scope.pipeline ? { pipeline: scope.pipeline } : {}), ...(scope.shop ? { shop: scope.shop } : {}), ...(cause ? { cause } : {}), ...(pipelines ? { pipelines: [...pipelines] } : {}) };
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private scrub(text: string): string {
    let out = text;
    for (const s of this.options.secrets) if (s.length >= 4) out = out.split(s).join('[redacted]');
    return out;
  }

  /** Send a claimed message, then release the claim (also when the rate limit holds it back: it is logged, not retried). */
  private async deliver(claim: string, message: AlertMessage): Promise<void> {
    await this.send(message);
    await this.store.sent(message.incident, claim);
  }

  /** Within `maxPerHour` of the deployment (counted in the state), or of this process when the state cannot be reached. */
  private async withinBudget(): Promise<boolean> {
    try {
      return await this.store.takeSendSlot(this.options.maxPerHour);
    } catch (err) {
      this.options.logger.warn({ err: describeError(err) }, 'alert budget not readable from the state: counting alerts.maxPerHour in this process');
      const hourAgo = this.now() - 3_600_000;
      while (this.sentAt.length > 0 && (this.sentAt[0] as number) < hourAgo) this.sentAt.shift();
      if (this.sentAt.length >= this.options.maxPerHour) return false;
      this.sentAt.push(this.now());
      return true;
    }
  }

  /** Send a message through every channel, within `maxPerHour`. */
  private async send(message: AlertMessage): Promise<void> {
    if (!(await this.withinBudget())) {
      this.options.logger.warn({ incident: message.incident, state: message.state }, `alert not sent: more than ${this.options.maxPerHour} alerts this hour (alerts.maxPerHour)`);
    } else {
      await Promise.all(
        this.channels.map(async (channel) => {
          try {
            await channel.send(message);
            this.options.logger.info({ incident: message.incident, state: message.state, channel: channel.name }, 'alert sent');
          } catch (err) {
            this.options.logger.error({ incident: message.incident, channel: channel.name, err: describeError(err) }, 'alert could not be sent');
          }
        }),
      );
    }
  }
}
