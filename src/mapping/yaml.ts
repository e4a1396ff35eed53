/**
 * Reading mapping YAML with positions, so every error can name `file:line:column`.
 */
import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import { MappingError } from '../errors.js';
import { formatYamlProblem, yamlSyntaxProblem } from '../util/yamlSyntax.js';

/** A parsed YAML document that can turn a path inside it into a line and column. */
export interface YamlSource {
  readonly file: string;
  readonly data: unknown;
  /** 1-based line and column of the node at `path` (its key when `at` is 'key'), or of the deepest existing parent. */
  locate(path: readonly PropertyKey[], at?: 'key' | 'value'): { line: number; column: number };
}

/** Parse YAML text; syntax errors become a MappingError naming file, line and column. */
export function parseYamlSource(text: string, file: string): YamlSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  // The file's lines are quoted only when it reads as a mapping so far: `mapping:` may name any file (issue 29 item 8).
  const syntax = yamlSyntaxProblem(doc, text, lineCounter, { showContent: looksLikeMapping(doc) });
  if (syntax) {
    throw new MappingError('MAPPING_YAML', formatYamlProblem(file, 'invalid YAML', syntax), { file, line: syntax.line, column: syntax.column });
  }
  const data: unknown = doc.toJS({ maxAliasCount: 100 });
  if (data === null || data === undefined || typeof data !== 'object' || Array.isArray(data)) {
    // Whatever the file is (a passwd file, a secret, a list), its content is not shown: the message
    // reaches logs, the dashboard and alerts.
    const start = (doc.contents as Node | null)?.range?.[0];
    const pos = start === undefined ? { line: 1, col: 1 } : lineCounter.linePos(start);
    const what = data === null || data === undefined ? 'is empty' : `is not a mapping file`;
    const found = data === null || data === undefined ? '' : `, found ${kindOf(data)} (the content is not shown)`;
    throw new MappingError('MAPPING_NOT_A_MAPPING', `${file}:${pos.line}:${pos.col}: ${what}: expected a YAML object with name, direction, target, key and fields${found}`, {
      file,
      line: pos.line,
      column: pos.col,
    });
  }
  return {
    file,
    data,
    locate(path, at = 'value') {
      const offset = findOffset(doc, path, at);
      const pos = lineCounter.linePos(offset);
      return { line: pos.line, column: pos.col };
    },
  };
}

/** The top level is a mapping with at least one of a mapping file's own keys. */
function looksLikeMapping(doc: Document): boolean {
  const top = doc.contents;
  return isMap(top) && ['name', 'direction', 'target', 'key', 'fields'].some((k) => top.has(k));
}

/** What a document that is not an object holds, in words. */
function kindOf(data: unknown): string {
  if (Array.isArray(data)) return 'a list';
  if (typeof data === 'number' || typeof data === 'bigint') return 'a number';
  if (typeof data === 'boolean') return 'true or false';
  return typeof data === 'string' ? 'text' : 'a value of another kind';
}

function findOffset(doc: Document, path: readonly PropertyKey[], at: 'key' | 'value'): number {
  let node: unknown = doc.contents;
  let offset = rangeStart(node) ?? 0;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return offset;
      const keyStart = rangeStart(pair.key);
      if (last && at === 'key' && keyStart !== undefined) return keyStart;
      node = pair.value;
      offset = rangeStart(node) ?? keyStart ?? offset;
    } else if (isSeq(node) && typeof seg === 'number') {
      node = node.items[seg];
      offset = rangeStart(node) ?? offset;
    } else {
      return offset;
    }
  }
  return offset;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range ? range[0] : undefined;
}
