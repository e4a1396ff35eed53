/**
 * The daemon with a broken shop file: it starts, says once which shop is broken and where, and
 * schedules the other shops' pipelines only.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { startDaemon } from '../../src/ops/daemon.js';
import { productsMapping } from '../support/mappings.js';
import { removeDir, tempDir } from '../support/tmp.js';

const dir = tempDir('shopsync-broken-shop-');
afterAll(() => removeDir(dir));

describe('the daemon with one broken shop file', () => {
  it('starts, logs one error naming the file and line, and schedules only the other shops', async () => {
    mkdirSync(join(dir, 'shops.d'));
    writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
    writeFileSync(
      join(dir, 'shopsync.yaml'),
      `connections: { erp: { kind: sqlite, path: erp.sqlite } }
templates:
  products: { direction: push, resource: products, mapping: p.yaml, schedule: "0 3 * * *", source: { connection: erp, query: SELECT 1, cursor: c, key: k } }
state: { path: state.db }
dashboard: { enabled: false, port: 0 }
`,
    );
    writeFileSync(join(dir, 'shops.d', 'de.yaml'), 'baseUrl: http://127.0.0.1:9/api\ntoken: de-token-0001\n');
    writeFileSync(join(dir, 'shops.d', 'at.yaml'), 'baseUrl: http://127.0.0.1:9/api\ntoken: at-token-0002\ntimeoutMs: soon\n');
    const lines: { level: number; msg: string; shop?: string; file?: string; line?: number }[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(...chunk.toString().trim().split('\n').map((l) => JSON.parse(l) as never)), done()) }));
    const daemon = await startDaemon(await loadConfig(join(dir, 'shopsync.yaml'), { env: {} }), { logger, dashboard: false });
    try {
      const errors = lines.filter((l) => l.level >= 50);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ shop: 'at', file: join(dir, 'shops.d', 'at.yaml'), line: 3 });
      expect(errors[0]!.msg).toContain(`${join(dir, 'shops.d', 'at.yaml')}:3: timeoutMs`);
      expect(daemon.scheduler.nextRun('products-de')).toBeInstanceOf(Date);
      expect(daemon.scheduler.nextRun('products-at')).toBeNull();
    } finally {
      await daemon.close();
    }
  });
});
