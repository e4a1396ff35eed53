/**
 * A WHERE clause built from optional filters: absent filter values add no condition. Clauses are
 * written with `?`; PostgreSQL's `$1…` numbering is applied by `toString` when asked for.
 */
import { toMs } from './types.js';

/** Conditions and their parameters, in order. */
export class Where {
  private readonly clauses: string[] = [];
  readonly params: (string | number)[] = [];

  /** @param numbered write `$n` placeholders (PostgreSQL), counting on from `offset` */
  constructor(
    private readonly numbered = false,
    private readonly offset = 0,
  ) {}

  /** `col = ?` when the value is given. */
  eq(col: string, value: string | number | undefined): this {
    if (value !== undefined) this.add(`${col} = ?`, value);
    return this;
  }

  /** `col IN (…)` for one value or a list, when given. */
  in(col: string, value: string | readonly string[] | undefined): this {
    if (value === undefined) return this;
    const values = typeof value === 'string' ? [value] : [...value];
    return this.add(`${col} IN (${values.map(() => '?').join(', ')})`, ...values);
  }

  /** `col >= since AND col < until` (epoch ms column), for the bounds given. */
  between(col: string, since: string | number | Date | undefined, until: string | number | Date | undefined): this {
    if (since !== undefined) this.add(`${col} >= ?`, toMs(since));
    if (until !== undefined) this.add(`${col} < ?`, toMs(until));
    return this;
  }

  /** Any condition with its parameters (`?` placeholders). */
  add(clause: string, ...params: (string | number)[]): this {
    this.clauses.push(clause);
    this.params.push(...params);
    return this;
  }

  /** The placeholder of the parameter that follows this clause's own (LIMIT, OFFSET…). */
  next(i = 0): string {
    return this.numbered ? `$${this.offset + this.params.length + i + 1}` : '?';
  }

  /** `WHERE …`, or nothing without conditions. */
  toString(): string {
    if (this.clauses.length === 0) return '';
    const text = `WHERE ${this.clauses.join(' AND ')}`;
    if (!this.numbered) return text;
    let n = this.offset;
    return text.replace(/\?/g, () => `$${++n}`);
  }
}
