/**
 * How a user gets the `shopsync` command: from a clone, `npm install` (its `prepare` builds dist/)
 * and `npm link`, said in the README's first lines. shopsync is not published on npm, so
 * `npx shopsync` would fetch whatever package of that name the registry holds: no doc, example or
 * text of the CLI may tell a user to run it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/blocks.js';
import { tempDir } from '../support/tmp.js';

/** Every text a user reads: the docs, the examples, the shipped config and mappings, and the CLI's own source (its help and messages). */
function userFacingFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(md|ts|js|ya?ml|json|txt|sh)$/.test(name)) out.push(path);
    }
  };
  for (const dir of ['docs', 'examples', 'src', 'bin', 'mappings', 'schemas']) walk(join(ROOT, dir));
  return [...out, join(ROOT, 'README.md'), join(ROOT, 'shopsync.example.yaml'), join(ROOT, 'Dockerfile')];
}

describe('getting the shopsync command', () => {
  it('is never `npx shopsync` (the name is not published; npx would run a stranger\'s package)', () => {
    const hits: string[] = [];
    for (const file of userFacingFiles()) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/\bnpx\s+shopsync\b/.test(line)) hits.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(hits).toEqual([]);
  });

  it('is said in the README\'s first lines: npm install and npm link in the clone', () => {
    const head = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').slice(0, 30).join('\n');
    expect(head).toMatch(/^npm install\b/m);
    expect(head).toMatch(/^npm link\b/m);
    expect(head).toMatch(/not published/);
  });

  it('builds dist/ on npm install (prepare), so the linked bin finds the CLI', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.bin).toEqual({ shopsync: 'bin/shopsync.js' });
    expect(pkg.scripts.prepare).toBe(pkg.scripts.build);
  });

  it('works linked globally: the bin runs through npm link\'s two symlinks from any folder', () => {
    // What `npm link` makes: <prefix>/lib/node_modules/shopsync -> the clone, <prefix>/bin/shopsync -> ../lib/node_modules/shopsync/bin/shopsync.js
    const prefix = tempDir('shopsync-link-');
    mkdirSync(join(prefix, 'lib', 'node_modules'), { recursive: true });
    mkdirSync(join(prefix, 'bin'));
    symlinkSync(ROOT, join(prefix, 'lib', 'node_modules', 'shopsync'));
    symlinkSync('../lib/node_modules/shopsync/bin/shopsync.js', join(prefix, 'bin', 'shopsync'));
    const elsewhere = tempDir('shopsync-empty-');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = spawnSync('shopsync', ['--version'], { cwd: elsewhere, encoding: 'utf8', env: { ...process.env, PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}` } });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(pkg.version);
    expect(r.status).toBe(0);
  });
});
