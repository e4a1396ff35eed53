import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfigText, shopClientOptions, shopsOf } from '../../src/config/index.js';
import { ConfigError } from '../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'shopsync-config-'));

function parse(text: string, env: NodeJS.ProcessEnv = {}) {
  return parseConfigText(text, join(dir, 'shopsync.yaml'), { env });
}

function failure(text: string, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    parse(text, env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('fills defaults around a minimal shop block', () => {
    const { config, statePath } = parse('shop:\n  baseUrl: https://shop.example.com/api\n  token: ${SHOP_TOKEN}\n', { SHOP_TOKEN: 'tok-123456' });
    expect(config.shop!.token).toBe('tok-123456');
    expect(config.dashboard).toMatchObject({ host: '127.0.0.1', port: 8080, enabled: true });
    // Adaptive by default: no rate configured, the client's hard caps apply.
    expect(config.shop!.rateLimit).toEqual({ mode: 'adaptive', intervalMs: 1000 });
    expect(shopClientOptions(config.shop!).rateLimit).toEqual({ mode: 'adaptive', concurrency: undefined, intervalCap: undefined, intervalMs: 1000 });
    expect(statePath).toBe(join(dir, 'state/shopsync.db'));
    expect(shopClientOptions(config.shop!).auth).toEqual({ kind: 'token', token: 'tok-123456' });
  });

  it('turns an interpolated plain scalar into a number but keeps a quoted one a string', () => {
    const { config } = parse('shop:\n  baseUrl: https://s.example/api\n  token: "${T}"\n  batchSize: ${BATCH}\ndashboard:\n  port: ${PORT}\n', { T: '12345678', BATCH: '25', PORT: '9100' });
    expect(config.shop!.token).toBe('12345678');
    expect(config.shop!.batchSize).toBe(25);
    expect(config.dashboard.port).toBe(9100);
  });

  it('reads secrets from ${file:…} and from NAME_FILE and reports them as secrets', () => {
    writeFileSync(join(dir, 'shop_token'), 'from-file-token\n');
    writeFileSync(join(dir, 'dash_token'), 'dashboard-secret-0123456789abcdefghijkl');
    const loaded = parse(
      'shop:\n  baseUrl: https://s.example/api\n  token: ${file:shop_token}\ndashboard:\n  token: ${DASH}\n',
      { DASH_FILE: join(dir, 'dash_token') },
    );
    expect(loaded.config.shop!.token).toBe('from-file-token');
    expect(loaded.config.dashboard.token).toBe('dashboard-secret-0123456789abcdefghijkl');
    expect(loaded.secrets).toEqual(expect.arrayContaining(['from-file-token', 'dashboard-secret-0123456789abcdefghijkl']));
  });

  it('uses ${NAME:-default} when the variable is unset and keeps $${ literal', () => {
    const { config } = parse('shop:\n  baseUrl: ${URL:-https://d.example/api}\n  token: abc$${x}def\n');
    expect(config.shop!.baseUrl).toBe('https://d.example/api');
    expect(config.shop!.token).toBe('abc${x}def');
  });

  it('names the file, line and variable when an environment variable is missing', () => {
    const err = failure('shop:\n  baseUrl: https://s.example/api\n  token: ${SHOP_TOKEN}\n');
    expect(err.line).toBe(3);
    expect(err.key).toBe('shop.token');
    expect(err.message).toContain('shopsync.yaml:3: shop.token');
    expect(err.message).toContain('SHOP_TOKEN_FILE');
  });

  it('names file, line and key of a value that fails validation', () => {
    const err = failure('shop:\n  baseUrl: https://s.example/api\n  token: t0000000\n  concurrency: lots\n');
    expect(err.line).toBe(4);
    expect(err.key).toBe('shop.concurrency');
    expect(err.message).toMatch(/shopsync\.yaml:4: shop\.concurrency: .*got "lots"/);
  });

  it('rejects unknown keys with the line they are on', () => {
    const err = failure('shop:\n  baseUrl: https://s.example/api\n  token: t0000000\n\ndashbord:\n  port: 1\n');
    expect(err.message).toContain('dashbord');
    expect(err.message).toContain('did you mean "dashboard"?');
    expect(err.line).toBe(5);
  });

  it('suggests the key a typo meant, inside blocks and pipelines too, and nothing for a key unlike any', () => {
    const shop = 'shop:\n  baseUrl: https://s.example/api\n  token: t0000000\n';
    expect(failure(`${shop}  rateLimit:\n    request: 5\n`).message).toContain('did you mean "requests"?');
    const pipeline = `connections:\n  erp:\n    kind: sqlite\n    path: erp.db\npipelines:\n  - name: p\n    direction: push\n    resource: products\n    mapping: m.yaml\n    source: { connection: erp, query: SELECT 1, cursor: c, key: k }\n    timezon: Europe/Berlin\n`;
    expect(failure(`${shop}${pipeline}`).message).toContain('did you mean "timezone"?');
    expect(failure(`${shop}frobnicate: 1\n`).message).not.toContain('did you mean');
  });

  it('points a missing required key at its parent block', () => {
    const err = failure('state:\n  path: x.db\nshop:\n  token: abcdefgh\n');
    expect(err.key).toBe('shop.baseUrl');
    expect(err.line).toBe(4);
  });

  it('refuses to bind the dashboard beyond loopback without a token', () => {
    const err = failure('shop:\n  baseUrl: https://s.example/api\n  token: abcdefgh\ndashboard:\n  host: 0.0.0.0\n');
    expect(err.key).toBe('dashboard.host');
    expect(err.line).toBe(5);
    expect(() => parse('shop:\n  baseUrl: https://s.example/api\n  token: abcdefgh\ndashboard:\n  host: 0.0.0.0\n  token: ${D}\n', { D: 'long-enough-token-0123456789abcdefghij' })).not.toThrow();
  });

  it('wants exactly one of token and oauth', () => {
    expect(failure('shop:\n  baseUrl: https://s.example/api\n').key).toBe('shop');
    const { config } = parse('shop:\n  baseUrl: https://s.example/api\n  oauth:\n    clientId: shopsync\n    clientSecret: ${CS}\n', { CS: 'client-secret-xyz' });
    expect(shopClientOptions(config.shop!).auth).toMatchObject({ kind: 'oauth', clientId: 'shopsync', clientSecret: 'client-secret-xyz' });
  });

  it('warns when a secret is written into the file and never echoes it in errors', () => {
    const loaded = parse('shop:\n  baseUrl: https://s.example/api\n  token: literal-token-value\n');
    expect(loaded.warnings[0]).toContain('shop.token is written into the config file');
    expect(loaded.secrets).toContain('literal-token-value');
    const err = failure('shop:\n  baseUrl: https://s.example/api\n  token: ""\n');
    expect(err.message).not.toContain('got');
  });

  it('warns that a file source read the moment a file appears (settleMs 0) is safe only for writers that rename in', () => {
    const yaml = (settle: string) =>
      `shop:\n  baseUrl: https://s.example/api\n  token: \${T}\nconnections:\n  drop: { kind: files }\npipelines:\n  - name: stock\n    direction: push\n    resource: products\n    mapping: stock.yaml\n    source: { connection: drop, folder: in, format: csv${settle} }\n`;
    expect(parse(yaml(', stability: { mode: settle, settleMs: 0 }'), { T: 'token-1234' }).warnings).toEqual([expect.stringMatching(/pipeline stock: stability\.settleMs 0 reads a file the moment it appears\. That is safe only when the ERP writes under a temporary name/)]);
    expect(parse(yaml(''), { T: 'token-1234' }).warnings).toEqual([]);
    expect(parse(yaml(', stability: { mode: marker }'), { T: 'token-1234' }).warnings).toEqual([]);
  });

  it('redacts every value of an HTTP connection\'s headers, whatever the header is called', () => {
    const loaded = parse('shop:\n  baseUrl: https://s.example/api\n  token: ${T}\nconnections:\n  api: { kind: http, baseUrl: "https://erp.example/api", headers: { X-Api-Key: \"${K}\", X-Tenant: tenant-4711 } }\n', { T: 'token-1234', K: 'key-0123456789' });
    expect(loaded.secrets).toEqual(expect.arrayContaining(['key-0123456789', 'tenant-4711']));
  });

  it('reports YAML syntax errors with their line', () => {
    const err = failure('shop:\n  baseUrl: https://s.example/api\n  token: [unclosed\n');
    expect(err.message).toMatch(/shopsync\.yaml:3:10: YAML syntax: the \[ opened on line 3 is never closed/);
  });

  it('says how to provide a config when the file is missing', async () => {
    await expect(loadConfig(join(dir, 'nope.yaml'))).rejects.toThrow(/SHOPSYNC_CONFIG/);
  });

  it('validates pipeline schedules and time zones', () => {
    const base = 'shop:\n  baseUrl: https://s.example/api\n  token: abcdefgh\nconnections:\n  erp:\n    kind: sqlite\n    path: erp.db\n';
    const pipeline = (schedule: string) =>
      `pipelines:\n  - name: products\n    direction: push\n    resource: products\n    mapping: mappings/products.yaml\n    source:\n      connection: erp\n      query: SELECT * FROM articles\n      cursor: changed_at\n      key: sku\n    schedule: "${schedule}"\n`;
    const ok = parse(`${base}${pipeline('*/5 * * * *')}timezone: Europe/Berlin\n`);
    expect(ok.config.pipelines[0]).toMatchObject({ name: 'products', schedule: '*/5 * * * *' });
    const bad = failure(`${base}${pipeline('every minute')}`);
    expect(bad.key).toBe('pipelines[0].schedule');
    expect(bad.line).toBe(18);
    const tz = failure(`${base}timezone: Mars/Olympus\n`);
    expect(tz.key).toBe('timezone');
    expect(tz.message.match(/Mars\/Olympus/g)).toHaveLength(1);
  });

  it('refuses a cron step as large as its field, which node-cron would quietly run once an hour', () => {
    const base = 'shop:\n  baseUrl: https://s.example/api\n  token: abcdefgh\nconnections:\n  erp:\n    kind: sqlite\n    path: erp.db\n';
    const pipeline = (schedule: string) =>
      `pipelines:\n  - name: products\n    direction: push\n    resource: products\n    mapping: mappings/products.yaml\n    source:\n      connection: erp\n      query: SELECT * FROM articles\n      cursor: changed_at\n      key: sku\n    schedule: "${schedule}"\n`;
    const minute = failure(`${base}${pipeline('*/61 * * * *')}`);
    expect(minute.key).toBe('pipelines[0].schedule');
    expect(minute.message).toContain('minute: step 61');
    expect(failure(`${base}${pipeline('*/90 */2 * * * *')}`).message).toContain('second: step 90');
    expect(failure(`${base}${pipeline('0 */24 * * *')}`).message).toContain('hour: step 24');
    expect(parse(`${base}${pipeline('*/30 0-12/6 * * 1-5')}`).config.pipelines[0].schedule).toBe('*/30 0-12/6 * * 1-5');
  });

  it('checks a source against its connection kind at load time', () => {
    const err = failure(
      'shop:\n  baseUrl: https://s.example/api\n  token: abcdefgh\nconnections:\n  erp:\n    kind: sqlite\n    path: erp.db\npipelines:\n  - name: p\n    direction: push\n    resource: products\n    mapping: m.yaml\n    source:\n      connection: erp\n      query: SELECT * FROM a\n      cursor: changed at\n      key: sku\n',
    );
    expect(err.key).toBe('pipelines[0].source.cursor');
    expect(err.line).toBe(16);
    expect(err.message).toContain('SQL identifier');
  });

  it('names a pipeline\'s unknown connection with the ones that exist', () => {
    const err = failure(
      'shop:\n  baseUrl: https://s.example/api\n  token: abcdefgh\nconnections:\n  erp:\n    kind: sqlite\n    path: erp.db\npipelines:\n  - name: p\n    direction: push\n    resource: products\n    mapping: m.yaml\n    source:\n      connection: warehouse\n',
    );
    expect(err.key).toBe('pipelines[0].source.connection');
    expect(err.line).toBe(14);
    expect(err.message).toContain('known: erp');
  });
  it('loads `shop:` as the shop named default beside the shops under `shops:`, and a pipeline names its shop', () => {
    const { config } = parse(
      'shop:\n  baseUrl: https://de.example/api\n  token: ${T}\nshops:\n  at:\n    baseUrl: https://at.example/api\n    token: ${T}\n  b2b:\n    baseUrl: https://b2b.example/api\n    token: ${T}\nconnections:\n  erp:\n    kind: sqlite\n    path: erp.db\npipelines:\n  - name: p-default\n    direction: push\n    resource: products\n    mapping: m.yaml\n    source: { connection: erp, query: SELECT 1, cursor: c, key: k }\n  - name: p-at\n    shop: at\n    direction: push\n    resource: products\n    mapping: m.yaml\n    source: { connection: erp, query: SELECT 1, cursor: c, key: k }\n',
      { T: 'tok-123456' },
    );
    const shops = shopsOf(config);
    expect(Object.keys(shops)).toEqual(['default', 'at', 'b2b']);
    expect(Object.fromEntries(Object.entries(shops).map(([name, shop]) => [name, shop.baseUrl]))).toEqual({ default: 'https://de.example/api', at: 'https://at.example/api', b2b: 'https://b2b.example/api' });
    expect(config.pipelines.map((p) => [p.name, p.shop])).toEqual([['p-default', 'default'], ['p-at', 'at']]);
  });

  it('names file, line and the known shops when a pipeline names a shop that is not configured', () => {
    const shops = 'shop:\n  baseUrl: https://de.example/api\n  token: abcdefgh\nshops:\n  at:\n    baseUrl: https://at.example/api\n    token: abcdefgh\nconnections:\n  erp:\n    kind: sqlite\n    path: erp.db\n';
    const err = failure(`${shops}pipelines:\n  - name: p\n    shop: ch\n    direction: push\n    resource: products\n    mapping: m.yaml\n    source: { connection: erp, query: SELECT 1, cursor: c, key: k }\n`);
    expect(err.key).toBe('pipelines[0].shop');
    expect(err.line).toBe(14);
    expect(err.message).toContain('shopsync.yaml:14: pipelines[0].shop');
    expect(err.message).toContain('no shop named "ch"; known: default, at');
    // Without `shop:` there is no shop named default for a pipeline that names none.
    const onlyNamed = failure('shops:\n  at:\n    baseUrl: https://at.example/api\n    token: abcdefgh\nconnections:\n  erp:\n    kind: sqlite\n    path: erp.db\npipelines:\n  - name: p\n    direction: push\n    resource: products\n    mapping: m.yaml\n    source: { connection: erp, query: SELECT 1, cursor: c, key: k }\n');
    expect(onlyNamed.line).toBe(10);
    expect(onlyNamed.message).toContain('no shop named "default"; known: at');
  });
});
