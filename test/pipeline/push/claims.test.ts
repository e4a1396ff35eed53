import { describe, expect, it } from 'vitest';
import { ShopKeyClaims } from '../../../src/pipeline/push/claims.js';

describe('shop key claims of one read', () => {
  it('lets the ERP key that claimed a value claim it again, and names another key that asks for it', () => {
    const claims = new ShopKeyClaims();
    claims.claim('M-1', 'A');
    expect(claims.other('M-1', 'A')).toBeUndefined();
    expect(claims.other('M-1', 'B')).toBe('A');
    expect(claims.other('M-2', 'B')).toBeUndefined();
    claims.claim('M-1', 'B');
    expect(claims.other('M-1', 'B')).toBe('A');
  });

  it('keeps every claim of a read of 300,000 records, naming only the recent ones (null: claimed, name no longer kept)', () => {
    const claims = new ShopKeyClaims();
    for (let i = 0; i < 300_000; i++) claims.claim(`B-${String(i).padStart(7, '0')}`, `B-${String(i).padStart(7, '0')}`);
    expect(claims.other('B-0000007', 'B-0000007')).toBeUndefined();
    expect(claims.other('B-0000007', 'X-1')).toBeNull();
    expect(claims.other('B-0299999', 'X-1')).toBe('B-0299999');
    expect(claims.other('B-0300000', 'X-1')).toBeUndefined();
    let unclaimed = 0;
    for (let i = 0; i < 300_000; i += 997) if (claims.other(`B-${String(i).padStart(7, '0')}`, 'X-1') === undefined) unclaimed++;
    expect(unclaimed).toBe(0);
  });
});
