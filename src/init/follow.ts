/**
 * The follow question of `shopsync init` (issue 44, must-do 3): an orders pull init writes can keep
 * following the orders it delivered (cancellations, status changes, new tracking, returns) until
 * each reaches a final status or `maxAgeDays`. Init proposes it (`follow:` on the pull), asks on a
 * terminal, takes `--follow yes|no`, and without either writes it and says so in the config.
 *
 * The shop's API lists no order statuses, so init cannot read their ids: it proposes the shop's
 * default ones (4 Cancelled, 5 Returned, final both) and says to check them; a person at a
 * terminal may type others.
 */
import { followSchema } from '../follow/schema.js';
import type { Answers } from './answers.js';
import { INIT_CODES, InitError } from './errors.js';
import type { InitHooks } from './index.js';

export { FOLLOW_CHOICES, type FollowChoice } from './followChoice.js';

/** The statuses of the `follow:` block. */
export interface FollowStatuses {
  /** Final statuses: an order in one is no longer read again. */
  readonly until: readonly number[];
  /** Statuses that mean cancelled (a subset of `until`). */
  readonly cancelled: readonly number[];
  /** Statuses that mean returned. */
  readonly returned: readonly number[];
}

/** The shop's default order statuses (1 Pending, 2 Processing, 3 Shipped, 4 Cancelled, 5 Returned). */
export const DEFAULT_FOLLOW_STATUSES: FollowStatuses = { until: [4, 5], cancelled: [4], returned: [5] };

/** How long and how often, as init writes them. */
export const DEFAULT_FOLLOW_MAX_AGE_DAYS = 14;
export const DEFAULT_FOLLOW_EVERY = '1h';

/** What the follow question shows. */
export interface FollowQuestion {
  /** The statuses proposed. */
  readonly defaults: FollowStatuses;
  /** Whether they are the shop's own (false: init's defaults, the shop did not say). */
  readonly fromShop: boolean;
}

/** What the person answered. */
export interface FollowAnswer {
  readonly follow: boolean;
  /** The statuses to write (absent: the proposed ones). */
  readonly statuses?: FollowStatuses;
}

/** What the answer writes into the config. */
export interface FollowPlan {
  /** Whether the pull gets `follow:`. */
  readonly follow: boolean;
  /** The person answered (prompt or `--follow`); false: init's default. */
  readonly asked: boolean;
  /** The pipeline's `follow:` block, when it follows. */
  readonly block?: Record<string, unknown>;
  /** The config's comment. */
  readonly note: string;
  /** One line for the person. */
  readonly line: string;
}

/** The `follow:` block of these statuses; validated by the pipeline's own schema, so init never writes one the config refuses. */
export function followBlock(statuses: FollowStatuses): Record<string, unknown> {
  const block = { every: DEFAULT_FOLLOW_EVERY, until: [...statuses.until], cancelled: [...statuses.cancelled], returned: [...statuses.returned], maxAgeDays: DEFAULT_FOLLOW_MAX_AGE_DAYS };
  const parsed = followSchema.safeParse(block);
  if (!parsed.success) throw new InitError(INIT_CODES.input, `follow: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'follow'}: ${i.message}`).join('; ')}`);
  return block;
}

/** Plan the follow of the orders pull from the answer (undefined: init's default, follow). */
export function planFollow(answer: FollowAnswer | undefined, question: FollowQuestion): FollowPlan {
  const asked = answer !== undefined;
  const list = (ids: readonly number[]) => (ids.length ? ids.join(', ') : 'none');
  if (answer && !answer.follow) {
    return {
      follow: false,
      asked,
      note: 'Follow: off, as answered. The orders pull sees new orders only: a cancellation, a status change, new tracking or a return in the shop after the pull never reaches the ERP. To follow them, add to the pull e.g.  follow: { until: [4, 5], cancelled: [4], returned: [5], maxAgeDays: 14 }  and, for the changes as rows of their own, the changes table and its appended child that init writes with --follow yes (docs/init.md "The changes table", docs/pipelines-and-state.md "Orders after checkout")',
      line: 'follow: no (the orders pull sees new orders only)',
    };
  }
  const statuses = answer?.statuses ?? question.defaults;
  const block = followBlock(statuses);
  const whose = question.fromShop ? "the shop's statuses" : "the shop's default status ids (its API lists none, so init could not read yours): check them in the shop's administration";
  const notAsked = asked ? '' : ' init did not ask (no terminal, or --yes) and turned it on; --follow no leaves it out.';
  return {
    follow: true,
    asked,
    block,
    note: `Follow: the orders pull keeps reading the orders it delivered, every ${DEFAULT_FOLLOW_EVERY}, until each reaches a final status (until: ${list(statuses.until)}) or is ${DEFAULT_FOLLOW_MAX_AGE_DAYS} days old, and delivers each change again (cancelled: ${list(statuses.cancelled)}, returned: ${list(statuses.returned)}); ${whose}. Cost: one request per page of 250 orders of each placement day with open orders (or one per open order, when fewer), at most once per hour; docs/benchmarks.md measures it.${notAsked} See docs/pipelines-and-state.md "Orders after checkout"`,
    line: `follow: yes (until ${list(statuses.until)}, cancelled ${list(statuses.cancelled)}, returned ${list(statuses.returned)}, ${DEFAULT_FOLLOW_MAX_AGE_DAYS} days, every ${DEFAULT_FOLLOW_EVERY})${asked ? '' : ' (not asked: the default; --follow no leaves it out)'}`,
  };
}

/** The answer to the follow question: `--follow`, else the prompt, else follow with init's defaults (src/init/follow.ts). */
export async function followPlanOf(answers: Answers, hooks: InitHooks): Promise<FollowPlan> {
  const question: FollowQuestion = { defaults: DEFAULT_FOLLOW_STATUSES, fromShop: false };
  const given: FollowAnswer | undefined = answers.follow ? { follow: answers.follow === 'yes' } : hooks.askFollow ? await hooks.askFollow(question) : undefined;
  return planFollow(given, question);
}

/** `4, 5` or `4 5` as status ids (empty: none); an error names what was typed. */
export function parseStatusList(text: string): number[] | string {
  const parts = text.split(/[\s,;]+/).filter(Boolean);
  const ids = parts.map(Number);
  const bad = parts.filter((_, i) => !Number.isInteger(ids[i]) || (ids[i] as number) < 0);
  return bad.length ? `expected status ids such as 4, 5; not ${bad.join(', ')}` : ids;
}
