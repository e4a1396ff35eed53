/**
 * Shops from `shops.d/`, templates expanded per shop, and a mistake in one shop's file: it names
 * the file and line, marks that shop broken and leaves the other shops loaded.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, shopsOf } from '../../src/config/index.js';
import { ConfigError } from '../../src/errors.js';
import { removeDir, tempDir } from '../support/tmp.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

const MAIN = `connections:
  erp: { kind: sqlite, path: erp.db }
templates:
  products:
    direction: push
    resource: products
    mapping: products.yaml
    schedule: "*/5 * * * *"
    source:
      connection: erp
      query: SELECT * FROM artikel WHERE gruppe = '\${shop.priceGroup}'
      cursor: geaendert
      key: artnr
`;

/** A config folder with `shopsync.yaml` and one file per shop in `shops.d/`. */
function layout(main: string, shops: Record<string, string>): string {
  const dir = tempDir('shopsync-shopsd-');
  dirs.push(dir);
  mkdirSync(join(dir, 'shops.d'));
  writeFileSync(join(dir, 'shopsync.yaml'), main);
  for (const [name, text] of Object.entries(shops)) writeFileSync(join(dir, 'shops.d', name), text);
  return join(dir, 'shopsync.yaml');
}

const shop = (name: string, extra = '') => `baseUrl: https://${name}.example.com/api\ntoken: \${SHOP_${name.toUpperCase()}_TOKEN}\nvars:\n  priceGroup: ${name.toUpperCase()}\n${extra}`;
const env = { SHOP_DE_TOKEN: 'tok-de-0001', SHOP_AT_TOKEN: 'tok-at-0002', SHOP_CH_TOKEN: 'tok-ch-0003' };

describe('shops from shops.d', () => {
  it('reads one shop per file, named after the file, and expands each template once per shop', async () => {
    const loaded = await loadConfig(layout(MAIN, { 'de.yaml': shop('de'), 'at.yaml': shop('at'), 'ch.yml': shop('ch') }), { env });
    expect(Object.keys(shopsOf(loaded.config)).sort()).toEqual(['at', 'ch', 'de']);
    expect(loaded.config.pipelines.map((p) => `${p.name}@${p.shop}`).sort()).toEqual(['products-at@at', 'products-ch@ch', 'products-de@de']);
    const at = loaded.config.pipelines.find((p) => p.name === 'products-at')!;
    expect((at.source as unknown as { query: string }).query).toBe("SELECT * FROM artikel WHERE gruppe = 'AT'");
    expect(at.vars).toEqual({ priceGroup: 'AT', name: 'at' });
    expect(at.template).toBe('products');
    expect(loaded.brokenShops).toEqual([]);
    expect(loaded.secrets).toEqual(expect.arrayContaining(['tok-de-0001', 'tok-at-0002', 'tok-ch-0003']));
    expect(loaded.origin?.(['shops', 'at', 'token'])).toMatchObject({ file: expect.stringMatching(/shops\.d\/at\.yaml$/), line: 2 });
  });

  it("applies a shop's own changes: rate limit, batch size, schedule offset, a template left out", async () => {
    const loaded = await loadConfig(
      layout(`${MAIN}  stock:\n    direction: push\n    resource: products\n    mapping: products.yaml\n    schedule: "*/15 * * * *"\n    source: { connection: erp, query: SELECT 1, cursor: geaendert, key: artnr }\n`, {
        'de.yaml': shop('de'),
        'at.yaml': shop('at', 'rateLimit: { mode: fixed, requests: 20 }\nscheduleOffsetSeconds: 140\ntemplates:\n  products:\n    batchSize: 50\n    options: { pageSize: 200 }\n  stock: false\n'),
      }),
      { env },
    );
    const byName = Object.fromEntries(loaded.config.pipelines.map((p) => [p.name, p]));
    expect(Object.keys(byName).sort()).toEqual(['products-at', 'products-de', 'stock-de']);
    expect(byName['products-at']).toMatchObject({ batchSize: 50, schedule: '20 2-59/5 * * * *', options: { pageSize: 200, concurrency: 16 } });
    expect(byName['products-de']).toMatchObject({ batchSize: 100, schedule: '*/5 * * * *', options: { pageSize: 500 } });
    expect(shopsOf(loaded.config).at!.rateLimit).toMatchObject({ mode: 'fixed', requests: 20 });
  });

  it("fills a shop's variables into its own changes to a template", async () => {
    const loaded = await loadConfig(layout(MAIN, { 'de.yaml': `${shop('de')}  table: artikel_de\ntemplates:\n  products:\n    source: { query: "SELECT * FROM \${shop.table}" }\n` }), { env });
    expect((loaded.config.pipelines[0]!.source as unknown as { query: string }).query).toBe('SELECT * FROM artikel_de');
  });

  it('marks a shop whose file is not valid YAML broken, naming the file and line, and loads the others', async () => {
    const loaded = await loadConfig(layout(MAIN, { 'de.yaml': shop('de'), 'at.yaml': 'baseUrl: https://at.example.com/api\ntoken: ${SHOP_AT_TOKEN}\nvars:\n  priceGroup: AT\n   oops: 1\n' }), { env });
    expect(loaded.config.pipelines.map((p) => p.name)).toEqual(['products-de']);
    expect(loaded.brokenShops).toHaveLength(1);
    const [broken] = loaded.brokenShops;
    expect(broken).toMatchObject({ name: 'at', file: expect.stringMatching(/shops\.d\/at\.yaml$/), pipelines: ['products-at'] });
    expect(broken!.line).toBeGreaterThanOrEqual(4);
    expect(broken!.message).toContain(`${broken!.file}:${broken!.line}`);
  });

  it('marks a shop with a schema error broken with the line of the key, and never shows its token', async () => {
    const loaded = await loadConfig(layout(MAIN, { 'de.yaml': shop('de'), 'at.yaml': `${shop('at')}batchSize: lots\nrateLimt: { requests: 5 }\n` }), { env });
    expect(loaded.config.pipelines.map((p) => p.name)).toEqual(['products-de']);
    const broken = loaded.brokenShops[0]!;
    expect(broken.name).toBe('at');
    expect(broken.line).toBe(5);
    expect(broken.message).toContain('at.yaml:5: batchSize');
    expect(broken.message).toMatch(/at\.yaml:6: .*"rateLimt".*did you mean "rateLimit"\?/);
    expect(broken.message).not.toContain('tok-at-0002');
  });

  it("blames the shop, not the template, for a variable the shop lacks or an override the pipeline refuses", async () => {
    const loaded = await loadConfig(
      layout(MAIN, { 'de.yaml': shop('de'), 'at.yaml': 'baseUrl: https://at.example.com/api\ntoken: x-at-token\nvars: {}\n', 'ch.yaml': `${shop('ch')}templates:\n  products:\n    batchSize: 999\n` }),
      { env },
    );
    expect(loaded.config.pipelines.map((p) => p.name)).toEqual(['products-de']);
    const byName = Object.fromEntries(loaded.brokenShops.map((b) => [b.name, b]));
    expect(byName.at!.message).toMatch(/at\.yaml:3: template products uses \$\{shop\.priceGroup\}, which shop "at" does not define/);
    expect(byName.ch!.message).toMatch(/ch\.yaml:7: templates\.products\.batchSize: .*999/);
    expect(byName.ch!.line).toBe(7);
  });

  it("leaves a written pipeline of a broken shop out, and names its shop's problem when it is asked for", async () => {
    const loaded = await loadConfig(
      layout(`${MAIN}pipelines:\n  - name: orders-at\n    shop: at\n    direction: pull\n    resource: orders\n    mapping: o.yaml\n    sink: { connection: erp, table: orders }\n`, { 'de.yaml': shop('de'), 'at.yaml': 'baseUrl: not a url\ntoken: x\n' }),
      { env },
    );
    expect(loaded.config.pipelines.map((p) => p.name)).toEqual(['products-de']);
    expect(loaded.brokenShops[0]).toMatchObject({ name: 'at', line: 1, pipelines: ['orders-at', 'products-at'] });
  });

  it('marks a shop broken whose file changes a template that does not exist, rather than ignoring the change', async () => {
    const loaded = await loadConfig(layout(MAIN, { 'de.yaml': shop('de'), 'at.yaml': `${shop('at')}templates:\n  prodcts: { batchSize: 10 }\n` }), { env });
    expect(loaded.config.pipelines.map((p) => p.name)).toEqual(['products-de']);
    expect(loaded.brokenShops[0]!.message).toMatch(/at\.yaml:6: templates\.prodcts: no template named "prodcts"; did you mean "products"\?/);
  });

  it('still refuses a mistake of the template itself, at its line in the main file', async () => {
    const err = await loadConfig(layout(MAIN.replace('resource: products', 'resource: prodcts'), { 'de.yaml': shop('de') }), { env }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/shopsync\.yaml:6: templates\.products\.resource: unknown shop resource `prodcts`/);
  });

  it('refuses a template listing a shop that does not exist', async () => {
    const err = await loadConfig(layout(MAIN.replace('    direction: push', '    shops: [de, fr]\n    direction: push'), { 'de.yaml': shop('de') }), { env }).catch((e: unknown) => e);
    expect((err as ConfigError).message).toMatch(/shopsync\.yaml:5: templates\.products\.shops\[1\]: no shop named "fr"; known: de/);
  });

  it('marks a second file defining the same shop broken', async () => {
    const loaded = await loadConfig(layout(MAIN, { 'de.yaml': shop('de'), 'zz-de.yaml': `name: de\n${shop('de')}` }), { env });
    expect(loaded.brokenShops[0]).toMatchObject({ name: 'de', file: expect.stringMatching(/zz-de\.yaml$/), line: 1 });
    expect(loaded.brokenShops[0]!.message).toMatch(/shop "de" is already defined at .*shops\.d\/de\.yaml/);
    expect(loaded.config.pipelines.map((p) => p.name)).toEqual(['products-de']);
  });

  it('reads the folder `shopsDir:` names', async () => {
    const path = layout(`shopsDir: shops.d\n${MAIN}`, { 'de.yaml': shop('de') });
    expect((await loadConfig(path, { env })).config.pipelines.map((p) => p.name)).toEqual(['products-de']);
    const missing = await loadConfig(layout(`shopsDir: elsewhere\n${MAIN}`, {}), { env }).catch((e: unknown) => e);
    expect((missing as ConfigError).message).toMatch(/elsewhere: cannot read the shops folder \(ENOENT\)/);
  });
});

describe('shop variables in SQL', () => {
  it("marks a shop broken whose variable would change a template's query when spliced into it, and loads the others", async () => {
    const loaded = await loadConfig(layout(MAIN, { 'de.yaml': shop('de'), 'at.yaml': 'baseUrl: https://at.example.com/api\ntoken: x-at-token\nvars:\n  priceGroup: "AT\' OR \'1\'=\'1"\n' }), { env });
    expect(loaded.config.pipelines.map((p) => p.name)).toEqual(['products-de']);
    const [broken] = loaded.brokenShops;
    expect(broken).toMatchObject({ name: 'at', line: 4, pipelines: ['products-at'] });
    expect(broken!.message).toMatch(/at\.yaml:4: template products: source\.query splices \$\{shop\.priceGroup\} into SQL.*bind it as a parameter instead, `:priceGroup` in the query and `params: \{ priceGroup: "\$\{shop\.priceGroup\}" \}`/);
    // The value is the shop's: it may be anything, also a secret, so the message does not quote it.
    expect(broken!.message).not.toContain("OR '1'");
  });

  it('binds a shop variable given under params:, whatever its value', async () => {
    const main = MAIN.replace("WHERE gruppe = '\${shop.priceGroup}'", 'WHERE gruppe = :priceGroup').replace('      key: artnr\n', '      key: artnr\n      params: { priceGroup: "\${shop.priceGroup}" }\n');
    const loaded = await loadConfig(layout(main, { 'at.yaml': 'baseUrl: https://at.example.com/api\ntoken: x-at-token\nvars:\n  priceGroup: "AT\' OR \'1\'=\'1"\n' }), { env });
    expect(loaded.brokenShops).toEqual([]);
    const source = loaded.config.pipelines[0]!.source as unknown as { query: string; params: Record<string, unknown> };
    expect(source.query).toBe('SELECT * FROM artikel WHERE gruppe = :priceGroup');
    expect(source.params).toEqual({ priceGroup: "AT' OR '1'='1" });
  });
});

describe('shop variables outside templates', () => {
  it('are refused in a pipeline written out, saying where they are read', async () => {
    const err = await loadConfig(layout(`${MAIN}pipelines:\n  - name: p\n    shop: de\n    direction: push\n    resource: products\n    mapping: products.yaml\n    source: { connection: erp, query: "SELECT \${shop.priceGroup}", cursor: c, key: k }\n`, { 'de.yaml': shop('de') }), { env }).catch((e: unknown) => e);
    expect((err as ConfigError).message).toMatch(/shopsync\.yaml:20: pipelines\[0\]\.source\.query: cannot resolve \$\{shop\.priceGroup\}: a shop variable is filled in only under templates:/);
  });
});

describe('merge keys and x- blocks', () => {
  it('accepts YAML merge keys and ignores top-level x- blocks', async () => {
    const path = layout(
      `x-source: &erp
  connection: erp
  cursor: geaendert
  key: artnr
x-limits: &polite { mode: fixed, requests: 5 }
connections:
  erp: { kind: sqlite, path: erp.db }
shops:
  de: { baseUrl: https://de.example.com/api, token: "\${SHOP_DE_TOKEN}", rateLimit: { <<: *polite, requests: 7 } }
pipelines:
  - name: products
    shop: de
    direction: push
    resource: products
    mapping: products.yaml
    source:
      <<: *erp
      query: SELECT 1
`,
      {},
    );
    const { config } = await loadConfig(path, { env });
    expect(config.pipelines[0]!.source).toEqual({ connection: 'erp', cursor: 'geaendert', key: 'artnr', query: 'SELECT 1' });
    expect(shopsOf(config).de!.rateLimit).toMatchObject({ mode: 'fixed', requests: 7 });
    expect(Object.keys(config)).not.toContain('x-source');
  });
});
