/**
 * Durations written as text (`90s`, `5m`, `1h`, `2d`, `500ms`, bare digits = milliseconds), without
 * zod: `durationSchema` (erp/sql/lookback.ts) validates config values with it, and the CLI's option
 * parsers use it directly, so a command line is checked without loading the config's schemas.
 */

/** The text form of a duration. */
export const DURATION_TEXT = /^(\d+)(ms|s|m|h|d)?$/;

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Milliseconds of a duration written as text; undefined when the text is not one. */
export function durationTextMs(text: string): number | undefined {
  const m = DURATION_TEXT.exec(text);
  return m ? Number(m[1]) * UNIT_MS[(m[2] ?? 'ms') as keyof typeof UNIT_MS] : undefined;
}
