/**
 * The docs' `sh doc-test` blocks, executed: each block runs, command by command, in a fresh
 * prepared installation (test/docs/support/fixture.ts) through the compiled bin, as a reader would
 * type it. A command must exit 0 unless its comment says `exit N`; `--json` output must be JSON.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli } from '../cli/support.js';
import { allBlocks, SHELL_LANGS, where } from './support/blocks.js';
import { docFixture, type DocFixture } from './support/fixture.js';
import { shellCommands, shopsyncArgs } from './support/shell.js';

const executed = allBlocks().filter((b) => SHELL_LANGS.has(b.lang) && b.marker === 'doc-test');

beforeAll(async () => {
  await ensureBuilt();
}, 300_000);

let fixture: DocFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe('documented commands, run', { timeout: 120_000 }, () => {
  it('include the README tutorial', () => {
    expect(executed.map((b) => b.file)).toContain('README.md');
  });

  it.each(executed.map((b) => [where(b), b] as const))('%s runs as written', async (_, b) => {
    fixture = await docFixture();
    const env: Record<string, string> = { ...fixture.env };
    for (const cmd of shellCommands(b.text)) {
      if (cmd.argv[0] === 'export') {
        for (const a of cmd.argv.slice(1)) {
          const [k, ...v] = a.split('=');
          env[k as string] = v.join('=');
        }
        continue;
      }
      const args = shopsyncArgs(cmd.argv);
      expect(args, `${where(b)}+${cmd.line}: only shopsync commands and export run in doc tests: ${cmd.source}`).toBeDefined();
      const expected = Number(/\bexits? (\d+)\b/.exec(cmd.comment)?.[1] ?? 0);
      const r = await runCli(args as string[], { cwd: fixture.dir, env: { ...env, ...cmd.assignments } });
      expect(r.code, `${where(b)}+${cmd.line}: ${cmd.source}\nstdout:\n${r.stdout.slice(-3000)}\nstderr:\n${r.stderr.slice(-3000)}`).toBe(expected);
      if (args?.includes('--json')) expect(() => JSON.parse(r.stdout) as unknown, `${cmd.source} prints JSON`).not.toThrow();
    }
  });
});
