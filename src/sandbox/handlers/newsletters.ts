/**
 * Newsletter campaigns: composite key newsletters_id + language, one language version per block.
 * A locked version cannot be updated (LOCKED); a campaign with a locked version or with sent
 * entries cannot be deleted (409 LOCKED / 409 HAS_SENT_ENTRIES).
 */
import type { OperationHandler, ResourceHandler, SandboxContext } from '../handler.js';
import { deleteReply, fail, oneReply, optionalInt, RecordError, writeEach } from '../kit.js';
import { exportFromStore, intQuery } from '../exports.js';
import type { StoredRecord } from '../store.js';
import { seedCampaigns } from '../seed/newsletter.js';
import { findLanguage, languagesInput } from './content/languages.js';
import { pathId, recordFromPath, recordToUpdate } from './content/values.js';

export const CAMPAIGNS = 'newsletters';

interface Version {
  language_id: number;
  title: string;
  content: string;
  module: string;
  status: 0 | 1;
  locked: 0 | 1;
  date_added: string;
  date_sent: string | null;
}

/** A stored campaign; `sent_entries` counts recipients already mailed. */
export interface Campaign {
  newsletters_id: number;
  languages: Record<string, Version>;
  sent_entries: number;
}

function flag(block: Record<string, unknown>, key: string, path: string): 0 | 1 {
  const v = block[key];
  if (v === 0 || v === 1 || v === '0' || v === '1') return Number(v) as 0 | 1;
  throw new RecordError('INVALID_PAYLOAD', `${path} must be 0 or 1, got ${JSON.stringify(v)}`, path);
}

function applyBlock(ctx: SandboxContext, code: string, block: Record<string, unknown>, stored: Version | undefined): Version {
  const field = (f: string) => `languages.${code}.${f}`;
  const text = (f: 'title' | 'content' | 'module'): string | undefined => {
    const v = block[f];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw new RecordError('INVALID_PAYLOAD', `${field(f)} must be a string`, field(f));
    return v;
  };
  const title = text('title');
  if (!stored && (title === undefined || title.trim() === '')) throw new RecordError('INVALID_PAYLOAD', `${field('title')} is required for a new language version`, field('title'));
  if (title !== undefined && title.trim() === '') throw new RecordError('INVALID_PAYLOAD', `${field('title')} must not be empty`, field('title'));
  const language = findLanguage(ctx, code);
  return {
    language_id: language?.language_id ?? 0,
    title: title ?? stored?.title ?? '',
    content: text('content') ?? stored?.content ?? '',
    module: text('module') ?? stored?.module ?? '',
    status: block.status !== undefined ? flag(block, 'status', field('status')) : (stored?.status ?? 0),
    locked: block.locked !== undefined ? flag(block, 'locked', field('locked')) : (stored?.locked ?? 0),
    date_added: stored?.date_added ?? ctx.timestamp(),
    date_sent: stored?.date_sent ?? null,
  };
}

const create: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'create', (record) => {
    const given = optionalInt(record, 'newsletters_id');
    if (given !== undefined && ctx.store.has(CAMPAIGNS, given)) throw new RecordError('Already exists', `Campaign ${given} already exists (use PUT)`, 'newsletters_id', { newsletters_id: given });
    const sent = languagesInput(record, ctx);
    if (!sent || Object.keys(sent).length === 0) throw new RecordError('INVALID_PAYLOAD', 'languages{code:{title, content, module}} needs at least one language', 'languages');
    const languages: Record<string, Version> = {};
    for (const [code, block] of Object.entries(sent)) languages[code] = applyBlock(ctx, code, block, undefined);
    const id = ctx.store.insert(CAMPAIGNS, 'newsletters_id', { ...(given !== undefined ? { newsletters_id: given } : {}), languages, sent_entries: 0 });
    return { newsletters_id: id, languages: Object.keys(languages) };
  });

const update: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'update', (record) => {
    const { id, stored: campaign } = recordToUpdate<Campaign>(ctx, record, CAMPAIGNS, 'newsletters_id', 'Campaign');
    const sent = languagesInput(record, ctx) ?? {};
    for (const [code, block] of Object.entries(sent)) {
      const stored = campaign.languages[code];
      if (stored?.locked === 1) {
        throw new RecordError('LOCKED', `Campaign ${id} (${code}) is locked and cannot be updated`, `languages.${code}`, { newsletters_id: id, language: code }, 409);
      }
      campaign.languages[code] = applyBlock(ctx, code, block, stored);
    }
    ctx.store.put(CAMPAIGNS, id, campaign as unknown as StoredRecord);
    return { newsletters_id: id, languages: Object.keys(sent) };
  });

function filteredView(status: number | undefined, languageId: number | undefined) {
  return (r: StoredRecord): Record<string, unknown> => {
    const c = r as unknown as Campaign;
    const languages = Object.fromEntries(
      Object.entries(c.languages).filter(([, v]) => (status === undefined || v.status === status) && (languageId === undefined || v.language_id === languageId)),
    );
    return { newsletters_id: c.newsletters_id, languages, sent_entries: c.sent_entries };
  };
}

const exportList: OperationHandler = (ctx, req) => {
  const status = intQuery(req.query, 'status', 0, 1);
  const languageId = intQuery(req.query, 'language_id');
  const view = filteredView(status, languageId);
  return exportFromStore(ctx, req, {
    manualParams: ['status', 'language_id'],
    keep: (r) => Object.keys(view(r).languages as object).length > 0,
    view,
  });
};

const exportOne: OperationHandler = (ctx, req) => {
  const record = recordFromPath(ctx, req, CAMPAIGNS, 'Campaign');
  return oneReply(req.resource, filteredView(undefined, undefined)(record));
};

const deleteOne: OperationHandler = (ctx, req) => {
  const id = pathId(req);
  const campaign = ctx.store.get(CAMPAIGNS, id) as Campaign | undefined;
  if (!campaign) fail(404, 'Not found', `Campaign ${id} does not exist`);
  const locked = Object.entries(campaign.languages).filter(([, v]) => v.locked === 1).map(([code]) => code);
  if (locked.length > 0) fail(409, 'LOCKED', `Campaign ${id} is locked (${locked.join(', ')}) and cannot be deleted`, { newsletters_id: id, languages: locked });
  if (campaign.sent_entries > 0) fail(409, 'HAS_SENT_ENTRIES', `Campaign ${id} has ${campaign.sent_entries} sent entries and cannot be deleted`, { newsletters_id: id, sent_entries: campaign.sent_entries });
  ctx.store.delete(CAMPAIGNS, id);
  return deleteReply(req.resource, [id]);
};

/** The sandbox handler of newsletters (registered in handlers/index.ts). */
export const newslettersHandler: ResourceHandler = {
  seed(ctx, kind) {
    if (kind === 'demo') seedCampaigns(ctx);
  },
  export: exportList,
  exportOne,
  create,
  update,
  delete: deleteOne,
};
