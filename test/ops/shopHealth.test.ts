/** The per-shop contact tracker: what each shop's answers say about it, and nothing about another shop. */
import { describe, expect, it } from 'vitest';
import type { ClientEvent } from '../../src/shop/client/types.js';
import { trackShopHealth } from '../../src/ops/shopHealth.js';

const request = (status: number | 'network', resource = 'products'): ClientEvent => ({ type: 'request', resource, method: 'GET', status, durationMs: 5, attempt: 1 });

describe('trackShopHealth', () => {
  it('knows nothing of a shop before its first request, and lists the configured shops in order', () => {
    const t = trackShopHealth(['de', 'at']);
    expect(t.shopHealth()).toEqual([
      { name: 'de', health: 'unknown', reachable: null, tokenAccepted: null, lastRequestAt: null, lastSuccessAt: null, failingSince: null, consecutiveFailures: 0, lastError: null },
      { name: 'at', health: 'unknown', reachable: null, tokenAccepted: null, lastRequestAt: null, lastSuccessAt: null, failingSince: null, consecutiveFailures: 0, lastError: null },
    ]);
  });

  it('counts 2xx, 429 and a record refused with 4xx as a shop that is there and takes the token', () => {
    let clock = Date.parse('2026-11-27T10:00:00Z');
    const t = trackShopHealth(['de'], () => clock);
    for (const status of [200, 429, 404, 422]) {
      clock += 1000;
      t.observe('de', request(status));
      expect(t.of('de'), String(status)).toMatchObject({ health: 'ok', reachable: true, tokenAccepted: true, lastSuccessAt: new Date(clock).toISOString(), consecutiveFailures: 0 });
    }
  });

  it('tells a refused token (401, 403) apart from a shop that does not answer (network error, 5xx), and keeps the last error after it recovers', () => {
    let clock = Date.parse('2026-11-27T10:00:00Z');
    const t = trackShopHealth(['de'], () => clock);
    t.observe('de', request(200));
    const lastGood = new Date(clock).toISOString();
    clock += 1000;
    t.observe('de', request(401));
    expect(t.of('de')).toMatchObject({ health: 'failing', reachable: true, tokenAccepted: false, lastSuccessAt: lastGood, failingSince: new Date(clock).toISOString(), lastError: { status: 401, resource: 'products', message: expect.stringContaining('refused the credentials') } });
    clock += 1000;
    t.observe('de', request('network', 'stock'));
    // A shop that does not answer says nothing new about the token.
    expect(t.of('de')).toMatchObject({ health: 'failing', reachable: false, tokenAccepted: false, consecutiveFailures: 2, failingSince: new Date(clock - 1000).toISOString(), lastError: { status: 'network', resource: 'stock' } });
    t.observe('de', request(503));
    expect(t.of('de')).toMatchObject({ health: 'failing', reachable: false, consecutiveFailures: 3, lastError: { status: 503 } });
    clock += 1000;
    t.observe('de', request(201));
    expect(t.of('de')).toMatchObject({ health: 'ok', reachable: true, tokenAccepted: true, failingSince: null, consecutiveFailures: 0, lastSuccessAt: new Date(clock).toISOString(), lastError: { status: 503 } });
  });

  it('never lets one shop answer for another: a success of de leaves at failing', () => {
    const t = trackShopHealth(['de', 'at']);
    t.observe('at', request('network'));
    for (let i = 0; i < 5; i++) t.observe('de', request(200));
    expect(t.shopHealth().map((s) => [s.name, s.health])).toEqual([
      ['de', 'ok'],
      ['at', 'failing'],
    ]);
  });

  it('marks a shop failing on a refusal no request shows (an OAuth token endpoint), until a request gets through', () => {
    const t = trackShopHealth(['b2b']);
    t.refused('b2b', 'UNAUTHORIZED', 'The OAuth token endpoint refused the client credentials (401)');
    expect(t.of('b2b')).toMatchObject({ health: 'failing', tokenAccepted: false, lastRequestAt: null, lastError: { status: 'UNAUTHORIZED' } });
    t.observe('b2b', request(200));
    expect(t.of('b2b')).toMatchObject({ health: 'ok', tokenAccepted: true });
  });
});
