/**
 * What templates and shops.d save: fifty shops with four pipelines each, written once by copy and
 * paste and once as templates with one file per shop. Both load into the same 200 pipelines; the
 * line counts are the figures docs/shops.md gives ("How much shorter").
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, shopsOf, type LoadedConfig } from '../../src/config/index.js';
import { removeDir, tempDir } from '../support/tmp.js';

const SHOPS = Array.from({ length: 50 }, (_, i) => `shop${String(i + 1).padStart(2, '0')}`);
const dir = tempDir('shopsync-scale-');
afterAll(() => removeDir(dir));

const CONNECTIONS = ['connections:', '  erp:', '    kind: postgres', '    host: ${ERP_DB_HOST}', '    database: erp', '    user: shopsync', '    password: ${ERP_DB_PASSWORD}'];

/** The four pipelines of one shop as written out (`${shop.x}` where a template would hold a variable). */
function pipelines(indent: string, name: (t: string) => string[], v: (key: string) => string): string[] {
  const push = (t: string, resource: string, mapping: string, schedule: string, query: string) => [
    ...name(t),
    `${indent}direction: push`,
    `${indent}resource: ${resource}`,
    `${indent}mapping: ${mapping}`,
    `${indent}schedule: "${schedule}"`,
    `${indent}source:`,
    `${indent}  connection: erp`,
    `${indent}  query: ${query}`,
    `${indent}  cursor: geaendert`,
    `${indent}  key: artnr`,
  ];
  return [
    ...push('products', 'products', 'products.yaml', '*/5 * * * *', `SELECT a.*, p.preis FROM artikel a JOIN preise p ON p.artnr = a.artnr AND p.gruppe = '${v('priceGroup')}'`),
    ...push('stock', 'products', 'stock.yaml', '*/2 * * * *', `SELECT artnr, bestand, geaendert FROM bestand WHERE lager = '${v('warehouse')}'`),
    ...push('categories', 'categories', 'categories.yaml', '0 * * * *', 'SELECT * FROM warengruppen'),
    ...name('orders'),
    `${indent}direction: pull`,
    `${indent}resource: orders`,
    `${indent}mapping: orders-to-erp.yaml`,
    `${indent}schedule: "*/5 * * * *"`,
    `${indent}sink:`,
    `${indent}  connection: erp`,
    `${indent}  table: auftraege`,
    `${indent}  key: bestellnr`,
  ];
}

/** Fifty shops by copy and paste: every shop's block and its four pipelines in one file. */
function copyPaste(): string {
  const lines = [...CONNECTIONS, 'shops:'];
  SHOPS.forEach((s, i) => {
    const env = s.toUpperCase();
    lines.push(`  ${s}:`, `    baseUrl: \${${env}_URL}`, `    token: \${${env}_TOKEN}`, ...(i % 5 === 0 ? ['    rateLimit: { mode: fixed, requests: 10 }'] : []));
  });
  lines.push('pipelines:');
  SHOPS.forEach((s, i) => {
    const vars: Record<string, string> = { priceGroup: `PG${i + 1}`, warehouse: `L${(i % 3) + 1}` };
    lines.push(...pipelines('    ', (t) => [`  - name: ${t}-${s}`, `    shop: ${s}`], (k) => vars[k]!));
  });
  return `${lines.join('\n')}\n`;
}

/** The same with templates and one file per shop: the main file, and the files of shops.d/. */
function layout(): { main: string; shops: Record<string, string> } {
  const main = [...CONNECTIONS, 'templates:', ...pipelines('    ', (t) => [`  ${t}:`], (k) => `\${shop.${k}}`)];
  const shops = Object.fromEntries(
    SHOPS.map((s, i) => {
      const env = s.toUpperCase();
      // The address is no secret: a shop file names it, and only the token comes from the environment.
      const lines = [`baseUrl: https://${s}.example.com/api`, `token: \${${env}_TOKEN}`, ...(i % 5 === 0 ? ['rateLimit: { mode: fixed, requests: 10 }'] : []), 'vars:', `  priceGroup: PG${i + 1}`, `  warehouse: L${(i % 3) + 1}`];
      return [`${s}.yaml`, `${lines.join('\n')}\n`];
    }),
  );
  return { main: `${main.join('\n')}\n`, shops };
}

/** Lines a person writes and reads: not blank, not a comment. */
const countLines = (text: string): number => text.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#')).length;

const env = new Proxy({} as NodeJS.ProcessEnv, {
  get: (_, k) => (typeof k !== 'string' ? undefined : k.endsWith('_URL') ? `https://${k.slice(0, -4).toLowerCase()}.example.com/api` : `value-of-${k.toLowerCase()}`),
});

/** The environment variables a text reads (`${NAME}`, not `${shop.…}`). */
const variables = (...texts: string[]): number => new Set(texts.flatMap((t) => [...t.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g)].map((m) => m[1]))).size;

/** A pipeline as it runs: without the loader's bookkeeping of where it came from. */
const asRun = (l: LoadedConfig) => l.config.pipelines.map(({ template: _t, vars: _v, ...p }) => p).sort((a, b) => a.name.localeCompare(b.name));

describe('fifty shops with four pipelines', () => {
  it('load into the same 200 pipelines from 2,319 copied lines, or from 47 lines of templates and 50 shop files of 5.2 lines', async () => {
    const copied = copyPaste();
    mkdirSync(join(dir, 'copy'));
    writeFileSync(join(dir, 'copy', 'shopsync.yaml'), copied);
    const { main, shops } = layout();
    mkdirSync(join(dir, 'templated', 'shops.d'), { recursive: true });
    writeFileSync(join(dir, 'templated', 'shopsync.yaml'), main);
    for (const [file, text] of Object.entries(shops)) writeFileSync(join(dir, 'templated', 'shops.d', file), text);

    const [before, after] = [await loadConfig(join(dir, 'copy', 'shopsync.yaml'), { env }), await loadConfig(join(dir, 'templated', 'shopsync.yaml'), { env })];
    expect(after.brokenShops).toEqual([]);
    expect(after.config.pipelines).toHaveLength(200);
    expect(asRun(after)).toEqual(asRun(before));
    // The same shops, but for the variables the templates read.
    const withoutVars = (l: LoadedConfig) => Object.fromEntries(Object.entries(shopsOf(l.config)).map(([n, { vars: _v, ...s }]) => [n, s]));
    expect(withoutVars(after)).toEqual(withoutVars(before));

    const shopLines = Object.values(shops).reduce((n, t) => n + countLines(t), 0);
    // The figures of docs/shops.md.
    expect({ copied: countLines(copied), main: countLines(main), shopFiles: shopLines, after: countLines(main) + shopLines }).toEqual({ copied: 2319, main: 47, shopFiles: 260, after: 307 });
    expect({ before: variables(copied), after: variables(main, ...Object.values(shops)) }).toEqual({ before: 102, after: 52 });
  });
});
