import { describe, expect, it } from 'vitest';
import { MATCHERS, matcherFor } from '../../../src/shop/schema/patterns.js';

/** Every string over `alphabet` up to `maxLength` characters. */
function* strings(alphabet: string, maxLength: number): Generator<string> {
  let level = [''];
  yield '';
  for (let n = 1; n <= maxLength; n++) {
    const next: string[] = [];
    for (const s of level) for (const c of alphabet) next.push(s + c);
    yield* next;
    level = next;
  }
}

/** Strings shaped like the pattern's matches, with one character changed to any of `alphabet`. */
function* mutations(samples: readonly string[], alphabet: string): Generator<string> {
  for (const s of samples) {
    yield s;
    for (let i = 0; i <= s.length; i++) {
      yield s.slice(0, i) + s.slice(i + 1);
      for (const c of alphabet) {
        yield s.slice(0, i) + c + s.slice(i + 1);
        yield s.slice(0, i) + c + s.slice(i);
      }
    }
  }
}

const ALPHABET = '09-.,: aZz\n٣';
const SAMPLES = ['50.5', '-3', '0.125', '2026-01-31', '2026-01-31 08:00:00', 'de'];

describe('hand-written pattern matchers', () => {
  for (const [source, matcher] of MATCHERS) {
    it(`says what /${source}/ says`, () => {
      const re = new RegExp(source);
      let checked = 0;
      for (const s of [...strings('0-.a:', 6), ...mutations(SAMPLES, ALPHABET)]) {
        if (matcher(s) !== re.test(s)) expect.fail(`${JSON.stringify(s)}: matcher ${matcher(s)}, pattern ${re.test(s)}`);
        checked++;
      }
      expect(checked).toBeGreaterThan(10_000);
    });
  }

  it('runs any other pattern, and flags, as a regular expression', () => {
    expect(matcherFor(/^a+$/)('aaa')).toBe(true);
    expect(matcherFor(/^[a-z]{2}$/i)('DE')).toBe(true);
    const sticky = /^\d+$/g;
    const match = matcherFor(sticky);
    expect([match('12'), match('12')]).toEqual([true, true]);
  });
});
