import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { allResources, writeResponse } from '../../../src/shop/index.js';
import { readWriteAnswer } from '../../../src/shop/client/answers.js';
import { compileCheck } from '../../../src/shop/schema/compiled.js';

/** A small deterministic PRNG, so a failure names a repeatable seed. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const JUNK: unknown[] = [undefined, null, 0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '', 'x', '50,5', '50.5', '2026-01-31', '2026-01-31 10:00:00', 'de', 'deu', true, false, [], {}, [1], { extra: 1 }, new Date(0)];

type Def = { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType; options?: z.ZodType[]; element?: z.ZodType; keyType?: z.ZodType; valueType?: z.ZodType; values?: unknown[]; catchall?: z.ZodType };
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** A value shaped like the schema wants, with junk mixed in at random places (so both verdicts come up). */
function sample(schema: z.ZodType, rnd: () => number, depth = 0): unknown {
  if (rnd() < 0.04 || depth > 6) return JUNK[Math.floor(rnd() * JUNK.length)];
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'default':
      return rnd() < 0.5 ? undefined : sample(def.innerType!, rnd, depth + 1);
    case 'nullable':
      return rnd() < 0.2 ? null : sample(def.innerType!, rnd, depth + 1);
    case 'union':
      return sample(def.options![Math.floor(rnd() * def.options!.length)]!, rnd, depth + 1);
    case 'literal':
      return def.values![0];
    case 'string':
      return ['a', '12.5', '2026-01-31', '2026-01-31 08:00:00', 'de', 'x'.repeat(60), '', 'a@b.example'][Math.floor(rnd() * 8)];
    case 'number':
      return [1, 2, 0, -3, 7.5][Math.floor(rnd() * 5)];
    case 'boolean':
      return rnd() < 0.5;
    case 'array':
      return Array.from({ length: Math.floor(rnd() * 3) }, () => sample(def.element!, rnd, depth + 1));
    case 'record':
      return Object.fromEntries(Array.from({ length: Math.floor(rnd() * 3) }, () => [rnd() < 0.9 ? ['de', 'en', 'fr'][Math.floor(rnd() * 3)]! : 'deu', sample(def.valueType!, rnd, depth + 1)]));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(def.shape ?? {})) {
        if (rnd() < 0.3) continue;
        const v = sample(field, rnd, depth + 1);
        if (v !== undefined || rnd() < 0.5) out[key] = v;
      }
      if (rnd() < 0.05) out.not_a_field = 1;
      return out;
    }
    default:
      return JUNK[Math.floor(rnd() * JUNK.length)];
  }
}

describe('compiled write-schema check', () => {
  for (const resource of allResources) {
    const write = resource.schemas.write;
    if (!write) continue;
    it(`gives zod's verdict on ${resource.name} write payloads, valid and invalid`, () => {
      const check = compileCheck(write);
      const rnd = prng(resource.name.length * 7919);
      const verdicts = { valid: 0, invalid: 0 };
      for (let i = 0; i < 1500; i++) {
        const payload = sample(write, rnd);
        const expected = write.safeParse(payload).success;
        expect(check(payload), JSON.stringify(payload)).toBe(expected);
        verdicts[expected ? 'valid' : 'invalid']++;
      }
      expect(verdicts.valid).toBeGreaterThan(0);
      expect(verdicts.invalid).toBeGreaterThan(0);
    });
  }

  it('refuses what the strict schemas refuse: unknown keys, comma decimals, bad language codes, missing required fields', () => {
    const check = compileCheck(allResources.find((r) => r.name === 'products')!.schemas.write!);
    expect(check({ products_model: 'A', products_price: '50.5', languages: { de: { products_name: 'x' } }, groups: [{ customers_group_id: 3, products_price1: 2 }] })).toBe(true);
    expect(check({ products_modle: 'A' })).toBe(false);
    expect(check({ products_price: '50,5' })).toBe(false);
    expect(check({ languages: { deu: { products_name: 'x' } } })).toBe(false);
    expect(check({ groups: [{ products_price1: 2 }] })).toBe(false);
    expect(check({ groups: [{ customers_group_id: 0 }] })).toBe(false);
    expect(check({ products_price: Number.NaN })).toBe(false);
  });

  it('leaves kinds it does not know (refinements, transforms) and non-plain values to zod', () => {
    const refined = z.strictObject({ n: z.number().refine((n) => n % 2 === 0) });
    expect(compileCheck(refined)({ n: 2 })).toBe(true);
    expect(compileCheck(refined)({ n: 3 })).toBe(false);
    const piped = z.string().transform((s) => s.length).pipe(z.number().max(2));
    expect(compileCheck(piped)('ab')).toBe(true);
    expect(compileCheck(piped)('abc')).toBe(false);
    class Point {
      x = 1;
    }
    const loose = z.looseObject({ x: z.number() });
    expect(compileCheck(loose)(new Point())).toBe(loose.safeParse(new Point()).success);
  });
});

describe('compiled check of a batch write answer', () => {
  it("gives zod's verdict and zod's reading (defaults filled in) on write answers, valid and invalid", () => {
    const rnd = prng(4711);
    const verdicts = { valid: 0, invalid: 0 };
    for (let i = 0; i < 3000; i++) {
      // What the transport hands over: JSON.parse's output (no Dates, no undefined).
      const sampled = sample(writeResponse, rnd);
      const answer: unknown = sampled === undefined ? undefined : JSON.parse(JSON.stringify(sampled));
      const expected = writeResponse.safeParse(answer);
      const read = readWriteAnswer(answer);
      expect(read.success, JSON.stringify(answer)).toBe(expected.success);
      if (read.success) expect(read.data).toEqual(expected.data);
      else expect(read.error.issues).toEqual(expected.error?.issues);
      verdicts[expected.success ? 'valid' : 'invalid']++;
    }
    expect(verdicts.valid).toBeGreaterThan(100);
    expect(verdicts.invalid).toBeGreaterThan(100);
  });

  it('reads the answer of a batch as zod does, and refuses a malformed entry naming its path', () => {
    const answer = { success: true, api_version: '2.122.2', data: [{ index: 0, products_id: 7, products_model: 'A' }] };
    expect(readWriteAnswer(answer)).toEqual(writeResponse.safeParse(answer));
    expect(readWriteAnswer(answer)).toMatchObject({ success: true, data: { warnings: [], errors: [] } });
    const bad = readWriteAnswer({ success: true, data: [{ index: 'zero' }] });
    expect(bad.success).toBe(false);
    expect(bad.success ? undefined : bad.error.issues[0]?.path).toEqual(['data', 0, 'index']);
  });
});
