/** An unknown command names the nearest command of the whole tree, subcommands included. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  let stderr = '';
  out.resume();
  err.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await main(['node', 'shopsync', ...args], { stdout: out as unknown as NodeJS.WriteStream, stderr: err as unknown as NodeJS.WriteStream, env: {} });
  return { code, stderr };
}

describe('an unknown command', () => {
  it('that is the name of a subcommand suggests the whole command, with usage exit code 2', async () => {
    const r = await cli(['check']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: unknown command 'check'\n(Did you mean shopsync config check or shopsync mappings check?)\n(run with --help for usage)\n");
  });

  it.each([
    ['retry', 'shopsync dlq retry'],
    ['preview', 'shopsync mappings preview'],
    ['backup', 'shopsync state backup'],
    ['prune', 'shopsync state prune'],
  ])('%s suggests %s', async (word, suggestion) => {
    const r = await cli([word]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`(Did you mean ${suggestion}?)`);
  });

  it('names every command a subcommand name belongs to when several groups have it', async () => {
    const r = await cli(['list']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('(Did you mean shopsync dlq list or shopsync conflicts list or shopsync jobs list or shopsync shops list?)');
  });

  it('still suggests a sibling for a typo, at the top level and inside a group', async () => {
    expect((await cli(['snyc'])).stderr).toContain('(Did you mean shopsync sync?)');
    expect((await cli(['mappings', 'chekc'])).stderr).toContain('(Did you mean shopsync mappings check?)');
    expect((await cli(['dlq', 'retyr'])).stderr).toContain('(Did you mean shopsync dlq retry?)');
  });

  it('inside a group suggests a command of another group when none of its own is near', async () => {
    const r = await cli(['dlq', 'check']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('(Did you mean shopsync config check or shopsync mappings check?)');
  });

  it('suggests nothing when nothing is near', async () => {
    const r = await cli(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: unknown command 'frobnicate'\n(run with --help for usage)\n");
  });
});
