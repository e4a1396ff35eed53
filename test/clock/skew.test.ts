import { describe, expect, it } from 'vitest';
import { shopDateSkew } from '../../src/clock/probe.js';
import { describeSkew, stateSkew } from '../../src/clock/skew.js';
import { systemClock, type ClockSources } from '../../src/clock/watchdog.js';
import { requireService } from '../support/services.js';

const service = await requireService('postgres');
const pgUrl = `postgres://${service.user}@${service.host}:${service.port}/${service.database}`;

/** This process's clocks, with the wall clock moved by `offsetMs`. */
const shifted = (offsetMs: number): ClockSources => ({ wallMs: () => Date.now() + offsetMs, monotonicMs: systemClock.monotonicMs });

describe('clock skew', () => {
  it('says "within 1 s" for anything below a second, and how far ahead or behind beyond', () => {
    expect(describeSkew({ skewMs: 400, resolutionMs: 1 }, "the state database's")).toBe("within 1 s of the state database's");
    expect(describeSkew({ skewMs: 0, resolutionMs: 500 }, "the shop's")).toBe("within 1 s of the shop's");
    expect(describeSkew({ skewMs: 3200, resolutionMs: 500 }, "the shop's")).toBe("3 s ahead of the shop's");
    expect(describeSkew({ skewMs: -600_000, resolutionMs: 2 }, "the state database's")).toBe("10 min 0 s behind the state database's");
  });

  it('says "within N s" for a reading inside its own uncertainty (half the round trip and the Date header\'s second), and a skew only beyond it', () => {
    // A shop on this machine whose answer took 3 s: read 2 s off, good to ± 2 s: no skew to tell.
    expect(describeSkew({ skewMs: 2000, resolutionMs: 2000 }, "the shop's")).toBe("within 2 s of the shop's");
    expect(describeSkew({ skewMs: -1400, resolutionMs: 1500 }, "the shop's")).toBe("within 2 s of the shop's");
    // Beyond the uncertainty the estimate is said as such.
    expect(describeSkew({ skewMs: 1800, resolutionMs: 1200 }, "the shop's")).toBe("2 s ahead of the shop's");
    expect(describeSkew({ skewMs: 1000, resolutionMs: 500 }, "the shop's")).toBe("1 s ahead of the shop's");
  });

  it("counts the wire time into a Date header's reading: a slow answer of a shop on this machine is no skew", () => {
    const second = Date.UTC(2026, 11, 1, 10, 0, 0);
    const header = new Date(second).toUTCString();
    // Stamped at 10:00:00.900, answered 1.6 s later: read after the answer alone it looked 1.5 s ahead.
    const reading = shopDateSkew(header, second + 900 + 1600, 1600);
    expect(reading).toEqual({ skewMs: 0, resolutionMs: 1300 });
    expect(describeSkew(reading!, "the shop's")).toBe("within 2 s of the shop's");
  });

  it('reads no skew from a shop Date header of the same second, whatever the milliseconds', () => {
    const header = new Date(Date.UTC(2026, 11, 1, 10, 0, 0)).toUTCString();
    for (const ms of [0, 300, 999]) expect(shopDateSkew(header, Date.UTC(2026, 11, 1, 10, 0, 0, ms), 20)?.skewMs).toBe(0);
    expect(shopDateSkew(header, Date.UTC(2026, 11, 1, 10, 0, 5, 500), 0)?.skewMs).toBe(5000);
    expect(shopDateSkew('not a date', Date.now(), 20)).toBeUndefined();
  });

  it.skipIf(!service.available)("measures this clock against the state database's, to the round trip", async () => {
    const same = await stateSkew(pgUrl);
    expect(Math.abs(same.skewMs)).toBeLessThan(1000);
    expect(describeSkew(same, "the state database's")).toBe("within 1 s of the state database's");
    const behind = await stateSkew(pgUrl, shifted(-600_000));
    expect(behind.skewMs).toBeGreaterThan(-601_000);
    expect(behind.skewMs).toBeLessThan(-599_000);
    expect(describeSkew(behind, "the state database's")).toBe("10 min 0 s behind the state database's");
  });
});
