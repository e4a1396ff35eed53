import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createErp, ensureBuilt, runCli, startCli, tempDir, writeConfig } from './support.js';
import { useSandbox } from '../support/sandbox.js';

const TOKEN = 'tok-S3cr3t-static-4711';
const CLIENT_SECRET = 'cs-V3ryS3cret-0815';
const DASHBOARD_TOKEN = 'dash-Hidden-Token-42-0123456789abcdefgh';

const sandbox = useSandbox({ tokens: [{ value: TOKEN }], clients: [{ id: 'shopsync', secret: CLIENT_SECRET }] }, { before: ensureBuilt, timeoutMs: 300_000 });

/** Every secret (and its base64/URL-encoded forms) that must never reach a log line. */
function leaks(text: string, secrets: readonly string[]): string[] {
  const forms = secrets.flatMap((s) => [s, encodeURIComponent(s), Buffer.from(s).toString('base64')]);
  return text.split('\n').filter((line) => forms.some((f) => line.includes(f)));
}

describe('secrets in logs', { timeout: 180_000 }, () => {
  it('never writes the shop token, OAuth client secret or dashboard token, even at trace level', async () => {
    const dir = tempDir();
    createErp(join(dir, 'erp.sqlite'), 12);
    writeFileSync(join(dir, 'client_secret'), `${CLIENT_SECRET}\n`);
    const plain = writeConfig(dir);
    // The same pipeline with OAuth, a dashboard token from the environment, a schedule and its own state.
    const oauth = writeConfig(dir, {
      file: 'oauth.yaml',
      auth: `  oauth:\n    clientId: shopsync\n    clientSecret: \${file:${join(dir, 'client_secret')}}`,
      schedule: '* * * * * *',
      statePath: 'state/oauth.db',
      dashboardToken: '${DASHBOARD_TOKEN}',
    });
    const env = { SHOP_URL: sandbox.url, SHOP_TOKEN: TOKEN, DASHBOARD_TOKEN };

    const outputs: string[] = [];
    for (const args of [
      ['sync', 'products', '--log-level', 'trace', '--config', plain],
      ['sync', 'products', '--dry-run', '--log-level', 'trace', '--config', oauth],
      ['status', '--log-level', 'trace', '--config', oauth],
    ]) {
      const res = await runCli(args, { env });
      expect(res.code, res.stderr).toBe(0);
      outputs.push(res.stdout, res.stderr);
    }
    // The daemon too: start, one scheduled run at trace level, SIGTERM.
    const daemon = startCli(['run', '--log-level', 'trace', '--config', oauth], { env: { ...env, LOG_LEVEL: 'trace' } });
    await daemon.waitFor(/run finished/);
    daemon.child.kill('SIGTERM');
    const d = await daemon.exited;
    expect(d.code).toBe(0);
    outputs.push(d.stdout, d.stderr);

    const all = outputs.join('\n');
    // The logs really were at debug level and really talked to the shop.
    expect(all).toContain('"level":20');
    expect(all).toContain('shop request');
    expect(leaks(all, [TOKEN, CLIENT_SECRET, DASHBOARD_TOKEN])).toEqual([]);
    // Tokens issued at run time (OAuth) are unknown up front: no bearer value or access_token may show either.
    expect(all.split('\n').filter((l) => /Bearer\s+(?!\[redacted\])\S/i.test(l) || /access_token"?\s*[:=]\s*"?(?!\[redacted\])\w/i.test(l))).toEqual([]);
  });
});
