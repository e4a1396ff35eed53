/** Shared set-up of the client tests: a nock-backed shop, a client with fast retries, a log capture. */
import { Writable } from 'node:stream';
import nock from 'nock';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createLogger, type Logger } from '../../../src/log.js';
import { createShopClient, type ClientEvent, type ShopClient, type ShopClientOptions } from '../../../src/shop/index.js';

export const BASE = 'http://shop.test';
export const TOKEN = 'static-token-7f3a9c2e';

/** Block real network, fail on unused interceptors, and reset nock between tests. */
export function useNock(): void {
  beforeAll(() => {
    nock.disableNetConnect();
  });
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    nock.abortPendingRequests();
    if (pending.length > 0) throw new Error(`interceptors not used: ${pending.join(', ')}`);
  });
  afterAll(() => {
    nock.enableNetConnect();
  });
}

/** The shop at BASE, expecting the static bearer token. */
export function shop(): nock.Scope {
  return nock(BASE, { reqheaders: { authorization: `Bearer ${TOKEN}` } });
}

/** A client against BASE with fast retries and a generous rate limit, collecting its events. */
export function testClient(overrides: Partial<ShopClientOptions> = {}): { client: ShopClient; events: ClientEvent[] } {
  const events: ClientEvent[] = [];
  const client = createShopClient({
    baseUrl: BASE,
    auth: { kind: 'token', token: TOKEN },
    retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 20 },
    rateLimit: { concurrency: 4, intervalCap: 1000, intervalMs: 1000 },
    onEvent: (event) => events.push(event),
    ...overrides,
  });
  return { client, events };
}

/** A debug-level pino logger writing into a string buffer. */
export function captureLogs(): { logger: Logger; text: () => string } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', destination: sink }), text: () => chunks.join('') };
}

/** A list export answer in the wire convention. */
export function page(type: string, data: unknown[], total: number, limit: number, offset: number): Record<string, unknown> {
  return { success: true, api_version: '2.32.0', type, pagination: { total, limit, offset }, data };
}

/** A write answer in the wire convention. */
export function writeAnswer(type: string, operation: 'create' | 'update', parts: { data?: unknown[]; warnings?: unknown[]; errors?: unknown[] }): Record<string, unknown> {
  const errors = parts.errors ?? [];
  return { success: errors.length === 0, api_version: '2.32.0', type, operation, data: parts.data ?? [], warnings: parts.warnings ?? [], errors };
}

/** Collect an async iterable. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
