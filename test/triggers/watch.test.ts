import { appendFileSync, mkdirSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { startDaemon, type Daemon } from '../../src/ops/daemon.js';
import { productsMapping } from '../support/mappings.js';
import { useSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';
import { sleep, until } from '../support/wait.js';

const sandbox = useSandbox();

/** A folder with an inbox and a config whose file-drop pipeline is woken by the watcher alone (no schedule). */
function setup(options: { readonly trigger?: string; readonly source?: string } = {}): { dir: string; inbox: string; file: string; text: string } {
  const dir = tempDir('shopsync-watch-');
  const inbox = join(dir, 'inbox');
  mkdirSync(inbox);
  writeFileSync(join(dir, 'p.yaml'), productsMapping('p'));
  const source = options.source ?? '{ connection: drop, folder: inbox, format: csv, key: sku, stability: { mode: settle, settleMs: 1000 } }';
  const text = `shop: { baseUrl: "${sandbox.url}", token: "\${T}", retry: { baseDelayMs: 5 } }
connections:
  drop: { kind: files, folder: . }
  erp: { kind: sqlite, path: erp.sqlite }
pipelines:
  - name: articles
    direction: push
    resource: products
    mapping: p.yaml
    source: ${source}
    trigger: ${options.trigger ?? '{ watch: true, debounce: 100ms }'}
state: { path: state.db }
dashboard: { port: 0 }
`;
  return { dir, inbox, file: join(dir, 'shopsync.yaml'), text };
}

function csv(prefix: string, rows: number): string {
  return `sku,name,price,qty\n${Array.from({ length: rows }, (_, i) => `${prefix}-${i + 1},Artikel ${i + 1},${i + 1}.50,${i}`).join('\n')}\n`;
}

async function shopModels(prefix: string): Promise<string[]> {
  const res = await fetch(`${sandbox.url}/export/json/products?limit=250`, { headers: { authorization: `Bearer ${sandbox.token}` } });
  const body = (await res.json()) as { data: { products_model: string }[] };
  return body.data.map((p) => p.products_model).filter((m) => m.startsWith(`${prefix}-`));
}

async function start(file: string, text: string): Promise<Daemon> {
  const daemon = await startDaemon(parseConfigText(text, file, { env: { T: sandbox.token } }), { logger: silentLogger });
  expect(daemon.triggers()?.status()).toEqual([expect.objectContaining({ pipeline: 'articles', kind: 'watch', state: 'watching' })]);
  return daemon;
}

describe('the file watcher (trigger.watch)', () => {
  it('starts no run while a file is written in pieces, and one run delivers all of it once it is complete', async () => {
    const { inbox, file, text } = setup();
    const daemon = await start(file, text);
    try {
      const content = csv('SLOW', 40);
      // Five pieces 300 ms apart, cut mid-line: each pause is shorter than the settle time (1 s).
      const cut = Math.ceil(content.length / 5);
      const target = join(inbox, 'slow.csv');
      for (let i = 0; i < 5; i++) {
        appendFileSync(target, content.slice(i * cut, (i + 1) * cut));
        await sleep(300);
        expect(await daemon.runtime.state.runs.list({ pipeline: 'articles' })).toEqual([]);
      }
      const completeAt = Date.now() - 300;
      await until(async () => (await shopModels('SLOW')).length === 40, 15_000);
      await sleep(1500); // room for a follow-up run, if anything (the claim, the archiving) woke one
      const runs = await daemon.runtime.state.runs.list({ pipeline: 'articles' });
      // One run, which read the whole file and began after the last piece: no run saw a part of it.
      expect(runs.map((r) => r.counts.read)).toEqual([40]);
      expect(Math.min(...runs.map((r) => Date.parse(r.startedAt)))).toBeGreaterThanOrEqual(completeAt);
      expect(runs.find((r) => r.counts.read === 40)).toMatchObject({ status: 'succeeded', counts: { created: 40 } });
    } finally {
      await daemon.close();
    }
  });

  it('never wakes for a file written under .tmp, and delivers it once it is renamed into the pattern', async () => {
    const { inbox, file, text } = setup();
    const daemon = await start(file, text);
    try {
      const tmp = join(inbox, 'renamed.csv.tmp');
      writeFileSync(tmp, csv('REN', 3));
      writeFileSync(join(inbox, '.hidden.csv'), csv('DOT', 2));
      await sleep(1500);
      expect(await daemon.runtime.state.runs.list({ pipeline: 'articles' })).toEqual([]);
      renameSync(tmp, join(inbox, 'renamed.csv'));
      await until(async () => (await shopModels('REN')).length === 3, 10_000);
      expect(await shopModels('DOT')).toEqual([]);
    } finally {
      await daemon.close();
    }
  });

  it('delivers files dropped while the daemon was down when it starts', async () => {
    const { inbox, file, text } = setup();
    const dropped = join(inbox, 'while-down.csv');
    writeFileSync(dropped, csv('DOWN', 2));
    const old = new Date(Date.now() - 60_000);
    utimesSync(dropped, old, old);
    const daemon = await start(file, text);
    try {
      await until(async () => (await shopModels('DOWN')).length === 2, 10_000);
    } finally {
      await daemon.close();
    }
  });

  it('is refused at start for a pipeline whose source is not a file drop, naming the trigger to use instead', async () => {
    const { file, text } = setup({ source: '{ connection: erp, query: SELECT * FROM products, cursor: updated_at, key: sku }' });
    const loaded = parseConfigText(text, file, { env: { T: sandbox.token } });
    await expect(startDaemon(loaded, { logger: silentLogger })).rejects.toThrow(/trigger\.watch needs a source on a files connection; connection "erp" is sqlite\. For a SQL source use trigger\.poll/);
  });
});

describe('the file source read while a file is still being written', () => {
  it('takes nothing of a file written to within its settle time, and all of it once it settled', async () => {
    const { inbox, file, text } = setup({ trigger: '{ debounce: 100ms }' });
    const daemon = await startDaemon(parseConfigText(text, file, { env: { T: sandbox.token } }), { logger: silentLogger, startSchedule: false });
    try {
      const content = csv('MID', 30);
      const cut = Math.ceil(content.length / 5);
      const target = join(inbox, 'mid.csv');
      const reads: number[] = [];
      for (let i = 0; i < 5; i++) {
        appendFileSync(target, content.slice(i * cut, (i + 1) * cut));
        // A scheduled run that happens to come mid-write.
        reads.push((await daemon.runtime.run('articles')).counts.read);
        await sleep(200);
      }
      expect(reads).toEqual([0, 0, 0, 0, 0]);
      await sleep(1100);
      expect((await daemon.runtime.run('articles')).counts).toMatchObject({ read: 30, created: 30 });
      expect(await shopModels('MID')).toHaveLength(30);
    } finally {
      await daemon.close();
    }
  });
});
