/** The shop block's rate limit as several replicas see it (`rateLimit.shared`). */
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';
import { ConfigError } from '../../src/errors.js';

const parse = (rateLimit: string) => parseConfigText(`shops:\n  eu:\n    baseUrl: https://shop.example.com/api\n    token: tok-123456\n    rateLimit: ${rateLimit}\n`, '/tmp/shopsync.yaml', { env: {} });

describe('rateLimit.shared', () => {
  it('is left unset by default: shared with a PostgreSQL state, without effect on SQLite', () => {
    expect(parse('{ requests: 10 }').config.shops!.eu!.rateLimit).toEqual({ mode: 'adaptive', requests: 10, intervalMs: 1000 });
  });

  it('takes true or false', () => {
    expect(parse('{ requests: 10, shared: false }').config.shops!.eu!.rateLimit.shared).toBe(false);
    expect(parse('{ requests: 10, shared: true }').config.shops!.eu!.rateLimit.shared).toBe(true);
  });

  it('refuses anything else, naming the key', () => {
    expect(() => parse('{ requests: 10, shared: sometimes }')).toThrow(ConfigError);
    expect(() => parse('{ requests: 10, shared: sometimes }')).toThrow(/shops\.eu\.rateLimit\.shared/);
  });
});
