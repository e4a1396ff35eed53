import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

/** Run the CLI in-process and collect what it writes. */
async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (c: Buffer) => (stdout += c.toString()));
  err.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await main(['node', 'shopsync', ...args], { stdout: out as unknown as NodeJS.WriteStream, stderr: err as unknown as NodeJS.WriteStream, env });
  return { code, stdout, stderr };
}

describe('usage errors a user meets first', () => {
  it('says what to give when dlq retry has neither ids nor --all, without an error-code prefix', async () => {
    const r = await cli(['dlq', 'retry']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('shopsync: give dead-letter ids (see `shopsync dlq list`) or --all\n');
  });

  it('says where it looked for the config and how to point at one', async () => {
    const r = await cli(['status', '--config', '/nonexistent/shopsync.yaml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^shopsync: \/nonexistent\/shopsync\.yaml: cannot read config.*--config <file>.*SHOPSYNC_CONFIG/);
  });
});
