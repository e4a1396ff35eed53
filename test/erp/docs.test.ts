import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { connectionSchema, sinkSchemaFor, sourceSchemaFor, type Connection } from '../../src/erp/index.js';

/** The connection names the README's examples use, and their kinds. */
const KINDS: Record<string, Connection['kind']> = { erp: 'postgres', legacy: 'sqlite', drop: 'files', 'erp-api': 'http' };

describe('documented connector configuration', () => {
  const text = readFileSync(new URL('../../docs/readme/connectors.md', import.meta.url), 'utf8');
  const blocks = [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  const docs = blocks.flatMap((b) => parseAllDocuments(b).map((d) => d.toJS() as Record<string, unknown>));

  it('has examples for every connection kind, source and sink', () => {
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
