/**
 * One sandbox shop per test file: `const sandbox = useSandbox()` at the top level starts it in
 * `beforeAll` and closes it in `afterAll`. The returned handle reads the running sandbox, so
 * `sandbox.url` and `sandbox.token` can be used inside tests and hooks as with `startSandbox`.
 */
import { afterAll, beforeAll } from 'vitest';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/index.js';

/** Extra setup of `useSandbox`. */
export interface UseSandboxSetup {
  /** Runs in the same `beforeAll`, before the sandbox starts (the CLI tests build dist/ there). */
  readonly before?: () => Promise<void>;
  /** The `beforeAll` hook's timeout. @default vitest's hook timeout */
  readonly timeoutMs?: number;
}

/** Start a sandbox (empty, in memory unless `options` say otherwise) for this file's tests. */
export function useSandbox(options: SandboxOptions = {}, setup: UseSandboxSetup = {}): SandboxHandle {
  let handle: SandboxHandle | undefined;
  const running = (): SandboxHandle => {
    if (!handle) throw new Error('the sandbox is used outside the tests (it starts in beforeAll)');
    return handle;
  };
  beforeAll(async () => {
    await setup.before?.();
    handle = await startSandbox({ seed: 'empty', dbPath: ':memory:', ...options });
  }, setup.timeoutMs);
  afterAll(async () => {
    await handle?.close();
  });
  return {
    get url() {
      return running().url;
    },
    get token() {
      return running().token;
    },
    get port() {
      return running().port;
    },
    reference: () => running().reference(),
    settings: () => running().settings(),
    close: () => running().close(),
  };
}

/** The environment a test config reads the shop from (`${SHOP_URL}`, `${SHOP_TOKEN}`). */
export function shopEnv(sandbox: Pick<SandboxHandle, 'url' | 'token'>): { SHOP_URL: string; SHOP_TOKEN: string } {
  return { SHOP_URL: sandbox.url, SHOP_TOKEN: sandbox.token };
}
