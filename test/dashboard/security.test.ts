import { describe, expect, it } from 'vitest';
import { safeNext } from '../../src/dashboard/routes/pages.js';
import { assertSafeBinding, isLoopback, parseCookies, parseHost, safeEqual } from '../../src/dashboard/security.js';

describe('dashboard security helpers', () => {
  it('knows loopback addresses from others', () => {
    expect(['127.0.0.1', '127.0.0.5', 'localhost', '::1', '::ffff:127.0.0.1'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '192.168.1.4', '::', 'shop.example', undefined].some(isLoopback)).toBe(false);
  });

  it('allows a public bind only with a long enough token', () => {
    expect(() => assertSafeBinding('127.0.0.1', undefined)).not.toThrow();
    expect(() => assertSafeBinding('0.0.0.0', undefined)).toThrow(/without a dashboard token/);
    expect(() => assertSafeBinding('0.0.0.0', 'short')).toThrow(/at least 8/);
    expect(() => assertSafeBinding('0.0.0.0', 'x'.repeat(8))).not.toThrow();
  });

  it('parses Host headers and cookies', () => {
    expect(parseHost('127.0.0.1:8080')).toEqual({ hostname: '127.0.0.1', port: '8080' });
    expect(parseHost('[::1]:9')).toEqual({ hostname: '[::1]', port: '9' });
    expect(parseHost('Example.COM')).toEqual({ hostname: 'example.com', port: '' });
    expect(parseCookies('a=1; b=x%20y; a=2')).toEqual(new Map([['a', '1'], ['b', 'x y']]));
  });

  it('compares secrets without short-circuiting on length', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });

  it('only returns to local paths after sign-in', () => {
    expect(safeNext('/runs?pipeline=a')).toBe('/runs?pipeline=a');
    expect(safeNext('//evil.example/')).toBe('/');
    expect(safeNext('/\\evil.example')).toBe('/');
    expect(safeNext('https://evil.example/')).toBe('/');
    expect(safeNext(undefined)).toBe('/');
  });
});
