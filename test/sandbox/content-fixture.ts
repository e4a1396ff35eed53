/**
 * Shared set-up of the content-resource tests (tickets, contracts, newsletter, SEO history, news,
 * projects, sliders, FAQ): one in-memory sandbox per file, reset to the demo seed before every
 * test, the project's own client against it, and a raw axios instance for the control endpoints
 * and for requests the typed client deliberately cannot send (wrong types, path traversal…).
 */
import axios, { type AxiosInstance } from 'axios';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { createShopClient, type ShopClient } from '../../src/shop/index.js';

/** What a test works with. */
export interface ContentFixture {
  readonly sandbox: SandboxHandle;
  readonly client: ShopClient;
  /** Raw HTTP against the sandbox (bearer set, never throws on status). */
  readonly http: AxiosInstance;
  /** Mails the shop would have sent. */
  outbox(): Promise<Record<string, unknown>[]>;
  /** The privacy log. */
  privacyLog(): Promise<Record<string, unknown>[]>;
  /** Change shop settings. */
  setSettings(settings: Record<string, string>): Promise<void>;
  /** Move the sandbox clock forward. */
  advanceClock(seconds: number): Promise<void>;
}

/** Start a sandbox for this file, reset it before each test, close it afterwards. */
export function useContentSandbox(): () => ContentFixture {
  let fixture: ContentFixture | undefined;
  beforeAll(async () => {
    const sandbox = await startSandbox({ port: 0, dbPath: ':memory:' });
    const http = axios.create({ baseURL: sandbox.url, headers: { Authorization: `Bearer ${sandbox.token}` }, validateStatus: () => true });
    const client = createShopClient({
      baseUrl: sandbox.url,
      auth: { kind: 'token', token: sandbox.token },
      retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 5 },
      rateLimit: { concurrency: 8, intervalCap: 10_000, intervalMs: 1000 },
    });
    const data = async (path: string) => ((await http.get(path)).data as { data: Record<string, unknown>[] }).data;
    fixture = {
      sandbox,
      client,
      http,
      outbox: () => data('/sandbox/outbox'),
      privacyLog: () => data('/sandbox/privacy-log'),
      async setSettings(settings) {
        const res = await http.put('/sandbox/settings', settings);
        if (res.status !== 200) throw new Error(`settings rejected: ${JSON.stringify(res.data)}`);
      },
      async advanceClock(seconds) {
        await http.put('/sandbox/clock', { advance_seconds: seconds });
      },
    };
  });
  beforeEach(async () => {
    const res = await fixture?.http.post('/sandbox/reset', { seed: 'demo' });
    if (res?.status !== 200) throw new Error(`reset failed: ${JSON.stringify(res?.data)}`);
  });
  afterAll(async () => {
    await fixture?.client.close();
    await fixture?.sandbox.close();
  });
  return () => {
    if (!fixture) throw new Error('the sandbox is not started yet');
    return fixture;
  };
}

/** Collect an async iterable. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Base64 of a text. */
export function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}
