/**
 * The interactive side of `shopsync init`: asks for what the flags left open, one question at a
 * time, checks the shop as soon as its URL and credentials are typed (and asks again when the shop
 * refuses them), lists the database's tables to choose from, and lets the person place what the
 * proposal could not. Every answer goes through the same schema as the flags.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { confirm, input, password, select } from '@inquirer/prompts';
import { openSqlReader } from '../erp/index.js';
import { allResources } from '../shop/registry/index.js';
import { draftInput, shopAnswerSchema, type AnswersInput, type Draft, type ShopAnswer, type SourceAnswer } from './answers.js';
import { initOrigin, planConnection, planShop } from './connection.js';
import { InitError, INIT_CODES } from './errors.js';
import { targetFields } from './fields.js';
import type { InitIo, ReviewContext, StockQuestion } from './index.js';
import { parseStatusList, type FollowAnswer, type FollowQuestion } from './follow.js';
import type { StockChoice } from './stock.js';
import { propose } from './propose.js';
import { checkShop, type ShopCheck } from './shop.js';
import { shopLine, summariseProposal } from './summary.js';
import type { Proposal } from './types.js';

const OWN_QUERY = '\u0000query';

function validUrl(value: string): true | string {
  return shopAnswerSchema.shape.url.safeParse(value).success || 'expected an http(s) URL such as https://shop.example.com/api';
}

async function askAuth(): Promise<ShopAnswer['auth']> {
  const kind = await select({ message: 'How does shopsync sign in to the shop?', choices: [{ name: 'an access token', value: 'token' as const }, { name: 'an OAuth client (client id and secret)', value: 'oauth' as const }] });
  if (kind === 'token') return { kind, token: await password({ message: 'Access token', mask: '*', validate: (v) => v.length > 0 || 'the token is empty' }) };
  const clientId = await input({ message: 'OAuth client id', validate: (v) => v.length > 0 || 'required' });
  const clientSecret = await password({ message: 'OAuth client secret', mask: '*', validate: (v) => v.length > 0 || 'required' });
  return { kind, clientId, clientSecret };
}

/** Ask for the shop until it answers. */
async function askShop(draft: Draft, io: InitIo): Promise<{ url: string; auth: ShopAnswer['auth']; check: ShopCheck }> {
  let url = draft.shopUrl ?? (await input({ message: "The shop's API URL", validate: validUrl }));
  let auth = draft.shopAuth ?? (await askAuth());
  for (;;) {
    try {
      const check = await checkShop(planShop(shopAnswerSchema.parse({ url, auth })).live, draft.resource ?? 'products', io.logger);
      io.say(shopLine(url, check));
      return { url, auth, check };
    } catch (err) {
      if (!(err instanceof InitError)) throw err;
      io.say(`  ${err.message}`);
      url = await input({ message: "The shop's API URL", default: url, validate: validUrl });
      auth = await askAuth();
    }
  }
}

async function askTable(source: SourceAnswer, io: InitIo): Promise<{ table?: string; query?: string }> {
  const driver = await openSqlReader(planConnection(source, io.cwd, io.cwd).live, { logger: io.logger, baseDir: io.cwd, origin: initOrigin(source) });
  let tables: string[];
  try {
    const schema = await driver.defaultSchema();
    // Tables of the connection's own schema are named without it, as a query would name them.
    tables = (await driver.tables()).map((t) => (t.startsWith(`${schema}.`) || driver.kind === 'sqlite' ? t.slice(t.indexOf('.') + 1) : t)).sort();
  } finally {
    await driver.close();
  }
  const table = await select({ message: 'Which table holds the records?', choices: [...tables.map((t) => ({ name: t, value: t })), { name: 'my own SELECT query…', value: OWN_QUERY }], pageSize: 15 });
  if (table !== OWN_QUERY) return { table };
  return { query: await input({ message: 'SELECT query (shopsync adds paging itself)', validate: (v) => /^\s*(select|with)\b/i.test(v) || 'expected a SELECT' }) };
}

async function askSource(draft: Draft, io: InitIo): Promise<SourceAnswer> {
  const given = draft.source ?? {};
  const kind = given.kind ?? (await select({
    message: 'Where does the ERP data come from?',
    choices: [
      { name: 'PostgreSQL', value: 'postgres' as const },
      { name: 'MariaDB / MySQL', value: 'mysql' as const },
      { name: 'SQLite file', value: 'sqlite' as const },
      { name: 'CSV, JSON or XML export file', value: 'file' as const },
    ],
  }));
  const exists = (v: string) => existsSync(path.resolve(io.cwd, v)) || `${path.resolve(io.cwd, v)} does not exist`;
  if (kind === 'file') {
    return { kind, ...given, path: (given.path as string | undefined) ?? (await input({ message: 'Path of the export file', validate: exists })) } as SourceAnswer;
  }
  if (kind === 'sqlite') {
    const partial = { kind, ...given, path: (given.path as string | undefined) ?? (await input({ message: 'Path of the SQLite file', validate: exists })) } as SourceAnswer;
    return given.table || given.query ? partial : ({ ...partial, ...(await askTable(partial, io)) } as SourceAnswer);
  }
  const example = kind === 'postgres' ? 'postgres://erp@127.0.0.1:5432/erp' : 'mysql://erp@127.0.0.1:3306/erp';
  const url = (given.url as string | undefined) ?? (await input({ message: `Database URL (e.g. ${example})`, validate: (v) => /^[a-z]+:\/\//i.test(v) || `expected a URL such as ${example}` }));
  let password: string | undefined;
  if (!given.passwordEnv && !new URL(url).password) {
    const typed = await passwordPrompt();
    if (typed !== '') password = typed;
  }
  const partial = { kind, ...given, url, ...(password !== undefined ? { password } : {}) } as SourceAnswer;
  // An ERP recipe (--erp) brings its own SELECT: no table to choose.
  return given.table || given.query || draft.rest.erp ? partial : ({ ...partial, ...(await askTable(partial, io)) } as SourceAnswer);
}

function passwordPrompt(): Promise<string> {
  return password({ message: 'Database password (empty for none)', mask: '*' });
}

/** Fill the draft's gaps by asking; the shop is checked on the way. */
export async function askAnswers(draft: Draft, io: InitIo): Promise<{ input: AnswersInput; shopChecked: ShopCheck }> {
  const shop = await askShop(draft, io);
  const source = await askSource(draft, io);
  const writable = allResources.filter((r) => r.ops.create || r.ops.update);
  const resource = draft.resource ?? (draft.rest.erp ? 'products' : await select({ message: 'Which shop records should the ERP write?', choices: writable.map((r) => ({ name: `${r.label} (${r.name})`, value: r.name })), default: 'products', pageSize: 12 }));
  const filled: Draft = { ...draft, shopUrl: shop.url, shopAuth: shop.auth, source, resource };
  return { input: draftInput(filled), shopChecked: shop.check };
}

/**
 * Ask whether the ERP's stock figure is on hand or already available. On hand is the common case
 * (the ERP books a shop order only when it imports or ships it), so it comes first.
 */
export async function askStock(q: StockQuestion, context?: { readonly input?: NodeJS.ReadableStream; readonly output?: NodeJS.WritableStream }): Promise<StockChoice> {
  const what = q.fields.map((f) => `${f.column} → ${f.target}`).join(', ');
  const booked = q.ordersPull ? 'booked = the ERP set imported_at on the order in the staging table' : "booked = the ERP's stock row changed after the order reached it";
  return select({
    message: `Stock (${what}): is the ERP's figure on hand, or already what the shop may sell?`,
    choices: [
      { name: `on hand: the shop's orders leave it only once the ERP books them; subtract shop orders not booked yet (${booked})`, value: 'reserved' as const },
      { name: 'already available: the ERP subtracts open shop orders itself; send its figure as it is', value: 'available' as const },
    ],
    default: 'reserved' as const,
  }, context);
}

/**
 * Ask whether the orders pull follows orders after checkout (yes on Enter), then its final,
 * cancelled and returned statuses, each proposed as the default.
 */
export async function askFollow(q: FollowQuestion, context?: { readonly input?: NodeJS.ReadableStream; readonly output?: NodeJS.WritableStream }): Promise<FollowAnswer> {
  const follow = await confirm({ message: 'Follow orders after checkout (cancellations, status changes, new tracking, returns in the shop reach the ERP; about one request per 250 open orders of a day, hourly)?', default: true }, context);
  if (!follow) return { follow };
  const whose = q.fromShop ? "the shop's" : "the shop's default ids; check yours in its administration";
  const ids = async (message: string, proposed: readonly number[], check?: (ids: number[]) => string | true): Promise<number[]> => {
    const typed = await input({
      message: `${message} (${whose})`,
      default: proposed.join(', '),
      validate: (v) => {
        const parsed = parseStatusList(v);
        return typeof parsed === 'string' ? parsed : check ? check(parsed) : true;
      },
    }, context);
    return parseStatusList(typed) as number[];
  };
  const until = await ids('Final statuses: an order in one is no longer read again', q.defaults.until, (l) => l.length > 0 || 'name at least one final status, e.g. 4 (cancelled)');
  const cancelled = await ids('Statuses that mean cancelled (must be final)', q.defaults.cancelled.filter((id) => until.includes(id)), (l) => l.every((id) => until.includes(id)) || `a cancelled status must be final: ${l.filter((id) => !until.includes(id)).join(', ')} is not in ${until.join(', ')}`);
  const returned = await ids('Statuses that mean returned', q.defaults.returned);
  return { follow, statuses: { until, cancelled, returned } };
}

/** Show the proposal; on request, place the left-over columns and choose key and cursor. */
export async function reviewProposal(ctx: ReviewContext): Promise<Proposal> {
  const say = (l: string) => process.stdout.write(`${l}\n`);
  for (const line of summariseProposal(ctx.resource.name, ctx.proposal)) say(line);
  const change = await select({ message: 'Write the files with this mapping?', choices: [{ name: 'yes, write them', value: false }, { name: 'let me place the columns that are not placed, and choose key and cursor', value: true }] });
  if (!change) return ctx.proposal;
  const intro = ctx.source.introspection;
  const map: Record<string, string> = Object.fromEntries(ctx.proposal.fields.map((f) => [f.column, f.target]));
  // A coalesced cursor is an alias of the query; the person chooses among the table's columns.
  const cursorColumn = ctx.proposal.cursorCoalesce?.column ?? ctx.proposal.cursor;
  const targets = targetFields(ctx.resource, ctx.answers.language);
  for (const u of ctx.proposal.unplaced) {
    if (u.column === cursorColumn) continue;
    const taken = new Set(Object.values(map));
    const sample = intro.columns.find((c) => c.name === u.column)?.samples[0];
    const target = await select({
      message: `${u.column}${sample !== undefined ? ` (e.g. ${JSON.stringify(sample)})` : ''}: ${u.reason}. Place it on`,
      choices: [{ name: '(leave it out)', value: '' }, ...targets.filter((t) => !taken.has(t.path)).map((t) => ({ name: `${t.path} (${t.type})`, value: t.path }))],
      pageSize: 15,
    });
    map[u.column] = target;
  }
  const columns = intro.columns.map((c) => ({ name: c.name, value: c.name }));
  const key = await select({ message: 'Record key (one value per record)', choices: columns, default: ctx.proposal.key });
  const cursor = ctx.proposal.cursor === undefined ? undefined : await select({ message: 'Cursor (a column the ERP sets on every change)', choices: columns, default: cursorColumn });
  if (!(await confirm({ message: 'Write the files?', default: true }))) throw new InitError(INIT_CODES.input, 'stopped before writing anything, as asked');
  return propose(intro, { resource: ctx.resource, language: ctx.answers.language, needsCursor: cursor !== undefined, key, ...(cursor !== undefined ? { cursor } : {}), map });
}
