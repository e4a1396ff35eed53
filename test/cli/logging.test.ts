import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createCliLogger } from '../../src/cli/logging.js';
import { ConnectorError } from '../../src/errors.js';

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

describe('an error in a log line', () => {
  // What a connector throws: its message already carries the cause's text (src/erp/errors.ts causeText).
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5999'), { code: 'ECONNREFUSED' });
  const connectorError = () =>
    new ConnectorError('CONNECTOR_UNREACHABLE', 'PostgreSQL unreachable at 127.0.0.1:5999/test: connect ECONNREFUSED 127.0.0.1:5999. Check that the server runs.', { connector: 'postgres', cause: refused });

  it('carries a ConnectorError text once, with its code and connector, without a stack below debug', () => {
    const out = sink();
    createCliLogger({ destination: out.stream }).logger.error({ err: connectorError() }, 'run failed');
    const text = out.text();
    expect(text.split('ECONNREFUSED 127.0.0.1:5999')).toHaveLength(2);
    expect(JSON.parse(text)).toMatchObject({ msg: 'run failed', err: { type: 'ConnectorError', code: 'CONNECTOR_UNREACHABLE', connector: 'postgres', message: 'PostgreSQL unreachable at 127.0.0.1:5999/test: connect ECONNREFUSED 127.0.0.1:5999. Check that the server runs.' } });
    expect(JSON.parse(text).err.stack).toBeUndefined();
  });

  it('keeps the stack of a shopsync error at debug, and appends a cause whose text the message lacks', () => {
    const out = sink();
    const err = new ConnectorError('CONNECTOR_QUERY_FAILED', 'query failed', { connector: 'postgres', cause: new Error('relation "artikel" does not exist') });
    createCliLogger({ level: 'debug', destination: out.stream }).logger.error({ err }, 'run failed');
    const line = JSON.parse(out.text()) as { err: { message: string; stack: string } };
    expect(line.err.message).toBe('query failed: relation "artikel" does not exist');
    expect(line.err.stack).toContain('ConnectorError: query failed');
  });

  it('keeps the stack of anything else (a bug), as pino does', () => {
    const out = sink();
    createCliLogger({ destination: out.stream }).logger.error({ err: new TypeError('x is undefined') }, 'crashed');
    expect((JSON.parse(out.text()) as { err: { stack: string } }).err.stack).toMatch(/^TypeError: x is undefined\n\s+at /);
  });
});
