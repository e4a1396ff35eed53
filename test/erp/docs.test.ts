import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { connectionSchema, sinkSchemaFor, sourceSchemaFor, type Connection } from '../../src/erp/index.js';

/** The connection names the README's examples use, and their kinds. */
const KINDS: Record<string, Connection['kind']> = { erp: 'postgres', legacy: 'sqlite', drop: 'files', 'erp-api': 'http' };

describe('documented connector configuration', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  // Only the README's connector chapter: other chapters hold whole-config examples of their own.
  const start = readme.indexOf('\n## ERP connectors');
  const end = readme.indexOf('\n## ', start + 1);
  const text = start < 0 ? '' : readme.slice(start, end < 0 ? undefined : end);
  const blocks = [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  const docs = blocks.flatMap((b) => parseAllDocuments(b).map((d) => d.toJS() as Record<string, unknown>));

  it('has examples for every connection kind, source and sink', () => {
    expect(text, 'README.md has a chapter "## ERP connectors"').not.toBe('');
    const kinds = docs.flatMap((d) => Object.values((d.connections ?? {}) as Record<string, { kind: string }>).map((c) => c.kind));
    expect(new Set(kinds)).toEqual(new Set(['postgres', 'sqlite', 'files', 'http']));
    expect(docs.filter((d) => d.source).length).toBeGreaterThanOrEqual(4);
    expect(docs.filter((d) => d.sink).length).toBeGreaterThanOrEqual(3);
  });

  it('validates every complete example in the README against the schemas', () => {
    for (const doc of docs) {
      for (const conn of Object.values((doc.connections ?? {}) as Record<string, unknown>)) {
        const r = connectionSchema.safeParse(conn);
        expect(r.error?.issues ?? []).toEqual([]);
      }
      for (const part of ['source', 'sink'] as const) {
        const cfg = doc[part] as { connection?: string } | undefined;
        if (!cfg) continue;
        const kind = KINDS[cfg.connection ?? ''];
        expect(kind, `example ${part} names a known connection`).toBeDefined();
        const schema = part === 'source' ? sourceSchemaFor(kind as Connection['kind']) : sinkSchemaFor(kind as Connection['kind']);
        const r = schema.safeParse(cfg);
        expect(r.error?.issues ?? [], JSON.stringify(cfg)).toEqual([]);
      }
    }
  });
});
