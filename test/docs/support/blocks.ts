/**
 * The fenced blocks of the user-facing docs (README.md and every docs/*.md), with the marker of
 * their info string. The convention is described in docs/CONTRIBUTING-docs.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..', '..');

/** Every markdown file the doc tests cover: README.md and all of docs/*.md (new files are covered automatically). */
export function docFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => join(ROOT, 'docs', f));
  return [join(ROOT, 'README.md'), ...docs];
}

/** Markers a YAML block may carry; what each means is in docs/CONTRIBUTING-docs.md. */
export const YAML_MARKERS = ['shopsync-config', 'config-fragment', 'pipeline-fragment', 'source-fragment', 'shop-file', 'mapping', 'mapping-fragment', 'schema-line', 'skip-doc-test'] as const;
/** Markers a shell block may carry (none = every command is parsed). */
export const SHELL_MARKERS = ['doc-test', 'skip-doc-test'] as const;
export const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'console']);
export const YAML_LANGS = new Set(['yaml', 'yml']);
export const TS_LANGS = new Set(['ts', 'typescript']);

/** One fenced block. */
export interface Block {
  /** Path relative to the repository root. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  /** Second word of the info string when it is a marker, else ''. */
  readonly marker: string;
  /** `key=value` words after the marker. */
  readonly args: Readonly<Record<string, string>>;
  /** The remaining words (a skip's reason). */
  readonly reason: string;
  readonly text: string;
}

/** `file:line` of a block, for messages. */
export function where(b: Block): string {
  return `${b.file}:${b.line}`;
}

const KNOWN_MARKERS = new Set<string>([...YAML_MARKERS, ...SHELL_MARKERS]);

/** Parse a markdown text into its fenced blocks (indented fences inside lists included). */
export function parseBlocks(markdown: string, file: string): Block[] {
  const lines = markdown.split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(.*)$/.exec(lines[i] as string);
    if (!open) continue;
    const [, indent, fence, info] = open as unknown as [string, string, string, string];
    const body: string[] = [];
    let j = i + 1;
    const close = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    for (; j < lines.length && !close.test(lines[j] as string); j++) body.push((lines[j] as string).startsWith(indent) ? (lines[j] as string).slice(indent.length) : (lines[j] as string));
    const words = info.trim().split(/\s+/).filter(Boolean);
    const lang = (words.shift() ?? '').toLowerCase();
    const marker = words[0] !== undefined && KNOWN_MARKERS.has(words[0]) ? (words.shift() as string) : '';
    const args: Record<string, string> = {};
    while (words[0] !== undefined && /^[a-z-]+=\S+$/.test(words[0])) {
      const [k, v] = (words.shift() as string).split('=', 2) as [string, string];
      args[k] = v;
    }
    out.push({ file, line: i + 1, lang, marker, args, reason: words.join(' '), text: body.join('\n') + '\n' });
    i = j;
  }
  return out;
}

/** Every fenced block of every doc file. */
export function allBlocks(): Block[] {
  return docFiles().flatMap((f) => parseBlocks(readFileSync(f, 'utf8'), relative(ROOT, f)));
}
