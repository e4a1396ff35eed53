/**
 * Paths in the config (issue 29 item 8): a relative path resolves against the config file's folder
 * (a pipeline's `folder:` against its connection's folder) and may not climb out of it with `..`
 * unless `allowPathsOutsideConfig: true`; an absolute path is taken as written. And a value read
 * from a file is never quoted in an error.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';
import { ConfigError } from '../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'shopsync-paths-'));
const SHOP = 'shop:\n  baseUrl: https://s.example/api\n  token: ${T}\n';
const ENV = { T: 'token-1234' };

function parse(text: string, env: NodeJS.ProcessEnv = ENV) {
  return parseConfigText(text, join(dir, 'shopsync.yaml'), { env });
}

function failure(text: string, env: NodeJS.ProcessEnv = ENV): ConfigError {
  try {
    parse(text, env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

const pipeline = (extra: string) => `pipelines:\n  - name: p\n    direction: push\n    resource: products\n    mapping: products.yaml\n${extra}`;

/** One config per path-like key, each climbing out of the folder it is relative to. */
const OUTSIDE: [string, string, string, number][] = [
  ['pipelines[0].mapping', `${SHOP}connections:\n  drop: { kind: files }\n${pipeline('    source: { connection: drop, folder: in, format: csv }\n').replace('products.yaml', '../../../../etc/passwd')}`, '../../../../etc/passwd', 10],
  ['connections.drop.folder', `${SHOP}connections:\n  drop: { kind: files, folder: ../../../../etc }\n`, '../../../../etc', 5],
  ['connections.erp.path', `${SHOP}connections:\n  erp:\n    kind: sqlite\n    path: ../erp.sqlite\n`, '../erp.sqlite', 7],
  ['connections.pg.sslCaFile', `${SHOP}connections:\n  pg:\n    kind: postgres\n    ssl: true\n    sslCaFile: certs/../../ca.pem\n`, 'certs/../../ca.pem', 8],
  ['state.path', `${SHOP}state:\n  path: ../state/shopsync.db\n`, '../state/shopsync.db', 5],
  [
    'pipelines[0].source.folder',
    `${SHOP}connections:\n  drop: { kind: files, folder: erp }\n${pipeline('    source: { connection: drop, folder: ../../outside, format: csv }\n')}`,
    '../../outside',
    11,
  ],
];

describe('paths in the config', () => {
  it.each(OUTSIDE)('refuses %s climbing out of its folder, naming key, line and the way out', (key, text, value, line) => {
    const err = failure(text);
    expect(err.code).toBe('CONFIG_PATH_OUTSIDE');
    expect(err.key).toBe(key);
    expect(err.line).toBe(line);
    expect(err.message).toContain(`shopsync.yaml:${line}: ${key}: "${value}" leaves the folder it is relative to (`);
    expect(err.message).toContain('write the absolute path if that place is meant, or set `allowPathsOutsideConfig: true`');
  });

  it('refuses a pipeline folder that climbs out of its connection folder, though it stays below the config folder', () => {
    const err = failure(`${SHOP}connections:\n  drop: { kind: files, folder: erp/drop }\n${pipeline('    sink: { connection: drop, folder: ../outbox, format: csv }\n').replace('direction: push', 'direction: pull').replace('resource: products', 'resource: orders')}`);
    expect(err).toMatchObject({ code: 'CONFIG_PATH_OUTSIDE', key: 'pipelines[0].sink.folder' });
    expect(err.message).toContain(join(dir, 'erp/drop'));
  });

  it('refuses a relative ${file:…} that climbs out of the config folder', () => {
    writeFileSync(join(dir, '..', 'shopsync-paths-secret'), 'outside-secret\n');
    const err = failure('shop:\n  baseUrl: https://s.example/api\n  token: ${file:../shopsync-paths-secret}\n');
    expect(err).toMatchObject({ code: 'CONFIG_PATH_OUTSIDE', key: 'shop.token', line: 3 });
    expect(err.message).not.toContain('outside-secret');
  });

  it('takes every path as written with allowPathsOutsideConfig: true', () => {
    writeFileSync(join(dir, '..', 'shopsync-paths-secret'), 'outside-secret\n');
    const loaded = parse(
      `allowPathsOutsideConfig: true\nshop:\n  baseUrl: https://s.example/api\n  token: \${file:../shopsync-paths-secret}\nconnections:\n  drop: { kind: files, folder: ../drop }\nstate:\n  path: ../state/shopsync.db\n${pipeline('    source: { connection: drop, folder: ../in, format: csv }\n').replace('mapping: products.yaml', 'mapping: ../mappings/products.yaml')}`,
    );
    expect(loaded.config.shop!.token).toBe('outside-secret');
    expect(loaded.state).toEqual({ kind: 'sqlite', path: join(dir, '../state/shopsync.db') });
    expect(loaded.config.allowPathsOutsideConfig).toBe(true);
  });

  it('takes absolute paths as written and relative paths that stay inside', () => {
    const loaded = parse(
      `${SHOP}connections:\n  drop: { kind: files, folder: /var/spool/erp }\n  here: { kind: files, folder: exchange/../exchange }\n  erp: { kind: sqlite, path: /srv/erp/erp.sqlite }\nstate:\n  path: /var/lib/shopsync/state.db\npipelines:\n  - name: p\n    direction: push\n    resource: products\n    mapping: /etc/shopsync/mappings/products.yaml\n    source: { connection: drop, folder: /var/spool/other, format: csv }\n  - name: q\n    direction: push\n    resource: products\n    mapping: ..products.yaml\n    source: { connection: here, folder: in/., format: csv }\n`,
    );
    expect(loaded.state).toEqual({ kind: 'sqlite', path: '/var/lib/shopsync/state.db' });
    expect(loaded.config.allowPathsOutsideConfig).toBe(false);
  });

  it('never quotes a value read from a file in an error, whatever its key', () => {
    mkdirSync(join(dir, 'notes'), { recursive: true });
    writeFileSync(join(dir, 'notes', 'passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
    const err = failure('shop:\n  baseUrl: https://s.example/api\n  token: ${T}\n  batchSize: ${file:notes/passwd}\n');
    expect(err.key).toBe('shop.batchSize');
    expect(err.message).not.toContain('root:x');
  });
});
