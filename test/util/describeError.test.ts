import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/util/describeError.js';
import { errorLine, SyncError } from '../../src/errors.js';

/** A port nothing listens on: bound once, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('describeError', () => {
  it("says what a failed fetch's cause said, not only 'TypeError: fetch failed'", async () => {
    const port = await closedPort();
    const err = await fetch(`http://127.0.0.1:${port}/`).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(describeError(err)).toBe(`fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`);
    // errorLine, which doctor, init and the dashboard print, says the same.
    expect(errorLine(err)).toBe(`fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('keeps Name: message for an error without a cause, and a SyncError its own line', () => {
    expect(describeError(new RangeError('out of range'))).toBe('RangeError: out of range');
    expect(describeError('plain')).toBe('plain');
    expect(errorLine(new SyncError('X_CODE', 'it broke', { cause: new Error('deep') }))).toBe('[X_CODE] it broke');
  });

  it('reads an AggregateError cause without a message (both addresses of localhost refused) and says each text once', () => {
    const refused = (address: string) => Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED' });
    const both = new TypeError('fetch failed', { cause: new AggregateError([refused('::1:9'), refused('127.0.0.1:9')], '') });
    expect(describeError(both)).toBe('fetch failed: connect ECONNREFUSED ::1:9; connect ECONNREFUSED 127.0.0.1:9');
    const repeated = new Error('could not connect: connect ECONNREFUSED 127.0.0.1:9', { cause: refused('127.0.0.1:9') });
    expect(describeError(repeated)).toBe('could not connect: connect ECONNREFUSED 127.0.0.1:9');
    const coded = new Error('fetch failed', { cause: Object.assign(new Error(''), { code: 'UND_ERR_SOCKET' }) });
    expect(describeError(coded)).toBe('fetch failed: UND_ERR_SOCKET');
  });
});
