/**
 * YAML syntax errors in shopsync.yaml and in mapping files (issue 31 item 2): the line that is
 * wrong (not the line where the parser gave up), its text with a caret under the column, and a
 * plain hint for the common mistakes: indentation, tabs, a missing space after `:`, an unquoted
 * `: ` or ` #` in a value, `${VAR}` inside `{ }` or `[ ]`, an unclosed quote or bracket.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';
import { ConfigError, MappingError } from '../../src/errors.js';
import { compileMapping } from '../../src/mapping/index.js';

const FILE = join('/srv/shopsync', 'shopsync.yaml');

/** A config of 30 lines whose line `at` (1-based, > 8) is replaced by `broken` (one or more lines). */
function config(at: number, broken: string): string {
  const lines = [
    '# shopsync.yaml of a shop',
    'shop:',
    '  baseUrl: https://shop.example.com/api',
    '  token: ${SHOP_TOKEN}',
    'connections:',
    '  erp:',
    '    kind: mysql',
    '    host: 127.0.0.1',
    ...Array.from({ length: 22 }, (_, i) => `    # note ${i + 9}`),
  ];
  lines.splice(at - 1, 1, ...broken.split('\n'));
  return `${lines.join('\n')}\n`;
}

function configError(text: string, env: NodeJS.ProcessEnv = { SHOP_TOKEN: 'tok-123456' }): ConfigError {
  try {
    parseConfigText(text, FILE, { env });
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

function mappingError(text: string): MappingError {
  try {
    compileMapping(text, 'products.yaml');
  } catch (err) {
    const first = (err as { problems?: MappingError[] }).problems?.[0] ?? err;
    if (first instanceof MappingError) return first;
    throw err;
  }
  throw new Error('expected a MappingError');
}

describe('a YAML syntax error in shopsync.yaml', () => {
  it('names the over-indented line, not the line above it, shows it with a caret and says how to indent it', () => {
    const err = configError(config(24, '    database: erp\n      user: shop'));
    expect(err.line).toBe(25);
    expect(err.message).toBe(
      [
        `${FILE}:25:7: YAML syntax: \`user:\` is indented deeper than \`database:\` on line 24, so YAML reads it as part of that value (Nested mappings are not allowed in compact mappings)`,
        '    24 |     database: erp',
        '    25 |       user: shop',
        '       |       ^',
        '  Fix: indent `user:` to column 5, like `database:` on line 24. YAML nests by indentation: keys of one mapping start in the same column, indented with spaces, never tabs.',
      ].join('\n'),
    );
  });

  it('names a key that is indented less than the keys beside it', () => {
    const err = configError(config(9, '    database: erp\n   user: shop'));
    expect(err.message).toMatch(new RegExp(`^${FILE}:10:4: YAML syntax: \`user:\` starts at column 4, \`database:\` on line 9 at column 5`));
    expect(err.message).toContain('    10 |    user: shop\n       |    ^\n');
    expect(err.message).toContain('Fix: indent `user:` to column 5, like `database:` on line 9');
  });

  it('says that a tab indents a line and that YAML wants spaces', () => {
    const err = configError(config(9, '\tdatabase: erp'));
    expect(err.line).toBe(9);
    expect(err.message).toMatch(/^\S+shopsync\.yaml:9:1: YAML syntax: /);
    expect(err.message).toContain('Fix: replace the tab at the start of line 9 with spaces');
  });

  it('says a key needs a space after its colon', () => {
    const err = configError(config(9, '    database:erp\n    user: shop'));
    expect(err.line).toBe(9);
    expect(err.message).toContain('Fix: put a space after the colon: `database: erp`');
  });

  it('says a value holding ": " must be quoted', () => {
    const err = configError(config(9, '    database: erp: main'));
    expect(err.line).toBe(9);
    expect(err.message).toContain('Fix: quote the value, since ": " inside it starts a mapping: `database: "erp: main"`');
  });

  it('says ${VAR} inside { } or [ ] must be quoted', () => {
    const err = configError(config(9, '    tls: { ca: ${CA_FILE} }'));
    expect(err.line).toBe(9);
    expect(err.message).toContain('Fix: quote `${CA_FILE}` inside { } or [ ]');
  });

  it('names the line of a { that never closes (a " #" inside it starts a comment) instead of the line after', () => {
    const err = configError(config(9, '    params: { warehouse: MAIN #the main one'));
    expect(err.line).toBe(9);
    expect(err.message).toContain('Fix: close the { opened on line 9');
    expect(err.message).toContain('" #" starts a comment');
  });

  it('names the line where a quote opens that never closes', () => {
    const err = configError(config(9, "    database: 'erp"));
    expect(err.line).toBe(9);
    expect(err.message).toContain("close the ' opened on line 9");
  });

  it('turns a value starting with * (an alias) into a config error with its line', () => {
    const err = configError(config(9, '    password: *geheim1'));
    expect(err.line).toBe(9);
    expect(err.message).toMatch(/:9:15: YAML syntax: /);
    expect(err.message).toContain('Fix: quote a value that starts with *');
  });

  it('never shows a password written into the broken line', () => {
    const err = configError(config(9, '    password: s3cr3t-pw: x'));
    expect(err.line).toBe(9);
    expect(err.message).not.toContain('s3cr3t-pw');
  });
});

describe('a YAML syntax error in a mapping file', () => {
  const head = 'name: test-products\ndirection: erp-to-shop\ntarget: { resource: products, operation: upsert }\nkey: sku\nshop_key: products_model\nfields:\n';

  it('names the line of a { that never closes, not the next line', () => {
    const err = mappingError(`${head}  products_model: { from: sku, trim: true #the key\n  products_price: { from: price, type: decimal, locale: point }\n`);
    expect(err.code).toBe('MAPPING_YAML');
    expect({ line: err.line, column: err.column }).toEqual({ line: 7, column: 19 });
    expect(err.message).toMatch(/^products\.yaml:7:19: invalid YAML: /);
    expect(err.message).toContain('     7 |   products_model: { from: sku, trim: true #the key');
    expect(err.message).toContain('Fix: close the { opened on line 7');
  });

  it('shows no line of a file that does not read as a mapping (mapping: may name any file)', () => {
    const err = mappingError('root: x:0:0: root\nsecret: s3cr3t: value\n');
    expect(err.line).toBe(1);
    expect(err.message).not.toMatch(/root|s3cr3t/);
    expect(err.message).toContain('Fix: ');
  });

  it('names the over-indented line with the same hint as the config', () => {
    const err = mappingError(`${head}  products_model: sku\n    products_price: price\n`);
    expect(err.line).toBe(8);
    expect(err.message).toContain('Fix: indent `products_price:` to column 3, like `products_model:` on line 7.');
  });
});
