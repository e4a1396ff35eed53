/**
 * `shopsync init` on a real terminal: the compiled bin runs under `script` (util-linux), which
 * gives it a pseudo-terminal, so the prompts see a TTY in raw mode exactly as a person's shell
 * gives them; the test types into it and reads what the terminal shows.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { targetFields } from '../../src/init/fields.js';
import { resources } from '../../src/shop/registry/index.js';
import { useSandbox } from '../support/sandbox.js';
import { BIN, ensureBuilt, tempDir } from './support.js';

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });
const hasScript = spawnSync('script', ['--version']).status === 0;

const ENTER = '\r';
const DOWN = '\u001b[B';

/** Terminal output without colours and cursor movements. */
function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]|\u001b[()][A-Z0-9]/g, '');
}

/** A process on a pseudo-terminal: wait for text on the screen, then type. */
function onTerminal(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv) {
  const command = [process.execPath, BIN, ...args].join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd, env: { ...env, TERM: 'xterm', COLUMNS: '200', LINES: '50' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  let seen = 0;
  child.stdout.on('data', (d: Buffer) => (screen += d.toString()));
  child.stderr.on('data', (d: Buffer) => (screen += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    screen: () => plain(screen),
    exited,
    /** Wait until `text` appears after what was already answered, then type `keys`. */
    async answer(text: string, keys: string, timeoutMs = 30_000): Promise<void> {
      const start = Date.now();
      for (;;) {
        const at = plain(screen).indexOf(text, seen);
        if (at >= 0) {
          seen = at + text.length;
          break;
        }
        if (child.exitCode !== null || Date.now() - start > timeoutMs) throw new Error(`"${text}" did not appear; the terminal shows:\n${plain(screen).slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      // Prompts render before they listen: give the keypress handler a moment.
      await new Promise((r) => setTimeout(r, 150));
      child.stdin.write(keys);
    },
    kill: () => child.kill('SIGKILL'),
  };
}

describe.skipIf(!hasScript)('shopsync init on a terminal (pseudo-terminal via script)', { timeout: 180_000 }, () => {
  it('asks for the shop until it accepts the token, lets the person pick a table and place a column, and writes files that check', async () => {
    const dir = tempDir('shopsync-init-tty-');
    const db = new Database(join(dir, 'erp.sqlite'));
    db.exec(`CREATE TABLE kunden (kdnr TEXT PRIMARY KEY, name TEXT);
      CREATE TABLE artikel (artnr TEXT PRIMARY KEY, bezeichnung TEXT, preis TEXT, lagerplatz TEXT, geaendert TEXT NOT NULL);
      INSERT INTO artikel VALUES ('T-1', 'Tisch', '199.00', 'A-1', '2026-01-02 10:00:00'), ('T-2', 'Stuhl', '49.90', 'A-2', '2026-01-03 11:00:00');`);
    db.close();
    const env: NodeJS.ProcessEnv = { ...process.env, SHOP_URL: undefined, SHOP_TOKEN: undefined, SHOPSYNC_CONFIG: undefined, LOG_LEVEL: undefined };
    const term = onTerminal(['init'], dir, env);
    try {
      await term.answer("The shop's API URL", `${sandbox.url}${ENTER}`);
      await term.answer('How does shopsync sign in to the shop?', ENTER);
      await term.answer('Access token', `not-the-token${ENTER}`);
      await term.answer('refuses the token (401)', '');
      await term.answer("The shop's API URL", ENTER);
      await term.answer('How does shopsync sign in to the shop?', ENTER);
      await term.answer('Access token', `${sandbox.token}${ENTER}`);
      await term.answer('answers; it holds 0 products', '');
      await term.answer('Where does the ERP data come from?', `${DOWN}${DOWN}${ENTER}`);
      await term.answer('Path of the SQLite file', `erp.sqlite${ENTER}`);
      await term.answer('Which table holds the records?', ENTER);
      await term.answer('Which shop records should the ERP write?', ENTER);
      await term.answer('lagerplatz    not placed: no field of products matches its name', '');
      await term.answer('Write the files with this mapping?', `${DOWN}${ENTER}`);
      // The first field still free in the list after "(leave it out)": the registry decides which it is.
      const taken = new Set(['products_model', 'languages.de.products_name', 'products_price']);
      const first = targetFields(resources.products, 'de').find((t) => !taken.has(t.path));
      await term.answer('lagerplatz (e.g. "A-1")', `${DOWN}${ENTER}`);
      await term.answer('Record key', ENTER);
      await term.answer('Cursor', ENTER);
      await term.answer('Write the files?', ENTER);
      expect(await term.exited, term.screen().slice(-3000)).toBe(0);

      expect(term.screen()).toContain('mappings check: 1 mapping file(s) valid');
      expect(term.screen()).toContain('dry run of the first 2 record(s): 2 would be created');
      // The token was typed behind a mask: it never shows on the terminal.
      expect(term.screen()).not.toContain(sandbox.token);
      const config = parse(readFileSync(join(dir, 'shopsync.yaml'), 'utf8')) as Record<string, unknown>;
      expect(config).toMatchObject({
        shop: { baseUrl: sandbox.url, token: '${file:secrets/shop_token}' },
        connections: { erp: { kind: 'sqlite', path: 'erp.sqlite' } },
        pipelines: [{ name: 'products', source: { query: 'SELECT * FROM "artikel"', cursor: 'geaendert', key: 'artnr' } }],
      });
      expect(readFileSync(join(dir, 'secrets', 'shop_token'), 'utf8')).toBe(`${sandbox.token}\n`);
      const mapping = parse(readFileSync(join(dir, 'mappings', 'products.yaml'), 'utf8')) as { fields: Record<string, { from: string }> };
      expect(mapping.fields[first?.path ?? '']).toMatchObject({ from: 'lagerplatz' });
      expect(mapping.fields.products_price).toMatchObject({ from: 'preis', type: 'decimal' });
    } finally {
      term.kill();
    }
  });
  it('with --orders-pull, asks whether to follow orders after checkout and their statuses, proposing the defaults, and writes what was typed', async () => {
    const dir = tempDir('shopsync-init-tty-follow-');
    const db = new Database(join(dir, 'erp.sqlite'));
    db.exec("CREATE TABLE artikel (artnr TEXT PRIMARY KEY, bezeichnung TEXT, preis TEXT, geaendert TEXT NOT NULL); INSERT INTO artikel VALUES ('T-1', 'Tisch', '199.00', '2026-01-02 10:00:00');");
    db.close();
    const env: NodeJS.ProcessEnv = { ...process.env, SHOP_URL: undefined, SHOP_TOKEN: undefined, SHOPSYNC_CONFIG: undefined, LOG_LEVEL: undefined };
    const term = onTerminal(['init', '--shop-url', sandbox.url, '--shop-token', sandbox.token, '--sqlite', 'erp.sqlite', '--table', 'artikel', '--orders-pull', '--no-verify'], dir, env);
    try {
      await term.answer('Which shop records should the ERP write?', ENTER);
      await term.answer('Write the files with this mapping?', ENTER);
      await term.answer('Follow orders after checkout', ENTER);
      await term.answer('Final statuses', `3, 4, 5${ENTER}`);
      await term.answer('Statuses that mean cancelled', ENTER);
      await term.answer('Statuses that mean returned', ENTER);
      expect(await term.exited, term.screen().slice(-3000)).toBe(0);
      expect(term.screen()).toContain('follow: yes (until 3, 4, 5, cancelled 4, returned 5, 14 days, every 1h)');
      const config = parse(readFileSync(join(dir, 'shopsync.yaml'), 'utf8')) as { pipelines: { name: string; follow?: unknown }[] };
      expect(config.pipelines.find((p) => p.name === 'orders-to-erp')?.follow).toEqual({ every: '1h', until: [3, 4, 5], cancelled: [4], returned: [5], maxAgeDays: 14 });
    } finally {
      term.kill();
    }
  });
});
