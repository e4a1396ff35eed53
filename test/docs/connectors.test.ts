/**
 * The connector reference shows every kind of connection, and enough sources and sinks; each of its
 * examples is validated with the others by examples.test.ts (moved here from test/erp/docs.test.ts,
 * which read the README's connector chapter before it became docs/connectors.md).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseBlocks, ROOT, YAML_LANGS } from './support/blocks.js';

describe('docs/connectors.md', () => {
  const blocks = parseBlocks(readFileSync(join(ROOT, 'docs', 'connectors.md'), 'utf8'), 'docs/connectors.md').filter((b) => YAML_LANGS.has(b.lang));
  const docs = blocks.flatMap((b) => parseAllDocuments(b.text).map((d) => d.toJS() as Record<string, unknown>));

  it('has examples for every connection kind, and for sources and sinks', () => {
    const kinds = docs.flatMap((d) => Object.values((d.connections ?? {}) as Record<string, { kind: string }>).map((c) => c.kind));
    expect(new Set(kinds)).toEqual(new Set(['postgres', 'sqlite', 'files', 'http', 'jsonrpc']));
    expect(docs.filter((d) => d.source).length).toBeGreaterThanOrEqual(4);
    expect(docs.filter((d) => d.sink).length).toBeGreaterThanOrEqual(3);
  });
});
