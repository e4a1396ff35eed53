import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { compileGetter, compileSetter } from '../../src/mapping/paths.js';

// The same script in this process (getters and setters compiled from source text) and in a child
// where code generation from strings is switched off (the closures): both must give the same payloads.
const SCRIPT = `
import path from 'node:path';
import { demoSources, demoTables } from './src/demo/index.js';
import { loadMapping } from './src/mapping/index.js';
const tables = new Map(demoTables().map((t) => [t.name, t.rows]));
const source = demoSources().find((s) => s.mapping === 'products');
const mapping = await loadMapping(path.resolve('mappings', 'products.yaml'));
const out = tables.get('artikel').map((row) => {
  const record = { ...row };
  for (const c of source.children) record[c.field] = tables.get(/FROM (\\w+)/.exec(c.query)[1]).filter((r) => r[c.parentKey] === row[c.parentKey]);
  const r = mapping.applySync(record, { lookupReference: (_r, key) => 100 + key.length });
  return r.ok ? r.payload : r.errors.map((e) => e.message);
});
process.stdout.write(JSON.stringify(out));
`;

const run = (flags: string[]) => execFileSync(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', SCRIPT], { encoding: 'utf8' });

describe('compiled property access', () => {
  it('reads nested paths and stops at anything that is not an object', () => {
    const get = compileGetter('a.b.c');
    expect(get({ item: { a: { b: { c: 7 } } }, root: {} })).toBe(7);
    expect(get({ item: { a: { b: 'text' } }, root: {} })).toBeUndefined();
    expect(get({ item: { a: null }, root: {} })).toBeUndefined();
    expect(compileGetter('$root.x')({ item: {}, root: { x: 1 } })).toBe(1);
    expect(compileGetter('$rows.0.p')({ item: {}, root: {}, rows: [{ p: 'first' }] })).toBe('first');
  });

  it('writes nested paths, replacing what is not a plain object on the way', () => {
    const target: Record<string, unknown> = { a: [1], k: { keep: true } };
    compileSetter('a.b')(target, 1);
    compileSetter('k.added')(target, 2);
    expect(target).toEqual({ a: { b: 1 }, k: { keep: true, added: 2 } });
  });

  it('takes keys with quotes, backslashes and line breaks as they are', () => {
    const key = 'say "hi"\\\n\u2028';
    const target: Record<string, unknown> = {};
    compileSetter(`x.${key}`)(target, 'v');
    expect(target).toEqual({ x: { [key]: 'v' } });
    expect(compileGetter(`x.${key}`)({ item: target, root: target })).toBe('v');
  });

  it('maps the shipped products the same when code generation from strings is switched off', () => {
    const generated = run([]);
    const closures = run(['--disallow-code-generation-from-strings']);
    expect(JSON.parse(generated)).toHaveLength(68);
    expect(closures).toBe(generated);
  });
});
