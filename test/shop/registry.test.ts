/**
 * The registry against the contract: every endpoint of `../shared/shop-api.md` (the Endpoints
 * tables and the article routes given in prose) must be served by some registry entry, with the
 * scope the spec names; every resource keeps to one scope family; every list field has semantics.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { allResources, type OperationDef, type ResourceDef } from '../../src/shop/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const specFile = path.resolve(repoRoot, '..', 'shared', 'shop-api.md');

/** Endpoints the spec mentions whose shape it does not show, with the reason they are not in the registry. */
const NOT_REGISTRY_ROUTES: Record<string, string> = {
  'POST /media': 'media upload: the spec says "shape not shown"; no resource of the registry',
};

interface SpecRoute {
  readonly method: string;
  readonly path: string;
  readonly scope?: string;
  readonly line: number;
}

function readSpec(): string {
  if (!existsSync(specFile)) throw new Error(`The API spec is missing: expected it at ${specFile} (../shared/shop-api.md relative to the repository root)`);
  return readFileSync(specFile, 'utf8');
}

/** Lower case, no query string, every placeholder spelled `{}` (`{ID}`, `{id}`, `{from}:{to}` alike). */
export function normalisePath(p: string): string {
  return p.trim().split('?')[0].toLowerCase().replace(/\{[^}]*\}/g, '{}').replace(/\/+$/, '');
}

/** Every route of the spec's Endpoints section: table rows `| METHOD | /path | scope |` and article routes in prose. */
function specRoutes(text: string): SpecRoute[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^## Endpoints\b/.test(l));
  const end = lines.findIndex((l, i) => i > start && /^## /.test(l));
  if (start < 0) throw new Error(`${specFile} has no "## Endpoints" section`);
  const routes: SpecRoute[] = [];
  const methodCell = /^(GET|POST|PUT|DELETE)(\s*,\s*(GET|POST|PUT|DELETE))*$/;
  for (let i = start; i < (end < 0 ? lines.length : end); i++) {
    const line = lines[i];
    if (line.startsWith('|')) {
      const cells = line.split('|').map((c) => c.trim());
      const m = cells.findIndex((c) => methodCell.test(c));
      if (m < 0 || !cells[m + 1]?.startsWith('/')) continue;
      const scope = /^[a-z_]+:(read|write|delete)/.exec(cells[m + 2] ?? '')?.[0];
      for (const method of cells[m].split(',').map((s) => s.trim())) routes.push({ method, path: cells[m + 1], scope, line: i + 1 });
    } else {
      for (const match of line.matchAll(/`(?:(GET|POST|PUT|DELETE) )?(\/[a-z_/{}:]+)`/gi)) {
        const p = match[2];
        if (p.includes('...') || !/^\/(export|import|delete)\/json\/[a-z_]/i.test(p) && !match[1]) continue;
        routes.push({ method: match[1] ?? (p.toLowerCase().startsWith('/export/') ? 'GET' : 'UNKNOWN'), path: p, line: i + 1 });
      }
    }
  }
  return routes;
}

/** Every route the registry serves, with its scope and where it is declared. */
function registryRoutes(): { key: string; scope: string; where: string }[] {
  const out: { key: string; scope: string; where: string }[] = [];
  for (const resource of allResources) {
    const ops: [string, OperationDef | undefined][] = [
      ['export', resource.ops.export],
      ['exportOne', resource.ops.exportOne],
      ['range', resource.ops.range],
      ['create', resource.ops.create],
      ['update', resource.ops.update],
      ['delete', resource.ops.delete],
      ['bulkDelete', resource.ops.bulkDelete],
      ...Object.entries(resource.ops.extra ?? {}).map(([name, op]) => [`extra.${name}`, op] as [string, OperationDef]),
    ];
    for (const [kind, op] of ops) if (op) out.push({ key: `${op.method} ${normalisePath(op.path)}`, scope: op.scope, where: `${resource.name}.${kind}` });
  }
  return out;
}

describe('registry against the spec', () => {
  it('finds the endpoint tables in the spec', () => {
    const routes = specRoutes(readSpec());
    expect(routes.length).toBeGreaterThan(60);
    expect(routes.map((r) => `${r.method} ${normalisePath(r.path)}`)).toEqual(expect.arrayContaining(['GET /export/json/newsdesks', 'GET /export/json/newsdesks/{}', 'PUT /import/json/ticket_claims', 'GET /export/json/sliders/{}:{}']));
  });

  it('normalises placeholders, case and query strings', () => {
    expect(normalisePath('/export/json/product/{ID}')).toBe('/export/json/product/{}');
    expect(normalisePath('/export/json/sliders/{from}:{to}')).toBe('/export/json/sliders/{}:{}');
    expect(normalisePath('/Export/JSON/products/{START}:{END}')).toBe('/export/json/products/{}:{}');
    expect(normalisePath('/export/json/ticket_attachment/{id}?file=<name>')).toBe('/export/json/ticket_attachment/{}');
  });

  it('serves every path and method of the spec from some registry entry', () => {
    const served = new Set(registryRoutes().map((r) => r.key));
    const missing = specRoutes(readSpec())
      .map((r) => ({ ...r, key: `${r.method} ${normalisePath(r.path)}` }))
      .filter((r) => !served.has(r.key) && !(r.key in NOT_REGISTRY_ROUTES));
    const report = [...new Map(missing.map((r) => [r.key, `${r.key} (spec line ${r.line})`])).values()];
    expect(report, `spec endpoints no registry entry serves:\n  ${report.join('\n  ')}`).toEqual([]);
  });

  it('gives every registry route the scope the spec names for it', () => {
    const specScopes = new Map<string, string>();
    for (const r of specRoutes(readSpec())) if (r.scope) specScopes.set(`${r.method} ${normalisePath(r.path)}`, r.scope);
    const wrong = registryRoutes()
      .filter((r) => specScopes.has(r.key) && specScopes.get(r.key) !== r.scope)
      .map((r) => `${r.where}: ${r.key} has ${r.scope}, the spec says ${specScopes.get(r.key)}`);
    expect(wrong).toEqual([]);
  });
});

/** Scope families of the spec's Scopes table, with the verbs each family has. */
function specScopeFamilies(text: string): Map<string, Set<string>> {
  const families = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('| ')) continue;
    const first = line.split('|')[1].trim();
    if (!/^[a-z_]+:(read|write|delete)(, [a-z_]+:(read|write|delete))*$/.test(first)) continue;
    for (const scope of first.split(', ')) {
      const [family, verb] = scope.split(':');
      if (!families.has(family)) families.set(family, new Set());
      families.get(family)?.add(verb);
    }
  }
  return families;
}

describe('registry scopes', () => {
  const families = specScopeFamilies(readSpecOrEmpty());

  for (const resource of allResources) {
    it(`${resource.name}: every operation uses a scope of one family the spec lists, with the verb of the operation`, () => {
      const scopes = registryRoutes().filter((r) => r.where.startsWith(`${resource.name}.`));
      expect(scopes.length).toBeGreaterThan(0);
      const own = new Set(scopes.map((s) => s.scope.split(':')[0]));
      expect([...own], `${resource.name} mixes scope families`).toHaveLength(1);
      const family = [...own][0];
      expect(families.has(family), `scope family ${family} is not in the spec's Scopes table`).toBe(true);
      const verbs = families.get(family) ?? new Set<string>();
      for (const s of scopes) {
        const [kind] = s.where.split('.').slice(1);
        const method = s.key.split(' ')[0];
        const verb = s.scope.split(':')[1];
        const expected = method === 'GET' ? 'read' : method === 'DELETE' ? (verbs.has('delete') ? 'delete' : 'write') : 'write';
        expect(verb, `${s.where} (${kind}, ${s.key})`).toBe(expected);
      }
    });
  }
});

function readSpecOrEmpty(): string {
  return existsSync(specFile) ? readFileSync(specFile, 'utf8') : '';
}

/** Field names of a write schema whose value is a list or a per-language object. */
function listFields(resource: ResourceDef): string[] {
  // A resource the API offers no write for (news authors) has no list semantics to keep.
  if (!resource.ops.create && !resource.ops.update) return [];
  const schema: z.ZodType = resource.schemas.write;
  if (!(schema instanceof z.ZodObject)) throw new Error(`${resource.name}: the write schema is not an object schema; cannot check its list fields`);
  const out: string[] = [];
  for (const [field, value] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    let inner: z.ZodType = value;
    while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable || inner instanceof z.ZodDefault) inner = inner.unwrap() as z.ZodType;
    if (inner instanceof z.ZodArray || (field === 'languages' && inner instanceof z.ZodRecord)) out.push(field);
  }
  return out;
}

describe('registry list fields', () => {
  for (const resource of allResources) {
    it(`${resource.name}: every list field of the write schema has write semantics`, () => {
      const missing = listFields(resource).filter((f) => !(f in resource.lists));
      expect(missing, `${resource.name} list fields without an entry in lists{}`).toEqual([]);
    });

    it(`${resource.name}: every lists{} entry names complete semantics`, () => {
      for (const [field, def] of Object.entries(resource.lists)) {
        const s = def.semantics;
        expect(['replace', 'upsert', 'append-only', 'merge-language', 'create-only', 'export-only'], `${resource.name}.${field}`).toContain(s.kind);
        if (s.kind === 'upsert') expect(s.entryKey.length, `${resource.name}.${field} upsert needs an entryKey`).toBeGreaterThan(0);
        if (s.kind === 'append-only') expect(s.identity.length, `${resource.name}.${field} append-only needs an identity`).toBeGreaterThan(0);
        expect(typeof def.specified, `${resource.name}.${field}.specified`).toBe('boolean');
      }
    });
  }
});
