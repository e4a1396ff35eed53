/** Shared fixtures of the rename tests: an ERP SQLite table of articles with a stable id, a sandbox shop over HTTP, a state of either backend. */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createSource } from '../../src/erp/index.js';
import type { Source } from '../../src/erp/types.js';
import { silentLogger } from '../../src/log.js';
import type { CompiledMapping } from '../../src/mapping/types.js';
import { runPipeline } from '../../src/pipeline/index.js';
import type { RunOptions } from '../../src/pipeline/index.js';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/index.js';
import type { ShopClient } from '../../src/shop/client/types.js';
import type { StateStore } from '../../src/state/index.js';
import type { Backend } from '../state/backends.js';
import { removeDir, tempDir } from '../support/tmp.js';
import { clientFor, mappingFile } from '../pipeline/support.js';

/** The ERP's article table: `id` never changes, `code` is the article number the shop knows (products_model). */
export const ARTICLES = 'CREATE TABLE article (id INTEGER PRIMARY KEY, code TEXT NOT NULL, name TEXT NOT NULL, price TEXT NOT NULL, updated_at TEXT NOT NULL)';

/** Articles kept by their ERP id; the URL (seo_name) carries the number, as many shops' URLs do. */
export const BY_ID = `
name: articles
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: { surrogate: id, natural: code }
fields:
  products_model: code
  languages.de.products_name: name
  languages.de.seo_name: { template: "{name}-{code}", case: lower }
  products_price: { from: price, type: decimal, locale: point }
`;

/** The same articles kept by their number (no stable id): today's mapping. */
export const BY_CODE = `
name: articles
direction: erp-to-shop
target: { resource: products, operation: upsert }
key: code
shop_key: products_model
fields:
  products_model: code
  languages.de.products_name: name
  languages.de.seo_name: { template: "{name}-{code}", case: lower }
  products_price: { from: price, type: decimal, locale: point }
`;

/** Everything a rename test needs. */
export interface RenameFixture {
  readonly dir: string;
  readonly erp: Database.Database;
  readonly sandbox: SandboxHandle;
  readonly shop: ShopClient;
  readonly state: StateStore;
  /** Write the mapping file and compile it. */
  mapping(yaml: string): Promise<CompiledMapping>;
  /** A source over the article table keyed by `key`. */
  source(key: string): () => Promise<Source>;
  /** Run the `articles` push (of products unless `resource` says otherwise). */
  run(mapping: CompiledMapping, key: string, options?: Partial<RunOptions>, shop?: ShopClient, resource?: string): ReturnType<typeof runPipeline>;
  /** Insert or replace an article row. */
  article(id: number, code: string, name: string, price: string, at: string): void;
  /** Change a sandbox shop setting. */
  setting(name: string, value: string): Promise<void>;
  /** The shop's products. */
  products(): Promise<Record<string, unknown>[]>;
  /** The shop's SEO history entries of one entity. */
  seoHistory(type: string, baseId: number): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/** A sandbox (empty shop), the ERP file and a state of `backend`. */
export async function renameFixture(backend: Backend, sandboxOptions: SandboxOptions = {}): Promise<RenameFixture> {
  const dir = tempDir('shopsync-renames-');
  const erpFile = join(dir, 'erp.sqlite');
  const erp = new Database(erpFile);
  erp.exec(ARTICLES);
  const sandbox = await startSandbox({ seed: 'empty', dbPath: ':memory:', ...sandboxOptions });
  const shop = clientFor(sandbox);
  const state = await backend.open();
  const source = (key: string) => () => createSource({ kind: 'sqlite', path: erpFile }, { query: 'SELECT * FROM article', cursor: 'updated_at', key, lookback: 0 } as never, { logger: silentLogger, baseDir: '/' });
  return {
    dir,
    erp,
    sandbox,
    shop,
    state,
    mapping: (yaml) => mappingFile(dir, 'articles', yaml),
    source,
    run: (mapping, key, options = {}, client = shop, resource = 'products') =>
      runPipeline({ name: 'articles', direction: 'push', source: { connection: 'erp' }, mapping: 'articles.yaml', resource, batchSize: 10 }, { state, shop: client, mapping, source: source(key), logger: silentLogger }, options),
    article: (id, code, name, price, at) => void erp.prepare('INSERT OR REPLACE INTO article (id, code, name, price, updated_at) VALUES (?, ?, ?, ?, ?)').run(id, code, name, price, `2026-01-0${at} 00:00:00`),
    async setting(name, value) {
      const res = await fetch(`${sandbox.url}/sandbox/settings`, { method: 'PUT', headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ [name]: value }) });
      if (!res.ok) throw new Error(`setting ${name} failed: ${res.status} ${await res.text()}`);
    },
    async products() {
      const out: Record<string, unknown>[] = [];
      for await (const p of shop.exportAll('products')) out.push(p);
      return out;
    },
    async seoHistory(type, baseId) {
      const out: Record<string, unknown>[] = [];
      for await (const e of shop.exportAll('seohistory', { filters: { type, base_id: baseId } })) out.push(e);
      return out;
    },
    async close() {
      await shop.close();
      await sandbox.close();
      erp.close();
      removeDir(dir);
    },
  };
}

/** A product's seo_name in a language. */
export function seoName(product: Record<string, unknown> | undefined, language = 'de'): unknown {
  return (product?.languages as Record<string, { seo_name?: unknown }> | undefined)?.[language]?.seo_name;
}
