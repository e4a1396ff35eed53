/**
 * Newsletter subscribers: double opt-in start state with a confirmation mail, the status key kept
 * secret (never exported), a privacy-log entry for every import and every deletion.
 */
import { randomBytes } from 'node:crypto';
import type { OperationHandler, ResourceHandler, SandboxContext } from '../handler.js';
import { API_VERSION, deleteReply, fail, isRecord, oneReply, optionalInt, optionalString, RecordError, typeName, writeEach } from '../kit.js';
import { exportFromStore } from '../exports.js';
import type { StoredRecord } from '../store.js';
import { seedSubscribers } from '../seed/newsletter.js';
import { pathId, recordFromPath } from './content/values.js';

export const SUBSCRIBERS = 'newsletter_subscribers';

/** A stored subscriber (subscribe_status_key is the secret confirmation token). */
export interface Subscriber {
  subscribe_id: number;
  subscribe_email: string;
  subscribe_firstname: string;
  subscribe_lastname: string;
  subscribe_language_id: number;
  customers_id: number;
  subscribe_status: 'confirmed' | 'unconfirmed';
  subscribe_status_key: string;
  subscribe_date_added: string;
  subscribe_last_modified: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function view(r: StoredRecord): Record<string, unknown> {
  const { subscribe_status_key: _secret, ...rest } = r as unknown as Subscriber;
  return rest;
}

function emailOf(record: Record<string, unknown>, required: boolean): string | undefined {
  const v = optionalString(record, 'subscribe_email');
  if (v === undefined) {
    if (required) throw new RecordError('INVALID_PAYLOAD', 'subscribe_email is required', 'subscribe_email');
    return undefined;
  }
  const email = v.trim();
  if (!EMAIL.test(email)) throw new RecordError('INVALID_PAYLOAD', `subscribe_email is no e-mail address: ${JSON.stringify(v)}`, 'subscribe_email');
  return email;
}

function languageId(ctx: SandboxContext, record: Record<string, unknown>): number | undefined {
  const id = optionalInt(record, 'subscribe_language_id');
  if (id !== undefined && !ctx.reference().languages.some((l) => l.language_id === id)) {
    throw new RecordError('INVALID_PAYLOAD', `subscribe_language_id ${id} is no shop language`, 'subscribe_language_id');
  }
  return id;
}

function byEmail(ctx: SandboxContext, email: string): number | undefined {
  return ctx.store.findIds(SUBSCRIBERS, 'subscribe_email', email)[0];
}

const create: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'create', (record) => {
    const email = emailOf(record, true) as string;
    const existing = byEmail(ctx, email);
    if (existing !== undefined) throw new RecordError('Already exists', `${email} is already subscribed`, 'subscribe_email', { subscribe_id: existing });
    const given = optionalInt(record, 'subscribe_id');
    if (given !== undefined && ctx.store.has(SUBSCRIBERS, given)) throw new RecordError('Already exists', `Subscriber ${given} already exists`, 'subscribe_id', { subscribe_id: given });
    const doubleOptIn = ctx.flag('SHOP_NEWSLETTER_DOUBLE_OPT_IN');
    const ref = ctx.reference();
    const now = ctx.timestamp();
    const subscriber: Omit<Subscriber, 'subscribe_id'> = {
      subscribe_email: email,
      subscribe_firstname: optionalString(record, 'subscribe_firstname') ?? '',
      subscribe_lastname: optionalString(record, 'subscribe_lastname') ?? '',
      subscribe_language_id: languageId(ctx, record) ?? (ref.languages.find((l) => l.code === (ctx.settings().DEFAULT_LANGUAGE ?? ref.master_language)) ?? ref.languages[0]).language_id,
      customers_id: optionalInt(record, 'customers_id') ?? ctx.store.findIds('customers', 'customers_email_address', email)[0] ?? 0,
      subscribe_status: doubleOptIn ? 'unconfirmed' : 'confirmed',
      subscribe_status_key: randomBytes(16).toString('hex'),
      subscribe_date_added: now,
      subscribe_last_modified: now,
    };
    const id = ctx.store.insert(SUBSCRIBERS, 'subscribe_id', { ...(given !== undefined ? { subscribe_id: given } : {}), ...subscriber });
    ctx.logPrivacy({ event: 'subscriber_import', resource: SUBSCRIBERS, recordId: id, email, data: { operation: 'create', status: subscriber.subscribe_status } });
    if (doubleOptIn) {
      ctx.sendMail({
        kind: 'newsletter_double_opt_in',
        to: [email],
        subject: 'Please confirm your newsletter subscription',
        body: `Confirm here: /newsletter/confirm?key=${subscriber.subscribe_status_key}`,
        resource: SUBSCRIBERS,
        recordId: id,
      });
    }
    return { subscribe_id: id, subscribe_status: subscriber.subscribe_status, confirmation_mail_sent: doubleOptIn };
  });

const update: OperationHandler = (ctx, req) =>
  writeEach(ctx, req, 'update', (record) => {
    const givenId = optionalInt(record, 'subscribe_id');
    const email = emailOf(record, false);
    const id = givenId ?? (email !== undefined ? byEmail(ctx, email) : undefined);
    if (givenId === undefined && email === undefined) throw new RecordError('INVALID_PAYLOAD', 'PUT needs subscribe_id or subscribe_email', 'subscribe_id');
    const subscriber = id === undefined ? undefined : (ctx.store.get(SUBSCRIBERS, id) as Subscriber | undefined);
    if (!subscriber || id === undefined) throw new RecordError('Not found', `Subscriber ${givenId ?? email} does not exist`, givenId !== undefined ? 'subscribe_id' : 'subscribe_email');
    if (email !== undefined && email.toLowerCase() !== subscriber.subscribe_email.toLowerCase()) {
      const other = byEmail(ctx, email);
      if (other !== undefined && other !== id) throw new RecordError('Already exists', `${email} belongs to subscriber ${other}`, 'subscribe_email', { subscribe_id: other });
      subscriber.subscribe_email = email;
    }
    const first = optionalString(record, 'subscribe_firstname');
    if (first !== undefined) subscriber.subscribe_firstname = first;
    const last = optionalString(record, 'subscribe_lastname');
    if (last !== undefined) subscriber.subscribe_lastname = last;
    subscriber.subscribe_language_id = languageId(ctx, record) ?? subscriber.subscribe_language_id;
    subscriber.customers_id = optionalInt(record, 'customers_id') ?? subscriber.customers_id;
    subscriber.subscribe_last_modified = ctx.timestamp();
    ctx.store.put(SUBSCRIBERS, id, subscriber as unknown as StoredRecord);
    ctx.logPrivacy({ event: 'subscriber_import', resource: SUBSCRIBERS, recordId: id, email: subscriber.subscribe_email, data: { operation: 'update' } });
    return { subscribe_id: id };
  });

function remove(ctx: SandboxContext, id: number, via: string): boolean {
  const subscriber = ctx.store.get(SUBSCRIBERS, id) as Subscriber | undefined;
  if (!subscriber) return false;
  ctx.store.delete(SUBSCRIBERS, id);
  ctx.logPrivacy({ event: 'subscriber_delete', resource: SUBSCRIBERS, recordId: id, email: subscriber.subscribe_email, data: { via } });
  return true;
}

// status (confirmed|unconfirmed) and the case-insensitive e-mail come from the registry filters.
const exportList: OperationHandler = (ctx, req) => exportFromStore(ctx, req, { view });

const exportOne: OperationHandler = (ctx, req) => {
  const record = recordFromPath(ctx, req, SUBSCRIBERS, 'Subscriber');
  return oneReply(req.resource, view(record));
};

const deleteOne: OperationHandler = (ctx, req) => {
  const id = pathId(req);
  if (!remove(ctx, id, 'single')) fail(404, 'Not found', `Subscriber ${id} does not exist`);
  return deleteReply(req.resource, [id]);
};

/** Bulk delete: body `{type, data:[{subscribe_id} | {subscribe_email}, ...]}`. */
const bulkDelete: OperationHandler = (ctx, req) => {
  const body = req.body;
  if (!isRecord(body) || !Array.isArray(body.data)) fail(400, 'INVALID_PAYLOAD', 'The body must be {type: "newsletter_subscribers", data: [{subscribe_id} or {subscribe_email}, ...]}');
  const deleted: number[] = [];
  const notFound: { index: number; code: string; message: string }[] = [];
  body.data.forEach((entry, index) => {
    const id = isRecord(entry) && typeof entry.subscribe_id === 'number' ? entry.subscribe_id : isRecord(entry) && typeof entry.subscribe_email === 'string' ? byEmail(ctx, entry.subscribe_email.trim()) : undefined;
    if (!isRecord(entry) || (entry.subscribe_id === undefined && entry.subscribe_email === undefined)) {
      notFound.push({ index, code: 'INVALID_PAYLOAD', message: 'each entry needs subscribe_id or subscribe_email' });
    } else if (id === undefined || !remove(ctx, id, 'bulk')) {
      notFound.push({ index, code: 'Not found', message: `no subscriber ${JSON.stringify(entry.subscribe_id ?? entry.subscribe_email)}` });
    } else {
      deleted.push(id);
    }
  });
  return { status: 200, body: { success: true, api_version: API_VERSION, type: typeName(req.resource), deleted, not_found: notFound } };
};

/** The sandbox handler of newsletter_subscribers (registered in handlers/index.ts). */
export const newsletterSubscribersHandler: ResourceHandler = {
  indexes: ['subscribe_email'],
  seed(ctx, kind) {
    if (kind === 'demo') seedSubscribers(ctx);
  },
  export: exportList,
  exportOne,
  create,
  update,
  delete: deleteOne,
  bulkDelete,
};
