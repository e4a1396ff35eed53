import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, startCli } from './support.js';

beforeAll(async () => {
  await ensureBuilt();
}, 300_000);

describe('shopsync sandbox', { timeout: 180_000 }, () => {
  it('prints one line with its base URL when ready, serves the API with the given token and scopes, and stops on SIGTERM with 0', async () => {
    const p = startCli(['sandbox', '--port', '0', '--memory', '--seed', 'demo', '--token', 'reader-token-1=products:read', '--client', 'app:app-secret-1']);
    const [line, url] = await p.waitFor(/^shopsync sandbox listening on (http:\/\/127\.0\.0\.1:\d+)$/m);
    expect(p.stdout().trim().split('\n')).toEqual([line]);
    expect(line).not.toContain('reader-token-1');
    const ok = await fetch(`${url}/export/json/products?limit=1`, { headers: { authorization: 'Bearer reader-token-1' } });
    expect(ok.status).toBe(200);
    const denied = await fetch(`${url}/import/json/products`, { method: 'POST', headers: { authorization: 'Bearer reader-token-1', 'content-type': 'application/json' }, body: '{"data":[]}' });
    expect(denied.status).toBe(403);
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
  });

  it('announces the default token, stops on SIGINT, and rejects a malformed --client with exit 2', async () => {
    const p = startCli(['sandbox', '--port', '0', '--memory']);
    await p.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+ \(token: sandbox-token\)/);
    p.child.kill('SIGINT');
    expect((await p.exited).code).toBe(0);
    const bad = await runCli(['sandbox', '--memory', '--client', 'nosecret']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--client');
  });
});
