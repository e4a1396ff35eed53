import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { requireService } from '../support/services.js';
import { useSandbox } from '../support/sandbox.js';
import { ensureBuilt, runCli, shopProducts, tempDir } from './support.js';

const sandbox = useSandbox({}, { before: ensureBuilt, timeoutMs: 300_000 });
const pgService = await requireService('postgres');
const schema = `init_cli_${Math.random().toString(36).slice(2, 8)}`;

/** A German ERP export as Excel writes it: Windows-1252, semicolons, decimal commas. */
const CSV = [
  'ArtNr;Bezeichnung;EAN;VK_Preis;Bestand;Aktiv;Lagerort',
  'WG-1001;Kühlschrank „Größe L“;4006381333931;1.299,00;12;J;R1-03',
  'WG-1002;Gläser-Set Café;4006381333948;19,90;0;N;R2-11',
  'WG-1003;Töpfe 3-teilig;4006381333955;49,5;7;J;',
].join('\r\n');

function writeExport(dir: string): string {
  mkdirSync(join(dir, 'export'), { recursive: true });
  const file = join(dir, 'export', 'artikel.csv');
  writeFileSync(file, iconv.encode(`${CSV}\r\n`, 'windows-1252'));
  // The file source waits until a drop is 2 s old; this one was finished long ago.
  const past = new Date(Date.now() - 60_000);
  utimesSync(file, past, past);
  return file;
}

function shopFlags(): string[] {
  return ['--shop-url', sandbox.url, '--shop-token', sandbox.token];
}

describe('shopsync init with flags (spawned against the sandbox)', { timeout: 180_000 }, () => {
  it('says in the config and on screen that the encoding of an all-ASCII sample is a guess, and how to set it', async () => {
    const dir = tempDir('shopsync-init-');
    mkdirSync(join(dir, 'export'), { recursive: true });
    writeFileSync(join(dir, 'export', 'artikel.csv'), 'ArtNr;Bezeichnung;VK_Preis\r\nWG-1;Topf;19,90\r\nWG-2;Pfanne;29,90\r\n');
    const init = await runCli(['init', '--yes', '--no-verify', ...shopFlags(), '--file', 'export/artikel.csv'], { cwd: dir });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain('note: Encoding: the sample held only ASCII characters');
    const config = readFileSync(join(dir, 'shopsync.yaml'), 'utf8');
    const note = config.split('\n').filter((l) => l.startsWith('# ')).map((l) => l.slice(2)).join(' ');
    expect(note).toContain('Encoding: the sample held only ASCII characters, which read the same in every encoding, so UTF-8 is a guess.');
    expect(note).toContain('set `encoding: windows-1252` on the source');
    expect(parse(config)).toMatchObject({ pipelines: [{ source: { format: 'csv', csv: { delimiter: ';' } } }] });
  });

  it('turns a Windows-1252 CSV with semicolons and decimal commas into a config and mapping that check, dry-run and sync', async () => {
    const dir = tempDir('shopsync-init-');
    writeExport(dir);
    const init = await runCli(['init', '--yes', ...shopFlags(), '--file', 'export/artikel.csv'], { cwd: dir });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain('windows-1252, semicolon-separated, decimals in de notation');
    expect(init.stdout).toContain('Lagerort      not placed: no field of products matches its name');
    expect(init.stdout).toContain('mappings check: 1 mapping file(s) valid');
    expect(init.stdout).toContain('dry run of the first 3 record(s): 3 would be created');
    expect(init.stdout).toContain('"products_price":"1299.00"');

    const config = readFileSync(join(dir, 'shopsync.yaml'), 'utf8');
    expect(config.split('\n')[0]).toMatch(/^# yaml-language-server: \$schema=.*schemas\/shopsync\.schema\.json$/);
    expect(config).not.toContain(sandbox.token);
    expect(config).not.toContain('# Encoding:'); // read off the bytes, not guessed
    expect(parse(config)).toMatchObject({
      shop: { baseUrl: sandbox.url, token: '${file:secrets/shop_token}' },
      connections: { erp: { kind: 'files', folder: 'export' } },
      pipelines: [{ name: 'products', resource: 'products', mapping: 'mappings/products.yaml', source: { connection: 'erp', format: 'csv', pattern: 'artikel.csv', encoding: 'windows-1252', csv: { delimiter: ';' }, key: 'ArtNr' } }],
    });
    expect(statSync(join(dir, 'secrets', 'shop_token')).mode & 0o777).toBe(0o600);
    const mapping = readFileSync(join(dir, 'mappings', 'products.yaml'), 'utf8');
    expect(mapping.split('\n')[0]).toMatch(/^# yaml-language-server: \$schema=.*schemas\/mapping\.schema\.json$/);
    expect(parse(mapping)).toMatchObject({
      key: 'ArtNr',
      shop_key: 'products_model',
      locale: 'de',
      fields: {
        products_model: { from: 'ArtNr', required: true },
        'languages.de.products_name': { from: 'Bezeichnung' },
        products_ean: { from: 'EAN' },
        products_price: { from: 'VK_Preis', type: 'decimal' },
        products_quantity: { from: 'Bestand', type: 'decimal' },
        products_status: { from: 'Aktiv', type: 'flag', true: ['J'], false: ['N'] },
      },
    });
    expect(mapping).toContain('#   Lagerort: no field of products matches its name');
    // Empty policies (docs/mappings.md "Empty values"): a removed EAN is removed in the shop; an empty price or stock cell is unknown, never 0.
    expect(parse(mapping)).toMatchObject({ fields: { products_ean: { when_empty: 'clear' }, products_price: { when_empty: 'keep' }, products_quantity: { when_empty: 'keep' } } });

    const check = await runCli(['mappings', 'check', 'mappings/products.yaml'], { cwd: dir });
    expect(check.code, check.stdout).toBe(0);
    const dry = await runCli(['sync', 'products', '--dry-run'], { cwd: dir });
    expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    expect(dry.stdout).toContain('create WG-1002');

    const sync = await runCli(['sync', 'products'], { cwd: dir });
    expect(sync.code, sync.stdout + sync.stderr).toBe(0);
    const shop = await shopProducts(sandbox);
    expect(shop.get('WG-1001')).toMatchObject({ products_model: 'WG-1001', products_ean: '4006381333931', languages: { de: { products_name: 'Kühlschrank „Größe L“' } } });
    expect(Number(shop.get('WG-1001')?.products_price)).toBe(1299);
    expect(Number(shop.get('WG-1003')?.products_price)).toBe(49.5);
    expect(Number(shop.get('WG-1002')?.products_status)).toBe(0);
  });

  it('never overwrites an existing config without --force, and leaves it as it was', async () => {
    const dir = tempDir('shopsync-init-');
    writeExport(dir);
    writeFileSync(join(dir, 'shopsync.yaml'), '# mine\n');
    const refused = await runCli(['init', '--yes', ...shopFlags(), '--file', 'export/artikel.csv'], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('shopsync.yaml already exists; init never overwrites files');
    expect(readFileSync(join(dir, 'shopsync.yaml'), 'utf8')).toBe('# mine\n');
    expect(existsSync(join(dir, 'mappings'))).toBe(false);

    const forced = await runCli(['init', '--yes', '--force', '--no-verify', ...shopFlags(), '--file', 'export/artikel.csv'], { cwd: dir });
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(dir, 'shopsync.yaml'), 'utf8')).toContain('kind: files');
  });

  it('names the nearest shop field when --map places a column on a field the resource does not have, and writes nothing', async () => {
    const dir = tempDir('shopsync-init-');
    writeExport(dir);
    const r = await runCli(['init', '--yes', ...shopFlags(), '--file', 'export/artikel.csv', '--map', 'VK_Preis=products_prise'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('shopsync: init: --map VK_Preis=products_prise: products_prise is not a field of products; did you mean products_price?');
    expect(existsSync(join(dir, 'shopsync.yaml'))).toBe(false);
  });

  it('names the missing answers when there is no terminal to ask them on', async () => {
    const dir = tempDir('shopsync-init-');
    const r = await runCli(['init', '--shop-url', sandbox.url], { cwd: dir, env: { SHOP_TOKEN: undefined } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('shopsync: init: without a terminal to ask on, give --shop-token-env <NAME> (or $SHOP_TOKEN), --shop-token <token>, or --oauth-client-id with --oauth-client-secret; an ERP source: --file <export>, --sqlite <file>, or --db-url <url>');
  });

  it('stops at once when the shop refuses the token, before reading the source or writing a file', async () => {
    const dir = tempDir('shopsync-init-');
    writeExport(dir);
    const r = await runCli(['init', '--yes', '--shop-url', sandbox.url, '--shop-token', 'wrong-token', '--file', 'export/artikel.csv'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('refuses the token (401)');
    expect(existsSync(join(dir, 'shopsync.yaml'))).toBe(false);
  });
});

describe.skipIf(!pgService.available)('shopsync init against a PostgreSQL table (spawned)', { timeout: 180_000 }, () => {
  const admin = new pg.Client({ host: pgService.host, port: pgService.port, user: pgService.user, database: pgService.database });
  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(`CREATE TABLE ${schema}.artikel (artnr integer PRIMARY KEY, bezeichnung text NOT NULL, ean varchar(13), preis numeric(10,2) NOT NULL, bestand integer NOT NULL, aktiv boolean NOT NULL, lieferant text, geaendert timestamptz NOT NULL)`);
    await admin.query(`INSERT INTO ${schema}.artikel VALUES
      (1001, 'Kühlschrank', '4006381333931', 1299.00, 12, true, 'L-01', '2026-03-01 10:00:00+00'),
      (1002, 'Gläser', '4006381333948', 19.90, 0, false, 'L-02', '2026-03-01 10:00:00+00'),
      (1003, 'Töpfe', NULL, 49.50, 7, true, NULL, '2026-03-02 08:30:00.123456+00')`);
  });
  afterAll(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  it('reads the table, picks key and cursor, and writes a config and mapping that check and dry-run against the shop', async () => {
    const dir = tempDir('shopsync-init-pg-');
    const url = `postgres://${pgService.user}@${pgService.host}:${pgService.port}/${pgService.database}`;
    const init = await runCli(['init', '--yes', ...shopFlags(), '--db-url', url, '--db-schema', schema, '--table', 'artikel', '--dry-run-records', '2'], { cwd: dir });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain('cursor: geaendert (geaendert looks like a change timestamp)');
    expect(init.stdout).toContain('dry run of the first 2 record(s): 2 would be created');

    const config = parse(readFileSync(join(dir, 'shopsync.yaml'), 'utf8')) as Record<string, unknown>;
    expect(config).toMatchObject({
      connections: { erp: { kind: 'postgres', host: pgService.host, port: pgService.port, user: pgService.user, database: pgService.database, schema } },
      pipelines: [{ name: 'products', source: { connection: 'erp', query: 'SELECT * FROM "artikel"', cursor: 'geaendert', key: 'artnr' } }],
    });
    const mapping = parse(readFileSync(join(dir, 'mappings', 'products.yaml'), 'utf8')) as Record<string, unknown>;
    expect(mapping).toMatchObject({
      key: 'artnr',
      shop_key: 'products_model',
      fields: {
        // An integer article number becomes text for the shop's text field.
        products_model: { from: 'artnr', type: 'string', required: true },
        products_price: { from: 'preis', type: 'decimal' },
        products_quantity: { from: 'bestand', type: 'decimal' },
        products_status: { from: 'aktiv', type: 'flag' },
        products_ean: { from: 'ean' },
        'languages.de.products_name': { from: 'bezeichnung' },
      },
    });

    const check = await runCli(['mappings', 'check', 'mappings/products.yaml'], { cwd: dir });
    expect(check.code, check.stdout).toBe(0);
    const dry = await runCli(['sync', 'products', '--dry-run', '--json'], { cwd: dir });
    expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    const summary = JSON.parse(dry.stdout) as { status: string; counts: { read: number; created: number; failed: number }; plan: { erpKey: string; action: string; payload: Record<string, unknown> }[] };
    expect(summary).toMatchObject({ status: 'succeeded', counts: { read: 3, created: 3, failed: 0 } });
    expect(summary.plan.find((p) => p.erpKey === '1003')?.payload).toMatchObject({ products_model: '1003', products_price: '49.50', products_status: 1 });
    expect([...(await shopProducts(sandbox)).keys()]).not.toContain('1003');
  });
});
