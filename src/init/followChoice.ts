/** The answers of `--follow` (./follow.ts), apart from the follow schema: the command line declares them at every start. */

/** The two answers of `--follow`. */
export const FOLLOW_CHOICES = ['yes', 'no'] as const;
export type FollowChoice = (typeof FOLLOW_CHOICES)[number];
