/** A WHERE clause built from optional filters: absent filter values add no condition. */
import { toMs } from './types.js';

/** Conditions and their parameters, in order. */
export class Where {
  private readonly clauses: string[] = [];
  readonly params: (string | number)[] = [];

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

  /** Any condition with its parameters. */
  add(clause: string, ...params: (string | number)[]): this {
    this.clauses.push(clause);
    this.params.push(...params);
    return this;
  }

  /** `WHERE …`, or nothing without conditions. */
  toString(): string {
    return this.clauses.length ? `WHERE ${this.clauses.join(' AND ')}` : '';
  }
}
