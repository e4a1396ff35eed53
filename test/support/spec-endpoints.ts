/**
 * The spec's endpoint facts, extracted from `shop-api.md` into `test/fixtures/spec-endpoints.json`
 * so the registry test needs nothing outside the repository. Only facts are kept: method, path and
 * scope of every route (tables of the Endpoints section and article routes in prose), the spec
 * line they are on, and the scope families of the Authentication section's Scopes table.
 *
 * Regenerate after the spec changed (it reads `../shared/shop-api.md`, `$SHOP_API_SPEC` or the path given):
 *   npm run spec:extract [-- <path to shop-api.md>]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Where the spec lies in the team's checkout: beside the repository (`../shared/shop-api.md`), or
 * where `SHOP_API_SPEC` points. A user's clone has none, and nothing but the currency check needs it.
 */
export function specLocation(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.SHOP_API_SPEC ?? path.join(repoRoot, '..', 'shared', 'shop-api.md'));
}

/** The extract kept in the repository. */
export const EXTRACT_FILE = path.join(repoRoot, 'test', 'fixtures', 'spec-endpoints.json');

const specRoute = z.strictObject({
  method: z.enum(['GET', 'POST', 'PUT', 'DELETE', 'UNKNOWN']),
  path: z.string().startsWith('/'),
  scope: z.string().optional(),
  line: z.number().int().positive(),
});
export type SpecRoute = z.infer<typeof specRoute>;

const specExtract = z.strictObject({
  source: z.string(),
  regenerate: z.string(),
  routes: z.array(specRoute).min(1),
  scopeFamilies: z.record(z.string(), z.array(z.enum(['read', 'write', 'delete'])).min(1)),
});
export type SpecExtract = z.infer<typeof specExtract>;

/** Every route of the spec's Endpoints section: table rows `| METHOD | /path | scope |` and article routes in prose. */
export function specRoutes(text: string): SpecRoute[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^## Endpoints\b/.test(l));
  if (start < 0) throw new Error('the spec has no "## Endpoints" section');
  const end = lines.findIndex((l, i) => i > start && /^## /.test(l));
  const routes: SpecRoute[] = [];
  const methodCell = /^(GET|POST|PUT|DELETE)(\s*,\s*(GET|POST|PUT|DELETE))*$/;
  for (let i = start; i < (end < 0 ? lines.length : end); i++) {
    const line = lines[i];
    if (line.startsWith('|')) {
      const cells = line.split('|').map((c) => c.trim());
      const m = cells.findIndex((c) => methodCell.test(c));
      if (m < 0 || !cells[m + 1]?.startsWith('/')) continue;
      const scope = /^[a-z_]+:(read|write|delete)/.exec(cells[m + 2] ?? '')?.[0];
      for (const method of cells[m].split(',').map((s) => s.trim())) routes.push(specRoute.parse({ method, path: cells[m + 1], ...(scope ? { scope } : {}), line: i + 1 }));
    } else {
      for (const match of line.matchAll(/`(?:(GET|POST|PUT|DELETE) )?(\/[a-z_/{}:]+)`/gi)) {
        const p = match[2];
        if (p.includes('...') || (!/^\/(export|import|delete)\/json\/[a-z_]/i.test(p) && !match[1])) continue;
        routes.push(specRoute.parse({ method: match[1] ?? (p.toLowerCase().startsWith('/export/') ? 'GET' : 'UNKNOWN'), path: p, line: i + 1 }));
      }
    }
  }
  return routes;
}

/** Scope families of the spec's Scopes table, with the verbs each family has. */
export function specScopeFamilies(text: string): Record<string, ('read' | 'write' | 'delete')[]> {
  const families: Record<string, ('read' | 'write' | 'delete')[]> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('| ')) continue;
    const first = line.split('|')[1].trim();
    if (!/^[a-z_]+:(read|write|delete)(, [a-z_]+:(read|write|delete))*$/.test(first)) continue;
    for (const scope of first.split(', ')) {
      const [family, verb] = scope.split(':') as [string, 'read' | 'write' | 'delete'];
      const verbs = (families[family] ??= []);
      if (!verbs.includes(verb)) verbs.push(verb);
    }
  }
  return families;
}

/** The extract of a spec text, as it is stored. */
export function extractSpec(text: string): SpecExtract {
  return specExtract.parse({ source: 'shop-api.md', regenerate: 'npm run spec:extract', routes: specRoutes(text), scopeFamilies: specScopeFamilies(text) });
}

/** The stored extract as JSON text (stable formatting, so a diff shows what the spec changed). */
export function extractJson(extract: SpecExtract): string {
  return `${JSON.stringify(extract, null, 2)}\n`;
}

/** Read and validate the extract kept in the repository. */
export function readExtract(file: string = EXTRACT_FILE): SpecExtract {
  return specExtract.parse(JSON.parse(readFileSync(file, 'utf8')));
}

function main(argv: readonly string[]): void {
  const source = path.resolve(argv[0] ?? specLocation());
  if (!existsSync(source)) {
    process.stderr.write(`spec-endpoints: no spec at ${source}; pass the path of shop-api.md\n`);
    process.exitCode = 2;
    return;
  }
  const extract = extractSpec(readFileSync(source, 'utf8'));
  writeFileSync(EXTRACT_FILE, extractJson(extract));
  process.stdout.write(`spec-endpoints: ${extract.routes.length} routes, ${Object.keys(extract.scopeFamilies).length} scope families -> ${path.relative(process.cwd(), EXTRACT_FILE)}\n`);
}

if (process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url) main(process.argv.slice(2));
