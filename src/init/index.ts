/**
 * `shopsync init`: from a shop and an ERP source to a working `shopsync.yaml` and mapping. The
 * answers come from flags or prompts (src/init/prompts.ts); this module checks the shop, reads
 * the source, proposes the mapping, writes the files and ends with `mappings check` and a dry run.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log.js';
import { getResource, type ResourceDef } from '../shop/registry/index.js';
import { answersSchema, type Answers, type AnswersInput, type SourceAnswer } from './answers.js';
import { filePattern, initOrigin, planConnection, planShop } from './connection.js';
import { sourceQuery } from './cursor.js';
import { INIT_CODES, InitError } from './errors.js';
import { introspect, type IntrospectResult } from './introspect/index.js';
import { planMissing } from './missing.js';
import { planOrdersPull } from './orders/plan.js';
import { propose } from './propose.js';
import { stockPlanOf, type StockChoice } from './stock.js';
import { followOrdersPull, type FollowAnswer, type FollowQuestion } from './follow.js';
import { runRecipeInit } from './recipes/run.js';
import { ENCODING_GUESS_NOTE, renderConfig, renderMapping } from './render.js';
import { checkShop, type ShopCheck } from './shop.js';
import { shopLine, summariseColumns, summariseDryRun, summariseProposal } from './summary.js';
import type { Proposal } from './types.js';
import { verify, type Verification } from './verify.js';
import { secretFiles, writeFiles, type PlannedFile } from './write.js';

export { answersSchema, type Answers, type AnswersInput } from './answers.js';
export { InitError, INIT_CODES } from './errors.js';
export { STOCK_CHOICES, type StockChoice } from './stock.js';
export { DEFAULT_FOLLOW_STATUSES, FOLLOW_CHOICES, type FollowAnswer, type FollowChoice, type FollowQuestion, type FollowStatuses } from './follow.js';
export type { Proposal, Introspection, Column } from './types.js';

/** Where init talks and what it runs in. */
export interface InitIo {
  /** A line for the person (progress, the proposal, the dry run). */
  say(line: string): void;
  readonly logger: Logger;
  readonly env: NodeJS.ProcessEnv;
  /** Folder relative paths in the answers are resolved against. */
  readonly cwd: string;
}

/** What the person may change between proposal and writing (the prompts use it). */
export interface ReviewContext {
  readonly answers: Answers;
  readonly resource: ResourceDef;
  readonly source: IntrospectResult;
  readonly proposal: Proposal;
}

/** Hooks of the interactive mode. */
export interface InitHooks {
  /** The shop was already checked (the prompts check it as soon as the URL and token are typed). */
  readonly shopChecked?: ShopCheck;
  /** Look at the proposal and return it as it should be written. */
  review?(ctx: ReviewContext): Promise<Proposal>;
  /** The mapping writes stock (`fields`) and no `--stock` was given: is the ERP's figure on hand or available? */
  askStock?(ctx: StockQuestion): Promise<StockChoice>;
  /** Init writes the orders pull and no `--follow` was given: follow the orders after checkout, and until which statuses? */
  askFollow?(ctx: FollowQuestion): Promise<FollowAnswer>;
}

/** What the stock question shows. */
export interface StockQuestion {
  /** The stock fields the mapping writes and the columns they come from. */
  readonly fields: readonly { readonly target: string; readonly column: string }[];
  /** Whether init also writes the orders pull (then booked means the staging row's imported_at). */
  readonly ordersPull: boolean;
}



/** What init did. */
export interface InitResult {
  readonly configFile: string;
  readonly mappingFile: string;
  readonly written: readonly string[];
  readonly proposal: Proposal;
  readonly verification?: Verification;
  /** The files are written, the mapping checks and no dry-run record failed. */
  readonly ok: boolean;
}

/** Validate answers (from flags or prompts); a problem names the answer. */
export function parseAnswers(input: AnswersInput): Answers {
  const parsed = answersSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `${i.path.join('.') || 'answers'}: ${i.message}`);
  throw new InitError(INIT_CODES.input, lines.join('; '));
}

function sourceBlock(answers: Answers, result: IntrospectResult, proposal: Proposal): Record<string, unknown> {
  const s = answers.source;
  if (s.kind === 'file') {
    const i = result.introspection;
    const format = result.format ?? 'csv';
    return {
      connection: 'erp',
      folder: '.',
      format,
      pattern: filePattern(s.path),
      ...(i.encoding && i.encoding !== 'utf-8' ? { encoding: i.encoding } : {}),
      ...(format === 'csv' && i.delimiter && i.delimiter !== ',' ? { csv: { delimiter: i.delimiter } } : {}),
      ...(i.recordsPath ? (format === 'xml' ? { recordPath: i.recordsPath } : { recordsPath: i.recordsPath }) : {}),
      key: proposal.key,
    };
  }
  // A change column with NULLs is selected through COALESCE under an alias, which is the cursor (src/init/cursor.ts).
  const query = sourceQuery(s.kind, s.table !== undefined ? { table: s.table } : { query: s.query ?? '' }, proposal.cursorCoalesce);
  return { connection: 'erp', query, cursor: proposal.cursor, key: proposal.key };
}

function sourceLabel(s: SourceAnswer): string {
  if (s.kind === 'file') return `ERP export ${path.basename(s.path)}`;
  return s.table ? `ERP table ${s.table}` : 'ERP query';
}

/** Run init with complete answers. */
export async function runInit(input: AnswersInput, io: InitIo, hooks: InitHooks = {}): Promise<InitResult> {
  const answers = parseAnswers(input);
  if (answers.erp) return runRecipeInit(answers, io, hooks);
  const resource = getResource(answers.resource);
  const name = answers.name ?? resource.name;
  const configDir = path.resolve(io.cwd, answers.dir);
  const configFile = path.join(configDir, 'shopsync.yaml');
  const mappingFile = path.join(configDir, 'mappings', `${name}.yaml`);
  // Fail before any network work: the person learns at once that nothing would be written.
  const present = [configFile, mappingFile].filter((f) => existsSync(f));
  if (present.length > 0 && !answers.force) {
    throw new InitError(INIT_CODES.exists, `${present.join(', ')} already ${present.length === 1 ? 'exists' : 'exist'}; init never overwrites files: move ${present.length === 1 ? 'it' : 'them'} away, choose another folder (--dir), or pass --force to overwrite`);
  }

  const shop = planShop(answers.shop);
  const check = hooks.shopChecked ?? (await checkShop(shop.live, resource.name, io.logger));
  if (!hooks.shopChecked) io.say(shopLine(shop.live.baseUrl, check));

  const connection = planConnection(answers.source, io.cwd, configDir);
  const source = await introspect(answers.source, connection.live, { logger: io.logger, baseDir: io.cwd, origin: initOrigin(answers.source) }, answers.sampleRows);
  const needsCursor = answers.source.kind !== 'file';
  let proposal = propose(source.introspection, { resource, language: answers.language, needsCursor, ...(answers.key ? { key: answers.key } : {}), ...(answers.cursor ? { cursor: answers.cursor } : {}), map: answers.map });
  for (const line of summariseColumns(sourceLabel(answers.source), source.introspection)) io.say(line);
  if (source.introspection.encodingGuessed) io.say(`note: ${ENCODING_GUESS_NOTE}`);
  if (hooks.review) proposal = await hooks.review({ answers, resource, source, proposal });
  const missing = planMissing(resource, proposal, answers.source.kind !== 'file', name);
  if (missing) proposal = missing.proposal;
  for (const line of summariseProposal(resource.name, proposal)) io.say(line);
  if (missing) io.say(`onMissing: deactivate, completeSchedule "${missing.pipeline.completeSchedule}" (see the comment in shopsync.yaml)`);

  if (answers.ordersPull && answers.source.kind === 'file') throw new InitError(INIT_CODES.input, '--orders-pull needs a database source (--db-url or --sqlite): the staging tables are created there');
  const planned = answers.ordersPull && answers.source.kind !== 'file' ? planOrdersPull(answers, configDir) : undefined;
  const orders = planned ? await followOrdersPull(planned, answers, hooks, io.say) : undefined;
  const stock = await stockPlanOf(answers, hooks, resource, proposal.fields, orders?.layout);
  if (stock) io.say(`stock: ${stock.choice}${stock.asked ? '' : ' (not asked: the default; --stock available if the ERP figure already subtracts open shop orders)'}`);
  const pipeline = { name, direction: 'push', resource: resource.name, mapping: `mappings/${name}.yaml`, source: sourceBlock(answers, source, proposal), ...(missing ? missing.pipeline : {}), ...(stock?.reservations ? { reservations: stock.reservations } : {}) };
  const files: PlannedFile[] = [
    { path: configFile, text: renderConfig({ dir: configDir, shop: shop.written, connection: connection.written, pipeline, ...(orders ? { morePipelines: [orders.pipeline], ordersNote: orders.note } : {}), ...(proposal.cursorNote ? { cursorNote: proposal.cursorNote } : {}), ...(missing ? { missingNote: missing.note } : {}), ...(source.introspection.encodingGuessed ? { encodingGuessed: true } : {}), ...(stock ? { stockNote: stock.note } : {}) }) },
    { path: mappingFile, text: renderMapping({ dir: path.dirname(mappingFile), name, resource: resource.name, sourceLabel: sourceLabel(answers.source), proposal, introspection: source.introspection, ...(stock ? { stockLine: stock.mappingLine } : {}) }) },
    ...(orders ? [orders.mappingFile] : []),
    ...secretFiles(configDir, [...shop.secrets, ...connection.secrets]),
  ];
  // Before any file: a database that refuses CREATE TABLE leaves the folder as it was.
  if (orders) await orders.create(connection.live, { logger: io.logger, baseDir: io.cwd, origin: initOrigin(answers.source) }, io.say);
  const written = await writeFiles(files, answers.force);
  for (const f of written) io.say(`wrote ${path.relative(io.cwd, f) || f}`);
  if (!answers.verify) return { configFile, mappingFile, written, proposal, ok: true };

  const verification = await verify(configFile, name, answers.dryRunRecords, io.env, io.logger, orders ? [orders.mappingFile.path] : []);
  for (const line of verification.checkLines) io.say(`mappings check: ${line}`);
  if (verification.dryRun) for (const line of summariseDryRun(verification.dryRun)) io.say(line);
  const failed = verification.dryRun ? verification.dryRun.counts.failed + verification.dryRun.counts.deadLettered : 0;
  return { configFile, mappingFile, written, proposal, verification, ok: verification.checkOk && verification.dryRun?.status !== 'failed' && failed === 0 };
}
