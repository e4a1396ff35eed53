/** Polling helpers for tests that watch something another process or server does. */

/** Wait `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Resolve once `check` answers true; poll every `intervalMs`, fail after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 30_000, intervalMs = 100): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await sleep(intervalMs);
  }
}

/** The `http://127.0.0.1:<port>` of a listening server (fastify's `app.server`, node's `http.Server`). */
export function listeningUrl(server: { address(): string | { port: number } | null }, host = '127.0.0.1'): string {
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error(`server is not listening on a TCP port (address: ${String(address)})`);
  return `http://${host}:${address.port}`;
}
