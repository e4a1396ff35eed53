/**
 * The ERP's HTTP connector against a hostile API (issue 29 items 2 and 7): the connection's
 * `timeoutMs` is one deadline over connect, headers and the whole body (a body dribbled a byte at a
 * time ends at it), and a body larger than `maxResponseBytes` is refused while it is read, with a
 * message naming the setting, instead of being read whole into memory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSink, createSource, type ConnectionInput, type HttpSourceConfigInput } from '../../src/erp/index.js';
import { ConnectorError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { startHostileServer, type HostileServer } from '../support/hostile.js';
import { collect } from './sql-suite.js';

let hostile: HostileServer;
beforeAll(async () => {
  hostile = await startHostileServer();
});
afterAll(async () => {
  await hostile.close();
});

const ctx = { logger: silentLogger, baseDir: process.cwd() };
const conn = (route: string, extra: Record<string, unknown> = {}): ConnectionInput => ({ kind: 'http', baseUrl: `${hostile.url}/${route}/api/`, auth: { header: 'X-Api-Key', value: 'hostile-key-123' }, retries: 0, backoffMs: 1, ...extra }) as ConnectionInput;
const source = (route: string, extra: Record<string, unknown> = {}, cfg: Partial<HttpSourceConfigInput> = {}) => createSource(conn(route, extra), { path: 'items', key: 'id', recordsPath: 'data', ...cfg }, ctx);
const seen = (route: string) => hostile.requests.filter((r) => r.url.split('/')[1]?.split(';')[0] === route).length;

describe('an ERP API that sends its body one byte at a time', () => {
  it('is given up at timeoutMs although bytes keep coming (the deadline covers the body)', async () => {
    const started = Date.now();
    const err = await collect(await source('slow-body;intervalMs=100', { timeoutMs: 500 }), {}).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err).toMatchObject({ code: 'CONNECTOR_UNREACHABLE' });
    expect((err as Error).message).toMatch(/timeoutMs/);
  });
});

describe('an ERP API answering more than maxResponseBytes', () => {
  it('is refused with CONNECTOR_RESPONSE_TOO_LARGE naming the setting, and not asked again', async () => {
    const before = seen('huge');
    const err = await collect(await source(`huge;bytes=${3 * 1024 * 1024}`, { maxResponseBytes: 1024 * 1024, retries: 3 }), {}).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err).toMatchObject({ code: 'CONNECTOR_RESPONSE_TOO_LARGE', details: { limitBytes: 1024 * 1024 } });
    expect((err as Error).message).toMatch(/more than 1 MiB.*maxResponseBytes/);
    expect(seen('huge') - before).toBe(1);
  });

  it('is refused while reading when the API does not say the length up front (chunked)', async () => {
    await expect(collect(await source(`huge;bytes=${3 * 1024 * 1024};length=none`, { maxResponseBytes: 1024 * 1024 }), {})).rejects.toMatchObject({ code: 'CONNECTOR_RESPONSE_TOO_LARGE' });
  });

  it('is refused by default above 64 MiB (a 200 MB body used to be read whole)', async () => {
    await expect(collect(await source(`huge;bytes=${200 * 1024 * 1024};length=none`), {})).rejects.toMatchObject({ code: 'CONNECTOR_RESPONSE_TOO_LARGE', details: { limitBytes: 64 * 1024 * 1024 } });
  });

  it('bounds the answer to a sink write as well', async () => {
    const sink = await createSink(conn(`huge;bytes=${3 * 1024 * 1024}`, { maxResponseBytes: 1024 * 1024 }), { path: 'orders' }, ctx);
    await expect(sink.write({ id: 'batch-1', records: [{ id: 1 }] })).rejects.toMatchObject({ code: 'CONNECTOR_RESPONSE_TOO_LARGE' });
    await sink.close();
  });
});

describe('an ERP API answering JSON that does not parse', () => {
  it('fails with a typed error quoting only the start of the body', async () => {
    await expect(collect(await source('invalid-json'), {})).rejects.toMatchObject({ code: 'CONNECTOR_HTTP_ERROR', message: expect.stringMatching(/not JSON/) });
  });
});
