/**
 * Every relative link and image of README.md and docs/*.md points to a file that exists, and a
 * `#anchor` to a heading of the file it names (GitHub's heading slugs).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docFiles, parseBlocks, ROOT } from './support/blocks.js';

/** Markdown text with its fenced blocks blanked out (links there are examples, not links). */
function withoutFences(file: string): string {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  for (const b of parseBlocks(text, file)) {
    const end = b.line + b.text.split('\n').length - 1;
    for (let i = b.line - 1; i < end && i < lines.length; i++) lines[i] = '';
  }
  return lines.join('\n');
}

/** …and without inline code. */
function prose(file: string): string {
  return withoutFences(file).replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchors of a markdown file's headings. */
export function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of withoutFences(file).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = (m[1] as string)
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe('links in the docs', () => {
  it.each(docFiles().map((f) => [relative(ROOT, f), f] as const))('%s: every relative link points to an existing file and heading', (_, file) => {
    const problems: string[] = [];
    for (const m of prose(file).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1] as string;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [path, anchor] = target.split('#', 2) as [string, string | undefined];
      const dest = path === '' ? file : resolve(dirname(file), decodeURI(path));
      const rel = relative(ROOT, dest);
      if (!existsSync(dest)) {
        problems.push(`${target}: ${rel} does not exist`);
        continue;
      }
      if (anchor && dest.endsWith('.md') && !anchors(dest).has(anchor)) problems.push(`${target}: ${rel} has no heading #${anchor} (it has ${[...anchors(dest)].join(', ')})`);
    }
    expect(problems).toEqual([]);
  });

  it('link every docs file from the README', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const f of readdirSync(join(ROOT, 'docs')).filter((n) => n.endsWith('.md'))) expect(readme, `README links docs/${f}`).toContain(`](docs/${f})`);
  });
});
