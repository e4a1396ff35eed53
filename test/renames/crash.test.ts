/**
 * A process that dies between a rename's product update and its SEO history write (issue 46):
 * SIGKILLed as the POST would leave, and once its answer arrived, before anything was committed.
 * The next run finds the pending write (its intent holds the old paths read before the update,
 * since the shop record already shows the new ones), looks in the SEO history, and leaves exactly
 * one entry for the old URL; the product exists once, under its old shop id.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createSource } from '../../src/erp/index.js';
import { silentLogger } from '../../src/log.js';
import { loadMapping } from '../../src/mapping/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import type { StateLocation } from '../../src/state/index.js';
import { childArgs } from '../support/child.js';
import { removeDir, tempDir } from '../support/tmp.js';
import { clientFor } from '../pipeline/support.js';
import { forEachBackend, type Backend } from '../state/backends.js';
import { ARTICLES, BY_ID } from './support.js';

const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

forEachBackend('a crash between a rename and its SEO history entry', (backend: Backend) => {
  let dir: string;
  let sandbox: SandboxHandle;
  beforeEach(async () => {
    dir = tempDir('shopsync-rename-crash-');
    sandbox = await startSandbox({ seed: 'empty', dbPath: ':memory:' });
    // The entry is shopsync's to write: the shop writes none of its own for products.
    await fetch(`${sandbox.url}/sandbox/settings`, { method: 'PUT', headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ SANDBOX_SEO_AUTO_REDIRECTS: 'false' }) });
  });
  afterEach(async () => {
    await sandbox.close();
    removeDir(dir);
  });

  function push(location: StateLocation, erpFile: string, mappingFile: string, when: 'before' | 'after' | 'never'): Promise<{ signal: NodeJS.Signals | null; out: string }> {
    const child = spawn(process.execPath, [...childArgs(CHILD), sandbox.url, sandbox.token, erpFile, JSON.stringify(location), mappingFile, when], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    return new Promise((resolve) => child.on('exit', (_code, signal) => resolve({ signal, out })));
  }

  it.each(['before', 'after'] as const)('writes the old URL once when the process died %s the SEO history POST', async (when) => {
    const erpFile = join(dir, 'erp.sqlite');
    const mappingFile = join(dir, 'articles.yaml');
    writeFileSync(mappingFile, BY_ID);
    const erp = new Database(erpFile);
    erp.exec(ARTICLES);
    const article = (code: string, at: string) => erp.prepare("INSERT OR REPLACE INTO article VALUES (1, ?, 'Wasserkocher', '19.90', ?)").run(code, at);
    const location = backend.location();
    try {
      // Only the run that dies needs a process of its own; the others run here.
      const run = async () => {
        const state = await backend.open(location);
        const shop = clientFor(sandbox);
        const source = () => createSource({ kind: 'sqlite', path: erpFile }, { query: 'SELECT * FROM article', cursor: 'updated_at', key: 'id', lookback: 0 } as never, { logger: silentLogger, baseDir: '/' });
        try {
          return await runPipeline({ name: 'articles', direction: 'push', source: { connection: 'erp' }, mapping: 'articles.yaml', resource: 'products', batchSize: 10 }, { state, shop, mapping: await loadMapping(mappingFile), source });
        } finally {
          await shop.close();
          await state.close();
        }
      };
      article('ART-1020', '2026-01-01 00:00:00');
      expect((await run()).status).toBe('succeeded');
      article('ART-1020N', '2026-01-02 00:00:00');
      const killed = await push(location, erpFile, mappingFile, when);
      expect(killed.signal, killed.out).toBe('SIGKILL');
      const last = await run();
      expect(last.status).toBe('succeeded');
      expect(last.counts).toMatchObject({ read: 1, updated: 1, failed: 0 });

      const shop = clientFor(sandbox);
      const products: Record<string, unknown>[] = [];
      for await (const p of shop.exportAll('products')) products.push(p);
      expect(products.map((p) => [p.products_id, p.products_model])).toEqual([[1, 'ART-1020N']]);
      const history: Record<string, unknown>[] = [];
      for await (const e of shop.exportAll('seohistory', { filters: { type: 'p', base_id: 1 } })) history.push(e);
      await shop.close();
      expect(history.map((e) => e.languages)).toEqual([{ de: { sh_seo_string: 'wasserkocher-art-1020' } }]);
      const state = await backend.open(location);
      expect(await state.intents.list('articles')).toEqual([]);
      expect(await state.refs.get('products', '1')).toMatchObject({ shopId: 1, number: 'ART-1020N' });
      await state.close();
    } finally {
      erp.close();
    }
  }, 60_000);
});
