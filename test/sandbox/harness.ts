/**
 * Test harness: a sandbox on a free port with an in-memory database, the project's own client
 * pointed at it, and a raw HTTP helper for what the client deliberately does not send (bad
 * tokens, wrong cases, malformed bodies) or to assert exact status codes and headers.
 */
import { afterAll, beforeAll } from 'vitest';
import { createShopClient, type ShopClient } from '../../src/shop/index.js';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/index.js';

export interface RawAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

export interface TestShop {
  readonly sandbox: SandboxHandle;
  readonly client: ShopClient;
  /** A raw request with the sandbox token (or `token`, or none with `token: null`). */
  api(method: string, path: string, body?: unknown, token?: string | null): Promise<RawAnswer>;
  /** Read every record of a resource through the client. */
  all(resource: Parameters<ShopClient['exportAll']>[0], filters?: Record<string, string | number>): Promise<Record<string, any>[]>;
  close(): Promise<void>;
}

/** Start a sandbox and a client for it. */
export async function openShop(options: SandboxOptions = {}): Promise<TestShop> {
  const sandbox = await startSandbox({ dbPath: ':memory:', seed: 'demo', ...options });
  const client = createShopClient({ baseUrl: sandbox.url, auth: { kind: 'token', token: sandbox.token }, retry: { retries: 0 } });
  const api = async (method: string, path: string, body?: unknown, token: string | null = sandbox.token): Promise<RawAnswer> => {
    const headers: Record<string, string> = {};
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${sandbox.url}${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // binary or text answers stay as text
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
  return {
    sandbox,
    client,
    api,
    async all(resource, filters) {
      const out: Record<string, any>[] = [];
      for await (const record of client.exportAll(resource, filters ? { filters } : {})) out.push(record as Record<string, any>);
      return out;
    },
    async close() {
      await client.close();
      await sandbox.close();
    },
  };
}

/** One shop for this file's tests: opened in `beforeAll`, closed in `afterAll`; use it inside tests and hooks. */
export function useShop(options: SandboxOptions = {}): TestShop {
  let shop: TestShop | undefined;
  const open = (): TestShop => {
    if (!shop) throw new Error('the shop is used outside the tests (it opens in beforeAll)');
    return shop;
  };
  beforeAll(async () => {
    shop = await openShop(options);
  });
  afterAll(async () => {
    await shop?.close();
  });
  return {
    get sandbox() {
      return open().sandbox;
    },
    get client() {
      return open().client;
    },
    api: (...args) => open().api(...args),
    all: (...args) => open().all(...args),
    close: () => open().close(),
  };
}
