/**
 * Where the docs' `sh doc-test` blocks run: a folder holding the demo's ERP and config (what
 * `shopsync demo` writes to state/demo/) and a copy of the shipped mappings, a sandbox shop seeded
 * as the demo seeds it, and the references products need (categories and manufacturers) already
 * pushed — so `shopsync sync products` is a first sync of a prepared installation.
 */
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { parseConfigText } from '../../../src/config/index.js';
import { silentLogger } from '../../../src/log.js';
import { demoConfig } from '../../../src/ops/demo/config.js';
import { createDemoErp } from '../../../src/ops/demo/erp.js';
import { prepareDemoShop } from '../../../src/ops/demo/shop.js';
import { openRuntime, shippedMappingsDir } from '../../../src/ops/runtime.js';
import { startSandbox, type SandboxHandle } from '../../../src/sandbox/index.js';
import { tempDir } from '../../support/tmp.js';
import { ROOT } from './blocks.js';

/** A prepared installation to run documented commands in. */
export interface DocFixture {
  /** Working directory of the commands. */
  readonly dir: string;
  /** Environment of the commands (SHOPSYNC_CONFIG names the demo's config). */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

/** Build a fresh fixture (about a second: everything but the CLI runs in this process). */
export async function docFixture(): Promise<DocFixture> {
  const dir = tempDir('shopsync-docs-');
  const demoDir = join(dir, 'state', 'demo');
  mkdirSync(demoDir, { recursive: true });
  cpSync(join(ROOT, 'mappings'), join(dir, 'mappings'), { recursive: true });
  const sandbox: SandboxHandle = await startSandbox({ port: 0, dbPath: ':memory:', seed: 'empty', logger: silentLogger });
  try {
    await prepareDemoShop(sandbox);
    const mappingsDir = shippedMappingsDir();
    const erp = await createDemoErp(demoDir, join(mappingsDir, 'orders-to-erp.yaml'));
    // The demo keeps one article without its supplier's number to show a guard rail; a tutorial's first sync should settle every record.
    const db = new Database(erp.database);
    db.prepare("UPDATE artikel SET Lief_ArtNr = 'LF01-DOCS' WHERE Lief_ArtNr = ''").run();
    db.close();
    const file = join(demoDir, 'shopsync.yaml');
    const text = demoConfig({ mappingsDir, intervalSec: 10, dashboardPort: 0 });
    writeFileSync(file, text);
    const env = { SANDBOX_URL: sandbox.url, SANDBOX_TOKEN: sandbox.token, SHOPSYNC_CONFIG: file };
    const runtime = await openRuntime(parseConfigText(text, file, { env: { ...process.env, ...env } }), { logger: silentLogger });
    try {
      for (const name of ['categories', 'manufacturers']) {
        const summary = await runtime.run(name);
        if (summary.status !== 'succeeded') throw new Error(`doc fixture: ${name} ended ${summary.status}: ${JSON.stringify(summary.error ?? summary.counts)}`);
      }
    } finally {
      await runtime.close();
    }
    return { dir, env, close: () => sandbox.close() };
  } catch (err) {
    await sandbox.close();
    throw err;
  }
}
