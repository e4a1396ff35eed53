import { describe, expect, it } from 'vitest';
import { dashboardConfigSchema } from '../../src/config/index.js';
import { isLoopback } from '../../src/util/net.js';

describe('isLoopback', () => {
  it('accepts localhost, ::1 and every 127.x.y.z, also IPv4-mapped and in any case', () => {
    expect(['localhost', 'LocalHost', '::1', '[::1]', '127.0.0.1', '127.1.2.3', '::ffff:127.0.0.1'].filter((a) => !isLoopback(a))).toEqual([]);
  });

  it('refuses other addresses and names that only start like a loopback address', () => {
    expect(['0.0.0.0', '::', '192.168.1.4', '127.evil.example', '127.0.0.1.nip.io', '::ffff:10.0.0.1', '', undefined].filter((a) => isLoopback(a))).toEqual([]);
  });

  it('is the rule the config schema applies to dashboard.host', () => {
    expect(dashboardConfigSchema.safeParse({ host: '[::1]' }).success).toBe(true);
    expect(dashboardConfigSchema.safeParse({ host: '127.evil.example' }).success).toBe(false);
  });
});
