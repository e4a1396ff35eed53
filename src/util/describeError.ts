/**
 * One line for an error that is not shopsync's own, with what its causes said. Node's fetch throws
 * `TypeError: fetch failed` and keeps the reason (`connect ECONNREFUSED 127.0.0.1:28189`, a DNS
 * failure, a TLS error) in `cause`: printed alone, `doctor` told a newcomer nothing where `sync`
 * (whose client reads the cause) said the useful part (issue 45).
 */

/** Causes followed at most this deep (a cycle or a runaway chain stops here). */
const MAX_CAUSES = 5;

/**
 * `Name: message` of an error without a cause (as before); with causes, the message and each
 * cause's text once, outermost first: "fetch failed: connect ECONNREFUSED 127.0.0.1:28189". The
 * name is left out then: the cause says what kind of failure it was, and "TypeError" says nothing.
 */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const causes = causeTexts(err);
  if (causes.length === 0) return `${err.name}: ${err.message}`;
  let line = err.message || err.name;
  for (const text of causes) if (!line.includes(text)) line += `: ${text}`;
  return line;
}

/** What each cause in the chain says, skipping those that say nothing. */
function causeTexts(err: Error): string[] {
  const out: string[] = [];
  const seen = new Set<unknown>([err]);
  let cause: unknown = err.cause;
  while (cause !== undefined && cause !== null && !seen.has(cause) && out.length < MAX_CAUSES) {
    seen.add(cause);
    const text = ownText(cause);
    if (text) out.push(text);
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return out;
}

/**
 * A cause's own words: its message; for an AggregateError without one (a host name that resolves to
 * both ::1 and 127.0.0.1, each refused), its errors' messages; else its code.
 */
function ownText(cause: unknown): string {
  if (!(cause instanceof Error)) return typeof cause === 'string' ? cause : '';
  if (cause.message) return cause.message;
  if (cause instanceof AggregateError) {
    const inner = cause.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))).filter(Boolean);
    if (inner.length) return [...new Set(inner)].join('; ');
  }
  const code = (cause as Error & { code?: unknown }).code;
  return typeof code === 'string' ? code : cause.name;
}
