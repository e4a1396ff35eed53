/**
 * Every fenced YAML, shell and TypeScript block of README.md and docs/*.md, checked against the
 * code: YAML through the config and mapping loaders, every shopsync command line against the CLI's
 * commander definition, other programs against package.json and a short list, TypeScript imports
 * against the modules they name. The marking convention is docs/CONTRIBUTING-docs.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allBlocks, docFiles, ROOT, SHELL_LANGS, SHELL_MARKERS, TS_LANGS, where, YAML_LANGS, YAML_MARKERS, type Block } from './support/blocks.js';
import { parseProblem, synopsisProblem } from './support/cli.js';
import { shellCommands, shopsyncArgs, type ShellCommand } from './support/shell.js';
import { checkYamlBlock, impliedYamlMarker } from './support/yaml.js';

const blocks = allBlocks();
const yamlBlocks = blocks.filter((b) => YAML_LANGS.has(b.lang));
const shellBlocks = blocks.filter((b) => SHELL_LANGS.has(b.lang));
const tsBlocks = blocks.filter((b) => TS_LANGS.has(b.lang));
const label = (b: Block) => `${where(b)} ${b.lang}${b.marker ? ` ${b.marker}` : ''}`;

/** npm's own commands the docs may use; `npm run <script>` must name a script of package.json. */
const NPM_COMMANDS = new Set(['install', 'ci', 'start', 'test', 'rebuild', 'prune', 'link']);
/** Other programs the docs may show; anything else is a typo or needs adding here deliberately. */
const OTHER_PROGRAMS = new Set(['export', 'curl', 'docker', 'jq', 'openssl', 'kill', 'sleep', 'cd', 'mkdir', 'cp', 'git', 'pg_dump', 'pg_restore']);
/** Development tools of the repository run through npx. */
const NPX_TOOLS = new Set(['vitest', 'tsc', 'tsx']);
const scripts = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);

/** Why a shell command would not work as written, or undefined. */
async function commandProblem(cmd: ShellCommand): Promise<string | undefined> {
  const args = shopsyncArgs(cmd.argv);
  if (args) return parseProblem(args);
  const [program, sub, script] = cmd.argv;
  if (program === 'npm') {
    if (sub === 'run') return script && scripts.includes(script) ? undefined : `package.json has no script "${script}" (it has ${scripts.join(', ')})`;
    return sub && NPM_COMMANDS.has(sub) ? undefined : `npm ${sub} is not a command the docs should need`;
  }
  if (program === 'npx' && sub === 'shopsync') return 'shopsync is not published on npm: npx would fetch a stranger\'s package of that name; write `shopsync` (README: npm link)';
  if (program === 'npx') return sub && NPX_TOOLS.has(sub) ? undefined : `npx ${sub}: not a tool of this repository's devDependencies the docs should need`;
  if (program === 'docker' && sub === 'build') return existsSync(join(ROOT, 'Dockerfile')) ? undefined : 'no Dockerfile';
  if (program !== undefined && OTHER_PROGRAMS.has(program)) return undefined;
  return `unknown program "${program}" (a shopsync command is written shopsync or node bin/shopsync.js)`;
}

describe('the docs', () => {
  it('are README.md and every docs/*.md, and they hold blocks to check', () => {
    expect(docFiles().map((f) => f.slice(ROOT.length + 1))).toContain('docs/configuration.md');
    expect(yamlBlocks.length).toBeGreaterThan(20);
    expect(shellBlocks.length).toBeGreaterThan(5);
  });

  it('mark YAML and shell blocks only with known markers, and give every skip a reason', () => {
    const problems: string[] = [];
    for (const b of [...yamlBlocks, ...shellBlocks]) {
      const known: readonly string[] = YAML_LANGS.has(b.lang) ? YAML_MARKERS : SHELL_MARKERS;
      if (!b.marker && b.reason) problems.push(`${label(b)}: unknown marker "${b.reason.split(' ')[0]}" (known: ${known.join(', ')})`);
      if (b.marker && !known.includes(b.marker)) problems.push(`${label(b)}: "${b.marker}" is not a marker for ${b.lang} blocks (known: ${known.join(', ')})`);
      if (b.marker === 'skip-doc-test' && b.reason.length < 10) problems.push(`${label(b)}: skip-doc-test needs a reason after the marker`);
    }
    expect(problems).toEqual([]);
  });
});

describe('YAML examples in the docs', () => {
  const checked = yamlBlocks.filter((b) => b.marker !== 'skip-doc-test');
  it.each(checked.map((b) => [label(b), b] as const))('%s loads through the real loader', async (_, b) => {
    const marker = b.marker || impliedYamlMarker(b);
    if (!marker) {
      throw new Error(`${where(b)}: an unmarked YAML block must be a shopsync.yaml fragment (top-level keys of the config only) or a whole mapping; otherwise mark it (${YAML_MARKERS.join(', ')}; see docs/CONTRIBUTING-docs.md)`);
    }
    await checkYamlBlock({ ...b, marker });
  });
});

describe('shell commands in the docs', () => {
  const parsed = shellBlocks.filter((b) => b.marker !== 'skip-doc-test');
  it.each(parsed.map((b) => [label(b), b] as const))('%s: every command parses against the real CLI', async (_, b) => {
    const commands = shellCommands(b.text);
    expect(commands.length, `${where(b)} holds no command`).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const cmd of commands) {
      const problem = await commandProblem(cmd);
      if (problem) problems.push(`${where(b)}+${cmd.line}: ${cmd.source}\n    ${problem}`);
    }
    expect(problems).toEqual([]);
  });

  it.each(shellBlocks.filter((b) => b.marker === 'skip-doc-test').map((b) => [label(b), b] as const))(
    '%s is skipped only while it does not parse (drop the marker once it does)',
    async (_, b) => {
      const problems = await Promise.all(shellCommands(b.text).map((c) => commandProblem(c)));
      expect(problems.some((p) => p !== undefined), `${where(b)} parses now: remove "skip-doc-test" so it is checked (${b.reason})`).toBe(true);
    },
  );

  it('name only commands and options the CLI has, also in prose (`shopsync sync <pipeline> [--dry-run]`)', () => {
    const problems: string[] = [];
    for (const file of docFiles()) {
      // Inline code outside fenced blocks.
      const prose = readFileSync(file, 'utf8').replace(/^(\s*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n\s*\2\s*$/gm, '');
      for (const m of prose.matchAll(/`(shopsync [^`]+)`/g)) {
        const problem = synopsisProblem((m[1] as string).replace(/\\\|/g, '|'));
        if (problem) problems.push(`${file.slice(ROOT.length + 1)}: \`${m[1]}\`: ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('TypeScript examples in the docs', () => {
  it.each(tsBlocks.filter((b) => b.marker !== 'skip-doc-test').map((b) => [label(b), b] as const))('%s imports names its modules export', async (_, b) => {
    const imports = [...b.text.matchAll(/import\s*\{([^}]+)\}\s*from\s*'([^']+)'/g)];
    const problems: string[] = [];
    for (const [, names, from] of imports) {
      // Examples name modules from the repository root (./src/…) or as an installed package (shopsync/dist/src/…).
      const path = join(ROOT, (from as string).replace(/^shopsync\/dist\//, '').replace(/^\.\//, '').replace(/\.js$/, '.ts'));
      if (!existsSync(path)) {
        problems.push(`${where(b)}: ${from} does not exist (looked for ${path.slice(ROOT.length + 1)})`);
        continue;
      }
      const mod = (await import(path)) as Record<string, unknown>;
      // Type-only names (`type Foo`) leave no trace at run time; the tsc build checks those where they are used.
      const values = (names as string).split(',').map((n) => n.trim()).filter((n) => n && !n.startsWith('type '));
      for (const name of values.map((n) => n.split(/\s+as\s+/)[0] as string)) {
        if (!(name in mod)) problems.push(`${where(b)}: ${from} exports no ${name}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
