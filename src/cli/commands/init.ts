/** `shopsync init`: a first shopsync.yaml and mapping, asked on a terminal or given as flags. */
import { Command, InvalidArgumentError, Option } from 'commander';
import { parsePositive } from '../args.js';
import type { CliContext } from '../context.js';
import { EXIT, UsageError } from '../exit.js';
import type { Draft } from '../../init/answers.js';
import { STOCK_CHOICES, type StockChoice } from '../../init/stock.js';
import { FOLLOW_CHOICES, type FollowChoice } from '../../init/followChoice.js';
import { RECIPE_NAMES, type RecipeName } from '../../init/recipes/types.js';

/** The flags as commander hands them over. */
interface InitFlags {
  dir: string;
  force?: boolean;
  yes?: boolean;
  shopUrl?: string;
  shopToken?: string;
  shopTokenEnv?: string;
  oauthClientId?: string;
  oauthClientSecret?: string;
  oauthClientSecretEnv?: string;
  oauthTokenUrl?: string;
  oauthScopes?: string;
  source?: 'postgres' | 'mysql' | 'sqlite' | 'file';
  dbUrl?: string;
  dbPasswordEnv?: string;
  dbSchema?: string;
  sqlite?: string;
  table?: string;
  query?: string;
  file?: string;
  format?: 'csv' | 'json' | 'ndjson' | 'xml';
  encoding?: 'utf-8' | 'windows-1252' | 'iso-8859-1';
  delimiter?: string;
  recordsPath?: string;
  resource?: string;
  name?: string;
  language?: string;
  key?: string;
  cursor?: string;
  map: Record<string, string>;
  erp?: RecipeName;
  erpParam: Record<string, string>;
  sample: number;
  dryRunRecords: number;
  verify: boolean;
  ordersPull?: boolean;
  stagingSchema?: string;
  stock?: StockChoice;
  follow?: FollowChoice;
}

function parseMap(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected column=field (e.g. Preis=products_price, or Lagerort= to leave a column out), got "${value}"`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

function parseErpParam(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected name=value (e.g. warehouse=WH), got "${value}"`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

function parseDelimiter(value: string): string {
  return value === 'tab' || value === '\\t' ? '\t' : value;
}

/** Which source the flags describe. */
function sourceKind(f: InitFlags): InitFlags['source'] {
  if (f.source) return f.source;
  if (f.file) return 'file';
  if (f.sqlite) return 'sqlite';
  if (f.dbUrl) return /^(mysql|mariadb):/i.test(f.dbUrl) ? 'mysql' : 'postgres';
  return undefined;
}

function draftOf(f: InitFlags, env: NodeJS.ProcessEnv): Draft {
  const tokenEnv = f.shopTokenEnv ?? (f.shopToken === undefined && f.oauthClientId === undefined && env.SHOP_TOKEN ? 'SHOP_TOKEN' : undefined);
  const secretEnv = f.oauthClientSecretEnv;
  const shopAuth = f.oauthClientId
    ? {
        kind: 'oauth' as const,
        clientId: f.oauthClientId,
        clientSecret: f.oauthClientSecret ?? (secretEnv ? (env[secretEnv] ?? '') : ''),
        ...(secretEnv ? { env: secretEnv } : {}),
        ...(f.oauthTokenUrl ? { tokenUrl: f.oauthTokenUrl } : {}),
        ...(f.oauthScopes ? { scopes: f.oauthScopes.split(/[\s,]+/).filter(Boolean) } : {}),
      }
    : f.shopToken !== undefined
      ? { kind: 'token' as const, token: f.shopToken }
      : tokenEnv
        ? { kind: 'token' as const, token: env[tokenEnv] ?? '', env: tokenEnv }
        : undefined;
  const kind = sourceKind(f);
  const sql = { ...(f.table ? { table: f.table } : {}), ...(f.query ? { query: f.query } : {}) };
  const source =
    kind === 'file'
      ? { kind, ...(f.file ? { path: f.file } : {}), ...(f.format ? { format: f.format } : {}), ...(f.encoding ? { encoding: f.encoding } : {}), ...(f.delimiter ? { delimiter: f.delimiter } : {}), ...(f.recordsPath ? { recordsPath: f.recordsPath } : {}) }
      : kind === 'sqlite'
        ? { kind, ...(f.sqlite ? { path: f.sqlite } : {}), ...sql }
        : kind
          ? { kind, ...(f.dbUrl ? { url: f.dbUrl } : {}), ...(f.dbPasswordEnv ? { passwordEnv: f.dbPasswordEnv } : {}), ...(f.dbSchema ? { schema: f.dbSchema } : {}), ...sql }
          : undefined;
  return {
    ...(f.shopUrl ?? env.SHOP_URL ? { shopUrl: f.shopUrl ?? env.SHOP_URL } : {}),
    ...(shopAuth ? { shopAuth } : {}),
    ...(source ? { source } : {}),
    ...(f.resource ? { resource: f.resource } : {}),
    rest: {
      dir: f.dir,
      force: f.force ?? false,
      map: f.map,
      sampleRows: f.sample,
      dryRunRecords: f.dryRunRecords,
      verify: f.verify,
      erpParams: f.erpParam,
      ...(f.erp ? { erp: f.erp } : {}),
      ...(f.ordersPull ? { ordersPull: true } : {}),
      ...(f.stagingSchema ? { stagingSchema: f.stagingSchema } : {}),
      ...(f.stock ? { stock: f.stock } : {}),
      ...(f.follow ? { follow: f.follow } : {}),
      ...(f.name ? { name: f.name } : {}),
      ...(f.language ? { language: f.language } : {}),
      ...(f.key ? { key: f.key } : {}),
      ...(f.cursor ? { cursor: f.cursor } : {}),
    },
  };
}

/** What a terminal would have asked for and the flags did not give. */
function missingFlags(d: Draft): string[] {
  const out: string[] = [];
  if (!d.shopUrl) out.push('--shop-url <url> (or $SHOP_URL)');
  if (!d.shopAuth) out.push('--shop-token-env <NAME> (or $SHOP_TOKEN), --shop-token <token>, or --oauth-client-id with --oauth-client-secret');
  if (!d.source) out.push('an ERP source: --file <export>, --sqlite <file>, or --db-url <url>');
  else if (d.source.kind === 'file' && !d.source.path) out.push('--file <export>');
  else if (d.source.kind === 'sqlite' && !d.source.path) out.push('--sqlite <file>');
  if (d.source && d.source.kind !== 'file' && !d.source.table && !d.source.query && !d.rest.erp) out.push('--table <name> or --query <select>');
  return out;
}

/** Register the command. */
export function initCommand(ctx: CliContext): Command {
  return new Command('init')
    .description('write a first shopsync.yaml and mapping: check the shop, read the ERP source, propose the mapping, dry-run it')
    .option('--dir <folder>', 'folder to write shopsync.yaml, mappings/ and secrets/ into', '.')
    .option('--force', 'overwrite files that exist')
    .option('-y, --yes', 'never ask; fail on a missing answer (the default when not on a terminal)')
    .option('--shop-url <url>', "the shop's Administration JSON API URL (default: $SHOP_URL)")
    .option('--shop-token <token>', 'access token (kept in secrets/shop_token; prefer --shop-token-env)')
    .option('--shop-token-env <name>', 'environment variable holding the token; the config then reads ${NAME} (default: SHOP_TOKEN when set)')
    .option('--oauth-client-id <id>', 'OAuth client instead of a token')
    .option('--oauth-client-secret <secret>', 'OAuth client secret (kept in secrets/shop_client_secret)')
    .option('--oauth-client-secret-env <name>', 'environment variable holding the client secret')
    .option('--oauth-token-url <url>', 'token endpoint (default: <shop-url>/oauth/token)')
    .option('--oauth-scopes <list>', 'scopes to ask for, comma-separated')
    .addOption(new Option('--source <kind>', 'ERP source kind (default: from --file, --sqlite or --db-url)').choices(['postgres', 'mysql', 'sqlite', 'file']))
    .option('--db-url <url>', 'PostgreSQL or MariaDB/MySQL URL, e.g. postgres://erp@db:5432/erp (a password in it goes to secrets/)')
    .option('--db-password-env <name>', 'environment variable holding the database password')
    .option('--db-schema <schema>', 'PostgreSQL schema of the tables')
    .option('--sqlite <file>', 'SQLite database file')
    .option('--table <name>', 'table to read (schema.table allowed)')
    .option('--query <sql>', 'or a plain SELECT to read')
    .addOption(new Option('--erp <name>', "a known ERP: its recipe (docs/erp/<name>.md) writes the SELECT, key, cursor and mapping; give --db-url of the ERP's database").choices([...RECIPE_NAMES]))
    .option('--erp-param <name=value>', "a parameter of the ERP recipe's SELECT, e.g. warehouse=WH (repeatable)", parseErpParam, {})
    .option('--file <path>', 'CSV, JSON, NDJSON or XML export file')
    .addOption(new Option('--format <format>', 'file format (default: from the extension)').choices(['csv', 'json', 'ndjson', 'xml']))
    .addOption(new Option('--encoding <encoding>', 'file encoding (default: detected)').choices(['utf-8', 'windows-1252', 'iso-8859-1']))
    .option('--delimiter <char>', 'CSV delimiter, or "tab" (default: detected)', parseDelimiter)
    .option('--records-path <path>', 'JSON: path of the records array; XML: path of one record element (default: detected)')
    .option('--resource <name>', 'shop resource to write (default: products)')
    .option('--name <name>', 'pipeline and mapping name (default: the resource)')
    .option('--language <code>', 'language of text fields such as names (default: de)')
    .option('--key <column>', 'record key column (default: proposed)')
    .option('--cursor <column>', 'SQL: column that grows on every change (default: proposed)')
    .option('--map <column=field>', 'place a column yourself (repeatable); "column=" leaves it out', parseMap, {})
    .option('--sample <n>', 'rows read to learn the columns', parsePositive, 200)
    .option('--dry-run-records <n>', 'records of the closing dry run', parsePositive, 5)
    .option('--no-verify', 'skip the closing mappings check and dry run')
    .option('--orders-pull', 'databases: also write the orders pull (shop orders with lines and addresses into staging tables init creates: PostgreSQL schema shopsync_in, else tables shopsync_in_*)')
    .option('--staging-schema <name>', 'with --orders-pull: the staging schema (PostgreSQL, default shopsync_in) or database of its own (MariaDB, default: tables shopsync_in_* in the ERP database)')
    .addOption(new Option('--stock <choice>', "when the mapping writes stock: reserved (the ERP's figure is on hand; shop orders it has not booked are subtracted) or available (it already subtracts them); asked on a terminal, else reserved").choices([...STOCK_CHOICES]))
    .addOption(new Option('--follow <choice>', 'with --orders-pull: yes (the pull keeps following the orders it delivered until a final status or 14 days: cancellations, status changes, returns reach the ERP) or no (new orders only); asked on a terminal, else yes').choices([...FOLLOW_CHOICES]))
    .addHelpText('after', '\nOn a terminal, init asks for what the flags leave open. Exit code 0 when the files are written, the mapping checks and the dry run refuses no record; 1 when the shop or the source fails or the dry run refuses records; 2 for missing or invalid answers and files that exist without --force.')
    .action(async (flags: InitFlags, cmd: Command) => {
      const { runInit, InitError, INIT_CODES } = await import('../../init/index.js');
      const { draftInput } = await import('../../init/answers.js');
      const logger = ctx.logger(cmd, 'stderr', 'warn');
      const draft = draftOf(flags, ctx.io.env);
      const interactive = !flags.yes && process.stdin.isTTY === true && ctx.io.stdout.isTTY === true;
      const io = { say: (l: string) => ctx.print(l), logger, env: ctx.io.env, cwd: process.cwd() };
      try {
        if (draft.shopAuth?.kind === 'token' && draft.shopAuth.token) ctx.addSecrets([draft.shopAuth.token]);
        let hooks = {};
        let input = draftInput(draft);
        const missing = interactive ? [] : missingFlags(draft);
        if (missing.length > 0) throw new UsageError(`init: without a terminal to ask on, give ${missing.join('; ')} (see shopsync init --help)`);
        if (interactive) {
          const { askAnswers, askFollow, askStock, reviewProposal } = await import('../../init/prompts.js');
          const asked = await askAnswers(draft, io);
          input = asked.input;
          hooks = { shopChecked: asked.shopChecked, review: reviewProposal, askStock, askFollow };
        }
        const result = await runInit(input, io, hooks);
        ctx.print(result.ok ? `done: try \`shopsync sync ${input.name ?? input.resource}${result.configFile === `${process.cwd()}/shopsync.yaml` ? '' : ` --config ${result.configFile}`}\` (see docs/init.md)` : 'the files are written, but the check or the dry run found problems (above): fix the mapping, then run `shopsync mappings check` and `shopsync sync <pipeline> --dry-run`');
        // A dry run that was abandoned says so with its own code, as `sync --dry-run` would.
        const dryRun = result.verification?.dryRun;
        ctx.exitCode = result.ok ? EXIT.ok : dryRun?.error?.code === 'RUN_ABANDONED' ? EXIT.abandoned : EXIT.failed;
      } catch (err) {
        if (err instanceof InitError && (err.code === INIT_CODES.input || err.code === INIT_CODES.exists)) throw new UsageError(`init: ${err.message}`);
        throw err;
      }
    });
}
