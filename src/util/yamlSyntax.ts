/**
 * YAML syntax errors as a person can act on them: the line that is wrong (the `yaml` library
 * reports where it gave up, which for an over-indented key or an unclosed `{` is the line before
 * or after), that line with a caret, and a plain fix for the common mistakes: indentation, tabs,
 * no space after `:`, an unquoted `: ` or ` #` in a value, `${VAR}` inside `{ }` or `[ ]`, an
 * unclosed quote or bracket, a duplicate key, a value starting with `*`. Built on the library's
 * own error codes and positions (`YAMLError.code`, `pos`, `linePos`), never on its message text.
 */
import { isAlias, isCollection, isScalar, isSeq, Scalar, visit, type Document, type LineCounter, type Node, type YAMLError } from 'yaml';

/** One YAML syntax problem, located and explained. */
export interface YamlSyntaxProblem {
  /** 1-based line and column of what is wrong. */
  readonly line: number;
  readonly column: number;
  /** What is wrong, in words, with the parser's own message in brackets. */
  readonly reason: string;
  /** The line(s) concerned, numbered, with a caret under the column; empty when not shown. */
  readonly excerpt: string;
  /** How to fix it, starting with `Fix: `. */
  readonly hint: string;
}

/** Keys whose values are never shown in an excerpt (a password written into the file). */
const SECRET_KEY = /token|secret|password|passwd|api[-_]?key|credential/i;
const GENERAL =
  'YAML nests by indentation: keys of one mapping start in the same column, indented with spaces, never tabs.';
const QUOTING =
  'Quote a value (in "…" or \'…\') that holds ": " or " #", or that starts with {, [, *, &, !, @, % or a backtick.';

/** A line split into its indentation, an optional `- ` marker, a key and the rest after the colon. */
interface KeyLine {
  readonly key: string;
  /** 1-based column of the key. */
  readonly column: number;
  readonly value: string;
}

function keyLine(text: string): KeyLine | undefined {
  const m = /^([ \t]*(?:-[ \t]+)*)(["']?[^\s:#"'{}[\],][^:#]*?["']?)[ \t]*:(?:[ \t]+(.*))?$/.exec(text);
  if (!m) return undefined;
  return { key: m[2]!, column: m[1]!.length + 1, value: (m[3] ?? '').replace(/\s+#.*$/, '') };
}

const indentOf = (text: string): number => /^[ \t]*/.exec(text)![0].length;
const isContent = (text: string): boolean => text.trim() !== '' && !text.trim().startsWith('#');

/** Locate, explain and show the first problem of `doc`, or undefined when it has none (aliases included). */
export function yamlSyntaxProblem(doc: Document, text: string, lines: LineCounter, options: YamlProblemOptions = {}): YamlSyntaxProblem | undefined {
  const source = text.split(/\r?\n/);
  const lineText = (n: number): string => source[n - 1] ?? '';
  const at = (offset: number) => lines.linePos(offset);
  const found = doc.errors.length > 0 ? explain(doc, doc.errors, text, lineText, at) : unresolvedAlias(doc, lineText, at);
  if (!found) return undefined;
  if (options.showContent === false) {
    return { line: found.line, column: found.column, reason: found.parser ?? 'not valid YAML', excerpt: '', hint: `Fix: ${GENERAL} ${QUOTING}` };
  }
  const shown = excerpt(found.lines ?? [found.line], found.line, found.column, lineText);
  return { line: found.line, column: found.column, reason: found.reason, excerpt: shown, hint: `Fix: ${found.hint}` };
}

/** Options of `yamlSyntaxProblem`. */
export interface YamlProblemOptions {
  /** Quote the file's lines, keys and values in the message. @default true */
  readonly showContent?: boolean;
}

/** The message a loader throws: `file:line:col: label: reason`, the excerpt and the fix. */
export function formatYamlProblem(file: string, label: string, p: YamlSyntaxProblem): string {
  return [`${file}:${p.line}:${p.column}: ${label}: ${p.reason}`, ...(p.excerpt ? [p.excerpt] : []), `  ${p.hint}`].join('\n');
}

interface Found {
  readonly line: number;
  readonly column: number;
  readonly reason: string;
  readonly hint: string;
  /** Lines to show (the culprit last); default the culprit alone. */
  readonly lines?: readonly number[];
  /** The parser's own message (it names no content of the file). */
  readonly parser?: string;
}

type At = (offset: number) => { line: number; col: number };

/** What every reading of an error gets: the error, where it is, its line, and the document around it. */
interface Reading {
  readonly doc: Document;
  readonly errors: readonly YAMLError[];
  readonly e: YAMLError;
  readonly start: { line: number; col: number };
  /** The text of the error's line. */
  readonly text: string;
  /** ` (the parser's message)`, appended to each reason. */
  readonly said: string;
  readonly yamlText: string;
  readonly lineText: (n: number) => string;
  readonly at: At;
}

/** The parser's message without its position and excerpt (prettyErrors adds them; we show our own). */
const parserMessage = (e: YAMLError): string => e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');

/** Read the first error by its code and the lines around it; the first reading that applies wins. */
function explain(doc: Document, errors: readonly YAMLError[], yamlText: string, lineText: (n: number) => string, at: At): Found {
  const e = errors[0]!;
  const start = at(e.pos[0]);
  const r: Reading = { doc, errors, e, start, text: lineText(start.line), said: ` (${parserMessage(e)})`, yamlText, lineText, at };
  const found = referenceInFlow(r) ?? tabIndent(r) ?? implicitKey(r) ?? unclosedOpening(r) ?? misaligned(r) ?? duplicateKey(r) ?? reservedStart(r);
  return { ...(found ?? { line: start.line, column: start.col, reason: parserMessage(e), hint: `${GENERAL} ${QUOTING}` }), parser: parserMessage(e) };
}

/** `${VAR}` inside a flow collection: there `{` starts a nested mapping. */
function referenceInFlow({ e, start, text, said }: Reading): Found | undefined {
  const ref = /\$\{[^}]*\}/.exec(text);
  if (!ref || !/[{[]/.test(text.slice(0, ref.index)) || !['UNEXPECTED_TOKEN', 'MISSING_CHAR', 'BAD_INDENT'].includes(e.code)) return undefined;
  return {
    line: start.line,
    column: ref.index + 1,
    reason: `\`${ref[0]}\` inside { } or [ ] reads as the start of a nested mapping${said}`,
    hint: `quote \`${ref[0]}\` inside { } or [ ] ("${ref[0]}"), or write the block one key per line. ${QUOTING}`,
  };
}

function tabIndent({ e, start, text, said }: Reading): Found | undefined {
  if (e.code !== 'TAB_AS_INDENT' && !(e.code === 'BAD_INDENT' && /^ *\t/.test(text))) return undefined;
  return { line: start.line, column: 1, reason: `line ${start.line} is indented with a tab${said}`, hint: `replace the tab at the start of line ${start.line} with spaces. ${GENERAL}` };
}

/**
 * The parser took a line for part of a key: the next line is indented deeper than this key (the
 * parser blames this line; the next one is wrong), this key has no space after its colon, a list
 * item stands among keys, or a value holds an unquoted ": ".
 */
function implicitKey({ errors, e, start, text, said, lineText, at }: Reading): Found | undefined {
  if (e.code !== 'BLOCK_AS_IMPLICIT_KEY' && e.code !== 'MULTILINE_IMPLICIT_KEY') return undefined;
  const multi = errors.find((x) => x.code === 'MULTILINE_IMPLICIT_KEY');
  const endLine = multi ? at(multi.pos[1]).line : start.line;
  const above = keyLine(text);
  if (endLine > start.line) {
    // A key with no space after its colon (`database:erp`) is text, so the next key reads as part of it.
    const glued = /^([ \t]*(?:-[ \t]+)*)([\w.-]+):(\S.*)$/.exec(text);
    if (glued && e.code === 'MULTILINE_IMPLICIT_KEY') {
      return {
        line: start.line,
        column: glued[1]!.length + glued[2]!.length + 2,
        reason: `\`${glued[2]}:${glued[3]}\` has no space after its colon, so YAML reads it as text, not as a key${said}`,
        hint: `put a space after the colon: \`${glued[2]}: ${secretShown(glued[2]!, glued[3]!)}\`. ${GENERAL}`,
      };
    }
    const culprit = lineText(endLine);
    const below = keyLine(culprit);
    if (above && below) {
      return {
        line: endLine,
        column: indentOf(culprit) + 1,
        lines: [start.line, endLine],
        reason: `\`${below.key}:\` is indented deeper than \`${above.key}:\` on line ${start.line}, so YAML reads it as part of that value${said}`,
        hint: `indent \`${below.key}:\` to column ${above.column}, like \`${above.key}:\` on line ${start.line}. ${GENERAL}`,
      };
    }
  }
  if (text.trim().startsWith('- ') || text.trim() === '-') {
    return {
      line: start.line,
      column: indentOf(text) + 1,
      reason: `a list item stands among the keys of a mapping${said}`,
      hint: `put the list under a key of its own (\`key:\` on the line before, the items indented below it), or indent the item under the key it belongs to. ${GENERAL}`,
    };
  }
  if (e.code === 'BLOCK_AS_IMPLICIT_KEY' && above && above.value.includes(': ')) {
    return {
      line: start.line,
      column: start.col,
      reason: `the value of \`${above.key}:\` holds ": ", which starts another mapping${said}`,
      hint: `quote the value, since ": " inside it starts a mapping: \`${above.key}: ${quoted(secretShown(above.key, above.value))}\`. ${QUOTING}`,
    };
  }
  return undefined;
}

/** A `{`, `[` or quote that never closes: named where it opens, not where the parser gave up. */
function unclosedOpening({ doc, e, said, yamlText, lineText, at }: Reading): Found | undefined {
  if (e.code !== 'BAD_INDENT' && e.code !== 'MISSING_CHAR') return undefined;
  const open = unclosed(doc, yamlText, e.pos[0]);
  if (!open) return undefined;
  const o = at(open.offset);
  const quote = open.char === "'" || open.char === '"';
  const comment = !quote && / #/.test(lineText(o.line).slice(o.col)) ? ` On line ${o.line}, " #" starts a comment, which hides the rest of the line: quote a value that holds " #".` : '';
  const close = open.char === '{' ? '}' : open.char === '[' ? ']' : open.char;
  return {
    line: o.line,
    column: o.col,
    reason: `the ${open.char} opened on line ${o.line} is never closed${said}`,
    hint: quote
      ? `close the ${open.char} opened on line ${o.line} at the end of its value${open.char === "'" ? " (inside '…' a ' is written '')" : ' (inside "…" a " is written \\")'}.`
      : `close the ${open.char} opened on line ${o.line} with ${close}, or write the block one key per line.${comment}`,
  };
}

/** A key that starts in another column than the keys of its mapping. */
function misaligned({ e, start, text, said, lineText }: Reading): Found | undefined {
  if (e.code !== 'BAD_INDENT') return undefined;
  const key = keyLine(text);
  const sibling = siblingAbove(start.line, indentOf(text), lineText);
  if (!key || !sibling) return undefined;
  return {
    line: start.line,
    column: indentOf(text) + 1,
    lines: [sibling.line, start.line],
    reason: `\`${key.key}:\` starts at column ${indentOf(text) + 1}, \`${sibling.key}:\` on line ${sibling.line} at column ${sibling.column}${said}`,
    hint: `indent \`${key.key}:\` to column ${sibling.column}, like \`${sibling.key}:\` on line ${sibling.line}. ${GENERAL}`,
  };
}

function duplicateKey({ e, start, text, said, lineText }: Reading): Found | undefined {
  const key = e.code === 'DUPLICATE_KEY' ? keyLine(text) : undefined;
  if (!key) return undefined;
  const first = earlierKey(start.line, key, lineText);
  return {
    line: start.line,
    column: indentOf(text) + 1,
    reason: `\`${key.key}\` is given twice in one mapping${first ? ` (also on line ${first})` : ''}${said}`,
    hint: `keep one \`${key.key}:\`${first ? ` (line ${first} or line ${start.line})` : ''}; a second one would silently replace the first.`,
  };
}

function reservedStart({ e, start, said }: Reading): Found | undefined {
  return e.code === 'BAD_SCALAR_START' ? { line: start.line, column: start.col, reason: `a value starts with a character YAML reserves${said}`, hint: QUOTING } : undefined;
}

/** The nearest key above `line` that is indented more than `indent`, before a line indented as little or less. */
function siblingAbove(line: number, indent: number, lineText: (n: number) => string): { line: number; key: string; column: number } | undefined {
  let best: { line: number; key: string; column: number } | undefined;
  for (let n = line - 1; n >= 1; n--) {
    const t = lineText(n);
    if (!isContent(t)) continue;
    const k = keyLine(t);
    const col = k ? k.column - 1 : indentOf(t);
    if (indentOf(t) <= indent && col <= indent) break;
    if (k && k.column - 1 > indent && (!best || k.column < best.column)) best = { line: n, key: k.key, column: k.column };
  }
  return best;
}

/** The line of an earlier `key:` at the same column, within the same block. */
function earlierKey(line: number, key: KeyLine, lineText: (n: number) => string): number | undefined {
  for (let n = line - 1; n >= 1; n--) {
    const t = lineText(n);
    if (!isContent(t)) continue;
    const k = keyLine(t);
    if (k && k.column === key.column && k.key === key.key) return n;
    if (indentOf(t) < key.column - 1) return undefined;
  }
  return undefined;
}

/** The flow collection or quoted scalar, begun before `offset`, whose closing character never came. */
function unclosed(doc: Document, text: string, offset: number): { offset: number; char: string } | undefined {
  let found: { offset: number; char: string } | undefined;
  visit(doc, {
    Node(_, node) {
      const range = (node as Node).range;
      if (!range || range[0] >= offset) return;
      const written = text.slice(range[0], range[1]).trimEnd();
      if (isCollection(node) && node.flow) {
        const [opening, closing] = isSeq(node) ? ['[', ']'] : ['{', '}'];
        if (!written.endsWith(closing)) found = { offset: range[0], char: opening };
      } else if (isScalar(node) && (node.type === Scalar.QUOTE_SINGLE || node.type === Scalar.QUOTE_DOUBLE)) {
        const quote = node.type === Scalar.QUOTE_SINGLE ? "'" : '"';
        if (written.length < 2 || !written.endsWith(quote)) found = { offset: range[0], char: quote };
      }
    },
  });
  return found;
}

/** A value such as `*geheim1` is an alias: toJS() throws when no anchor &geheim1 exists. */
function unresolvedAlias(doc: Document, lineText: (n: number) => string, at: At): Found | undefined {
  let found: Found | undefined;
  visit(doc, {
    Alias(_, node) {
      if (found || !isAlias(node) || node.resolve(doc) !== undefined) return;
      const p = at(node.range?.[0] ?? 0);
      const key = keyLine(lineText(p.line));
      found = {
        line: p.line,
        column: p.col,
        parser: 'an alias (a value starting with *) names an anchor that is not defined',
        reason: `\`*${node.source}\` reads as a reference to an anchor &${node.source} that is not defined (a value starting with * is an alias in YAML)`,
        hint: `quote a value that starts with *: \`${key?.key ?? 'key'}: "${key && SECRET_KEY.test(key.key) ? '…' : `*${node.source}`}"\`. ${QUOTING}`,
      };
      return visit.BREAK;
    },
  });
  return found;
}

/** A value as the hint may repeat it: never the value of a secret key. */
function secretShown(key: string, value: string): string {
  return SECRET_KEY.test(key) && !/^\$\{[^}]*\}$/.test(value.trim()) ? '…' : value;
}

function quoted(value: string): string {
  return value.includes('"') ? `'${value.replace(/'/g, "''")}'` : `"${value}"`;
}

/** Numbered lines with a caret under `column` of `line`; tabs shown as →, values of secret keys hidden. */
function excerpt(show: readonly number[], line: number, column: number, lineText: (n: number) => string): string {
  const width = 6;
  const out: string[] = [];
  let caret = column;
  for (const n of show) {
    const raw = lineText(n).replace(/\t/g, '→');
    const key = keyLine(raw);
    let shownText = raw;
    if (key && SECRET_KEY.test(key.key) && key.value !== '' && !/^["']?\$\{[^}]*\}["']?$/.test(key.value.trim())) {
      const cut = raw.indexOf(':', key.column - 1 + key.key.length) + 1;
      shownText = `${raw.slice(0, cut)} (value hidden)`;
      if (n === line && caret > cut) caret = cut + 2;
    }
    out.push(`${String(n).padStart(width)} | ${shownText}`);
  }
  out.push(`${' '.repeat(width)} | ${' '.repeat(Math.max(0, caret - 1))}^`);
  return out.join('\n');
}
