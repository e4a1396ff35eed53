/**
 * A state the config points at but that cannot be opened stops every command before it runs:
 * exit 2 with the host and port of the PostgreSQL server and a hint, never its password.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, tempDir } from './support.js';

beforeAll(async () => {
  await ensureBuilt();
}, 180_000);

describe('a PostgreSQL state that cannot be reached', () => {
  it('ends status with exit 2, naming host, port and the setting to check, without the password', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'shopsync.yaml'),
      ['shop: { baseUrl: "http://127.0.0.1:9/api", token: "${SHOP_TOKEN}" }', 'state: { kind: postgres, url: "${STATE_DATABASE_URL}", schema: shopsync }', 'pipelines: []', ''].join('\n'),
    );
    const r = await runCli(['status'], { cwd: dir, env: { SHOP_TOKEN: 'token-1234', STATE_DATABASE_URL: 'postgres://shopsync:hunter2secret@127.0.0.1:1/erp' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/STATE_UNREACHABLE.*127\.0\.0\.1:1.*STATE_DATABASE_URL/);
    expect(r.stdout + r.stderr).not.toContain('hunter2secret');
  });
});
