/**
 * docs/sandbox.md's API reference against what the sandbox serves, so the page cannot drift from
 * the code: its route table is the registry's route table (`buildRoutes` of every resource, each
 * with a handler), its filter table the registry's export filters and page sizes, its control
 * table the control endpoints' switch, its fault row the fault settings' schema, and its error
 * table every request-level code the sandbox answers. The answers themselves are checked by
 * replaying the page's curl examples (sandbox-examples.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allResources, getResource, type ResourceDef } from '../../src/shop/registry/index.js';
import { faultSettingsSchema } from '../../src/sandbox/faults.js';
import type { ResourceHandler } from '../../src/sandbox/handler.js';
import { handlers } from '../../src/sandbox/handlers/index.js';
import { API_VERSION } from '../../src/sandbox/kit.js';
import { buildRoutes } from '../../src/sandbox/routes.js';
import { ROOT } from './support/blocks.js';

const doc = readFileSync(join(ROOT, 'docs', 'sandbox.md'), 'utf8');

/** The text of the section under a heading, up to the next heading of the same or a higher level. */
function section(heading: string): string {
  const level = /^#+/.exec(heading)?.[0].length ?? 0;
  const lines = doc.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`docs/sandbox.md has no heading "${heading}"`);
  const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l) && (/^#+/.exec(l)?.[0].length ?? 0) <= level);
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The body rows of the markdown tables of a text, as cells (header and separator rows left out). */
function tableRows(text: string): string[][] {
  const rows = text.split('\n').filter((l) => l.startsWith('|'));
  const cells = rows.map((l) => l.slice(1, l.endsWith('|') ? -1 : undefined).split(/(?<!\\)\|/).map((c) => c.trim()));
  return cells.filter((c, i) => !/^-+$/.test(c[0] ?? '') && !/^-+$/.test(cells[i + 1]?.[0] ?? ''));
}

const sorted = (xs: Iterable<string>) => [...xs].sort();

describe('the route table of docs/sandbox.md', () => {
  const rows = tableRows(section('### Routes')).map(([resource, operation, route, scope]) => {
    const m = /^`(GET|POST|PUT|DELETE) ([^`?\s]+)(?:\?(\w+)=\{id\})?`$/.exec(route ?? '');
    if (!m) throw new Error(`docs/sandbox.md route table: "${route}" is no \`METHOD /path\``);
    return { resource: resource as string, operation: operation as string, method: m[1] as string, path: m[2] as string, idParam: m[3], scope: (scope ?? '').replace(/`/g, '') };
  });
  const line = (r: { resource: string; operation: string; method: string; path: string; scope: string }) => `${r.resource} ${r.operation} ${r.method} ${r.path} ${r.scope}`;

  it('lists every route the sandbox serves, with its method, path and scope, and nothing else', () => {
    const served = buildRoutes(allResources).map((r) => line({ resource: r.resource.name, operation: r.operation, method: r.op.method, path: r.op.path, scope: r.op.scope }));
    expect(sorted(rows.map(line))).toEqual(sorted(served));
    expect(new Set(rows.map(line)).size).toBe(rows.length);
  });

  it('lists only routes a handler answers (none that would say 501)', () => {
    const missing = rows.filter((r) => {
      const handler: ResourceHandler | undefined = (handlers as Readonly<Record<string, ResourceHandler | undefined>>)[r.resource];
      const extra = getResource(r.resource).ops.extra ?? {};
      return r.operation in extra ? !handler?.extra?.[r.operation] : !handler?.[r.operation as 'export'];
    });
    expect(missing.map(line)).toEqual([]);
  });

  it('names the query parameter of every delete that takes the id from the query', () => {
    const deletes = rows.filter((r) => r.operation === 'delete');
    for (const r of deletes) {
      const def = getResource(r.resource).ops.delete;
      expect(r.idParam, `${r.resource} delete`).toBe(def?.idIn === 'query' ? def.param : undefined);
    }
  });
});

describe('the filter table of docs/sandbox.md', () => {
  const rows = tableRows(section('### Filters'));

  it('lists every resource with a list export, its page size and each of its filters with its type', () => {
    const exported = allResources.filter((r): r is ResourceDef & { ops: { export: NonNullable<ResourceDef['ops']['export']> } } => r.ops.export !== undefined);
    expect(rows.map((r) => r[0])).toEqual(exported.map((r) => r.name));
    for (const [name, size, filters] of rows) {
      const def = getResource(name as string).ops.export!;
      expect(size, `${name} page size`).toBe(`${def.paging.defaultLimit} (max ${def.paging.maxLimit})`);
      const documented = filters === 'none' ? [] : [...(filters as string).matchAll(/`(\w+)` (\w+)/g)].map((m) => `${m[1]} ${m[2]}`);
      expect(documented, `${name} filters`).toEqual(Object.entries(def.filters).map(([param, f]) => `${param} ${f.type}`));
    }
  });
});

describe('the control endpoints of docs/sandbox.md', () => {
  const control = readFileSync(join(ROOT, 'src', 'sandbox', 'control.ts'), 'utf8');
  const served = [...control.matchAll(/case '((?:GET|PUT|POST|DELETE) \/sandbox\/[\w-]+)':/g)].map((m) => m[1] as string);
  const rows = tableRows(section('### Control endpoints'));

  it('are every endpoint the control switch answers, and only those', () => {
    expect(served.length).toBeGreaterThan(10);
    const documented = rows.flatMap(([endpoint]) => {
      const m = /^`([A-Z/]+) (\/sandbox\/[\w-]+)`$/.exec(endpoint ?? '');
      if (!m) throw new Error(`docs/sandbox.md control table: "${endpoint}" is no \`METHOD[/METHOD] /sandbox/…\``);
      return (m[1] as string).split('/').map((method) => `${method} ${m[2]}`);
    });
    expect(sorted(documented)).toEqual(sorted(served));
  });

  it('name every fault setting, and no other', () => {
    const faults = rows.find(([endpoint]) => endpoint?.endsWith('/sandbox/faults`'));
    const named = [...(faults?.[1] ?? '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1] as string);
    expect(sorted(named)).toEqual(sorted(Object.keys(faultSettingsSchema.shape)));
  });
});

/** Every `.ts` file under a folder. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** The text of the `n`-th (0-based) argument of the call whose `(` is at `open`. */
function argument(src: string, open: number, n: number): string {
  let depth = 0;
  let quote: string | undefined;
  let index = 0;
  let out = '';
  for (let i = open + 1; i < src.length; i++) {
    const c = src[i] as string;
    if (quote) {
      if (c === quote && src[i - 1] !== '\\') quote = undefined;
    } else if (c === "'" || c === '`' || c === '"') quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) break;
      depth--;
    } else if (c === ',' && depth === 0) {
      if (index === n) break;
      index++;
      continue;
    }
    if (index === n) out += c;
  }
  return out;
}

describe('the error table of docs/sandbox.md', () => {
  const files = sources(join(ROOT, 'src', 'sandbox')).map((f) => readFileSync(f, 'utf8'));
  const documented = tableRows(section('### Errors')).map(([, code]) => (code ?? '').replace(/`/g, ''));
  /** The code argument of each way the sandbox answers an error: `fail(status, code…)`, `new SandboxHttpError(status, code…)`, `errorBody(code…)`, `orderError(code…)`, `new RecordError(code…)`. */
  const calls: readonly [RegExp, number][] = [[/\bfail\(/g, 1], [/\bSandboxHttpError\(/g, 1], [/\berrorBody\(/g, 0], [/\borderError\(/g, 0], [/\bRecordError\(/g, 0]];
  const answered = new Set(
    files.flatMap((src) => calls.flatMap(([call, n]) => [...src.matchAll(call)].flatMap((m) => [...argument(src, (m.index ?? 0) + m[0].length - 1, n).matchAll(/'([^']+)'/g)].map((q) => q[1] as string)))),
  );

  it('holds every code the sandbox answers a request or a record with', () => {
    expect(answered.size).toBeGreaterThan(10);
    expect(sorted(answered).filter((c) => !documented.includes(c))).toEqual([]);
  });

  it('holds only codes the sandbox answers, and so do the warnings it names', () => {
    expect(documented.filter((c) => !answered.has(c))).toEqual([]);
    const warnings = [...section('### Errors').split('Warnings do not stop')[1]!.matchAll(/`([A-Z][A-Z_]+)`/g)].map((m) => m[1] as string);
    expect(warnings.length).toBeGreaterThan(10);
    expect(warnings.filter((w) => !files.some((src) => src.includes(`'${w}'`)))).toEqual([]);
  });
});

describe('docs/sandbox.md', () => {
  it('stands alone: no pointer to a spec file outside the repository, and the api_version the sandbox answers', () => {
    expect(doc).not.toMatch(/shop-api\.md/);
    expect(doc).toContain(`\`api_version\` (\`${API_VERSION}\`)`);
  });
});
