import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, scrubSecrets } from '../src/log.js';

describe('scrubSecrets', () => {
  it('replaces a bearer credential and query-string secrets but keeps prose about tokens readable', () => {
    expect(scrubSecrets('Authorization: Bearer sandbox-token-123')).toBe('Authorization: Bearer [redacted]');
    expect(scrubSecrets('GET /x?access_token=abc123&page=2')).toBe('GET /x?access_token=[redacted]&page=2');
    expect(scrubSecrets('Invalid bearer token: ask for a new one')).toBe('Invalid bearer token: ask for a new one');
  });

  it('replaces every known secret wherever it appears', () => {
    expect(scrubSecrets('login failed for s3cr3t at host', ['s3cr3t'])).toBe('login failed for [redacted] at host');
  });
});

describe('createLogger', () => {
  it('redacts secret keys in logged objects at any depth it covers', () => {
    const lines: string[] = [];
    const out = new Writable({ write: (chunk: Buffer, _enc, done) => { lines.push(chunk.toString()); done(); } });
    const log = createLogger({ level: 'debug', destination: out });
    log.debug({ shop: { token: 'tok-123456', oauth: { clientSecret: 'cs-abcdef' } }, headers: { Authorization: 'Bearer x' } }, 'config');
    const text = lines.join('');
    expect(text).toContain('config');
    expect(text).not.toContain('tok-123456');
    expect(text).not.toContain('cs-abcdef');
    expect(text).not.toContain('Bearer x');
  });
});
