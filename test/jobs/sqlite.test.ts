/** A SQLite state stays single-process: a second daemon is refused, naming the setting that allows replicas. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { startDaemon } from '../../src/ops/daemon.js';
import { productsMapping } from '../support/mappings.js';
import { tempDir } from '../support/tmp.js';
import { writeFileSync } from 'node:fs';

describe('a daemon on a SQLite state', () => {
  it('refuses a second daemon on the same state with a message naming state.kind: postgres, and keeps the replicas table empty', async () => {
    const dir = tempDir('shopsync-single-');
    writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
    const text = `shop: { baseUrl: "http://127.0.0.1:9/api", token: t }
connections: { erp: { kind: sqlite, path: erp.sqlite } }
pipelines:
  - { name: products, direction: push, resource: products, mapping: p.yaml, source: { connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku } }
state: { path: state.db }
dashboard: { port: 0 }
`;
    const loaded = () => parseConfigText(text, join(dir, 'shopsync.yaml'), { env: {} });
    const first = await startDaemon(loaded(), { logger: silentLogger, startSchedule: false });
    try {
      expect(first.replica).toBeUndefined();
      const refusal = await startDaemon(loaded(), { logger: silentLogger, startSchedule: false }).then(
        () => undefined,
        (err: unknown) => err as { code: string; message: string },
      );
      expect(refusal?.code).toBe('LOCK_HELD');
      expect(refusal?.message).toContain(`a shopsync daemon already runs on the SQLite state ${join(dir, 'state.db')}: process ${process.pid}`);
      expect(refusal?.message).toContain('A SQLite state is single-process; to run several replicas put the state in PostgreSQL (`state.kind: postgres`');
      expect(await first.runtime.state.replicas.list()).toEqual([]);
      expect(await (await fetch(`${first.url}/metrics`)).text()).not.toContain('replica=');
    } finally {
      await first.close();
    }
  });
});
