import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createCliLogger } from '../../src/cli/logging.js';

function sink(isTTY = false) {
  let text = '';
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        text += chunk.toString();
        cb();
      },
    }),
    { isTTY },
  );
  return { stream, text: () => text };
}

describe('createCliLogger', () => {
  it('writes JSON lines by default and redacts secret keys at any depth', () => {
    const out = sink();
    const { logger } = createCliLogger({ level: 'debug', destination: out.stream });
    logger.debug({ headers: { Authorization: 'Bearer abc.def' }, auth: { clientSecret: 'cs-1234', password: 'pw-1234' }, token: 'tk-1234' }, 'request');
    const line = JSON.parse(out.text().trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 20, msg: 'request', token: '[redacted]', auth: { clientSecret: '[redacted]', password: '[redacted]' }, headers: { Authorization: '[redacted]' } });
  });

  it('scrubs known secret values wherever they appear, including messages and errors', () => {
    const out = sink();
    const log = createCliLogger({ destination: out.stream });
    log.addSecrets(['s3cr3t-value']);
    log.logger.error({ err: new Error('login with s3cr3t-value failed'), url: 'https://x/?access_token=zzz999' }, 'sent s3cr3t-value to the shop');
    expect(out.text()).not.toContain('s3cr3t-value');
    expect(out.text()).not.toContain('zzz999');
    expect(out.text()).toContain('[redacted]');
  });

  it('prints readable lines on a terminal or with pretty, still scrubbed', () => {
    const tty = sink(true);
    const log = createCliLogger({ destination: tty.stream });
    expect(log.pretty).toBe(true);
    log.addSecrets(['pretty-secret']);
    log.logger.info({ pipeline: 'products' }, 'run finished with pretty-secret');
    expect(tty.text()).toContain('run finished with [redacted]');
    expect(tty.text()).not.toMatch(/^\{/);
    const forced = sink(false);
    expect(createCliLogger({ destination: forced.stream, pretty: true }).pretty).toBe(true);
    expect(createCliLogger({ destination: sink(true).stream, pretty: false }).pretty).toBe(false);
  });
});
