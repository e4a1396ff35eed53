/**
 * Alerts reach a person: each incident kind through a real local webhook receiver and a real local
 * SMTP server, one message when it opens and one on recovery, signed webhooks, a rate limit, and
 * never a secret in a body.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { SMTPServer } from 'smtp-server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alertsConfigSchema, startAlerts, type AlertMessage, type AlertWatcher } from '../../src/alerts/index.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { SyncEvents, type RunSummary } from '../../src/pipeline/index.js';
import { emptyCounts, openState, type StateStore } from '../../src/state/index.js';
import { removeDir, tempDir } from '../support/tmp.js';

const SECRET_TOKEN = 'shop-token-5up3r-s3cret';
const HMAC_KEY = 'hmac-key-for-tests';

let hooks: { body: string; signature: string | undefined }[];
let mails: string[];
let http: Server;
let smtp: SMTPServer;
let webhookUrl: string;
let smtpPort: number;
let state: StateStore;
let events: SyncEvents;
let watcher: AlertWatcher | undefined;
let clock: number;
/** Answers the webhook receiver gives before it accepts again (for the retry test). */
let failNext: number;

beforeEach(async () => {
  hooks = [];
  mails = [];
  failNext = 0;
  http = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (failNext > 0) {
        failNext--;
        res.writeHead(503).end();
        return;
      }
      hooks.push({ body, signature: req.headers['x-shopsync-signature'] as string | undefined });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  webhookUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/hook`;
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, done) {
      let text = '';
      stream.on('data', (c: Buffer) => (text += c.toString()));
      stream.on('end', () => {
        mails.push(text);
        done();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
  smtpPort = (smtp.server.address() as AddressInfo).port;
  state = await openState(':memory:');
  events = new SyncEvents();
  clock = Date.now();
});

afterEach(async () => {
  await watcher?.stop();
  watcher = undefined;
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await state.close();
});

function start(extra: Record<string, unknown> = {}, scheduled: string[] = []): AlertWatcher {
  const cfg = alertsConfigSchema.parse({
    webhook: { url: webhookUrl, secret: HMAC_KEY, retries: 0 },
    email: { host: '127.0.0.1', port: smtpPort, from: 'shopsync@example.test', to: ['ops@example.test'] },
    ...extra,
  });
  watcher = startAlerts(cfg, { events, state, scheduled, secrets: [SECRET_TOKEN, HMAC_KEY], logger: silentLogger, now: () => clock });
  if (!watcher) throw new Error('no alert channel configured');
  return watcher;
}

function finish(summary: Partial<RunSummary> & Pick<RunSummary, 'pipeline' | 'status'>): void {
  // A run that asked the shop (one that sent nothing proves nothing about it).
  const full: RunSummary = { runId: 1, mode: 'sync', counts: { ...emptyCounts(), requests: 1 }, durationMs: 5, ...summary };
  events.emit({ type: 'run-finished', summary: full });
}

const settle = async () => {
  await new Promise((r) => setTimeout(r, 50));
  await watcher?.stop().then(() => undefined);
};
const messages = () => hooks.map((h) => JSON.parse(h.body) as AlertMessage);

describe('alerts', () => {
  it('sends one message when a run fails, none for the next failure, one on recovery, through webhook and e-mail', async () => {
    const w = start();
    // The ERP down: the pipeline's own cause (a shop-wide one is the shop's incident, test/alerts/grouped.test.ts).
    finish({ pipeline: 'products', status: 'failed', error: { code: 'SOURCE_UNREACHABLE', message: 'the ERP is down' } });
    finish({ pipeline: 'products', status: 'failed', error: { code: 'SOURCE_UNREACHABLE', message: 'the ERP is down' } });
    await new Promise((r) => setTimeout(r, 100));
    expect(await w.incidents.list()).toEqual(['run-failed:products']);
    finish({ pipeline: 'products', status: 'succeeded' });
    await settle();
    expect(messages().map((m) => [m.incident, m.state])).toEqual([
      ['run-failed:products', 'firing'],
      ['run-failed:products', 'resolved'],
    ]);
    expect(mails).toHaveLength(2);
    expect(mails[0]).toMatch(/Subject: \[shopsync\] ALERT: products failed/);
    expect(mails[1]).toMatch(/Subject: \[shopsync\] resolved: products runs again/);
  });

  it('signs the webhook body with HMAC-SHA256', async () => {
    start();
    finish({ pipeline: 'stock', status: 'failed', error: { code: 'X', message: 'y' } });
    await settle();
    const [hook] = hooks;
    expect(hook?.signature).toBe(`sha256=${createHmac('sha256', HMAC_KEY).update(hook?.body ?? '').digest('hex')}`);
  });

  it('opens a dead-letter incident on new letters and closes it when none are left', async () => {
    start();
    await state.write((tx) => tx.deadLetters.add({ pipeline: 'stock', erpKey: 'A-1', record: {}, code: 'SOURCE_BAD_ROW', reason: 'line 3' }));
    finish({ pipeline: 'stock', status: 'partial', counts: { ...emptyCounts(), read: 3, deadLettered: 1, unreadable: 1 } });
    await new Promise((r) => setTimeout(r, 100));
    expect(await state.deadLetters.delete((await state.deadLetters.list({}))[0]!.id)).toBe(true);
    finish({ pipeline: 'stock', status: 'succeeded' });
    await settle();
    expect(messages().map((m) => [m.incident, m.state])).toEqual([
      ['dead-letters:stock', 'firing'],
      ['dead-letters:stock', 'resolved'],
    ]);
    expect(messages()[0]?.text).toMatch(/dead-lettered 1 record\(s\), 1 of them unreadable input/);
    expect(mails.map((m) => /Subject: (.*)/.exec(m)?.[1])).toEqual(['[shopsync] ALERT: stock: records refused', '[shopsync] resolved: stock: no dead letters left']);
  });

  it('reports a scheduled pipeline without a successful run for longer than staleAfterMinutes, once, and its recovery', async () => {
    const w = start({ staleAfterMinutes: 30 }, ['orders']);
    await w.checkStale();
    expect(hooks).toHaveLength(0);
    clock += 31 * 60_000;
    await w.checkStale();
    await w.checkStale();
    finish({ pipeline: 'orders', status: 'succeeded' });
    await settle();
    expect(messages().map((m) => [m.incident, m.state])).toEqual([
      ['stale:orders', 'firing'],
      ['stale:orders', 'resolved'],
    ]);
    expect(messages()[0]?.text).toMatch(/may have stopped silently/);
    expect(mails).toHaveLength(2);
    expect(mails[0]).toMatch(/Subject: \[shopsync\] ALERT: orders has not run successfully for 30 minutes/);
  });

  it('reports the shop refusing the token without the token in any body', async () => {
    start();
    finish({ pipeline: 'products', status: 'failed', error: { code: 'UNAUTHORIZED', message: `the shop refused Bearer ${SECRET_TOKEN}` } });
    await settle();
    // One message for the cause: the run's failure is held by the shop's incident, which names the setting to fix.
    expect(messages().map((m) => m.incident)).toEqual(['shop-auth:default']);
    expect(messages()[0]).toMatchObject({ cause: 'auth', pipelines: ['products'], text: expect.stringContaining('Check shop.token (or shop.oauth)') });
    expect(mails).toHaveLength(1);
    expect(mails.join('\n')).toMatch(/Subject: \[shopsync\] ALERT: the shop refuses shopsync's credentials/);
    for (const body of [...hooks.map((h) => h.body), ...mails]) {
      expect(body).not.toContain(SECRET_TOKEN);
      expect(body).not.toContain(HMAC_KEY);
    }
    expect(hooks.map((h) => h.body).join()).toContain('[redacted]');
  });

  it('tells once that the shop refuses the token, not again while it goes on, and once when it accepts it again, through both channels', async () => {
    start();
    const refused = { pipeline: 'products', status: 'failed', error: { code: 'UNAUTHORIZED', message: `the shop refused Bearer ${SECRET_TOKEN}` } } as const;
    finish(refused);
    finish({ ...refused, pipeline: 'stock' });
    finish(refused);
    await new Promise((r) => setTimeout(r, 100));
    finish({ pipeline: 'products', status: 'succeeded' });
    await settle();
    const auth = messages().filter((m) => m.incident === 'shop-auth:default');
    expect(auth.map((m) => m.state)).toEqual(['firing', 'resolved']);
    const subjects = mails.map((m) => /Subject: (.*)/.exec(m)?.[1]).filter((s) => s?.includes('credentials'));
    expect(subjects).toEqual(["[shopsync] ALERT: the shop refuses shopsync's credentials", "[shopsync] resolved: the shop accepts shopsync's credentials again"]);
    for (const body of [...hooks.map((h) => h.body), ...mails]) expect(body).not.toContain(SECRET_TOKEN);
  });

  it('retries the webhook with backoff when the receiver fails, and delivers the message once', async () => {
    failNext = 2;
    start({ webhook: { url: webhookUrl, secret: HMAC_KEY, retries: 2 } });
    finish({ pipeline: 'stock', status: 'failed', error: { code: 'X', message: 'down' } });
    await settle();
    expect(failNext).toBe(0);
    expect(messages().map((m) => [m.incident, m.state])).toEqual([['run-failed:stock', 'firing']]);
    expect(mails).toHaveLength(1);
  });

  it('sends mail only to a server whose certificate verifies, unless allowUntrustedCertificate says otherwise', async () => {
    // smtp-server offers STARTTLS with its own self-signed certificate.
    const tlsMails: string[] = [];
    const tls = new SMTPServer({
      authOptional: true,
      onData(stream, _session, done) {
        let text = '';
        stream.on('data', (c: Buffer) => (text += c.toString()));
        stream.on('end', () => {
          tlsMails.push(text);
          done();
        });
      },
    });
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', () => resolve()));
    const port = (tls.server.address() as AddressInfo).port;
    const send = async (allowUntrustedCertificate?: boolean) => {
      const cfg = alertsConfigSchema.parse({ email: { host: '127.0.0.1', port, from: 'shopsync@example.test', to: ['ops@example.test'], ...(allowUntrustedCertificate ? { allowUntrustedCertificate } : {}) } });
      // A state of its own each time: the incident the first attempt opened stays open in a shared one.
      const own = await openState(':memory:');
      const w = startAlerts(cfg, { events, state: own, scheduled: [], secrets: [], logger: silentLogger, now: () => clock })!;
      finish({ pipeline: 'stock', status: 'failed', error: { code: 'X', message: 'down' } });
      await new Promise((r) => setTimeout(r, 50));
      await w.stop();
      await own.close();
    };
    try {
      await send();
      expect(tlsMails).toHaveLength(0);
      await send(true);
      expect(tlsMails).toHaveLength(1);
      expect(tlsMails[0]).toMatch(/Subject: \[shopsync\] ALERT: stock failed/);
    } finally {
      await new Promise<void>((resolve) => tls.close(() => resolve()));
    }
  });

  it('keeps open incidents in the SQLite state: a restarted daemon does not repeat one and still sends its recovery', async () => {
    const dir = tempDir('shopsync-alerts-');
    const path = `${dir}/state.db`;
    const cfg = alertsConfigSchema.parse({ webhook: { url: webhookUrl, retries: 0 } });
    const life = async (summary: Partial<RunSummary> & Pick<RunSummary, 'pipeline' | 'status'>) => {
      const own = await openState(path);
      const ownEvents = new SyncEvents();
      const w = startAlerts(cfg, { events: ownEvents, state: own, scheduled: [], secrets: [], logger: silentLogger })!;
      ownEvents.emit({ type: 'run-finished', summary: { runId: 1, mode: 'sync', counts: emptyCounts(), durationMs: 5, ...summary } });
      await new Promise((r) => setTimeout(r, 50));
      await w.stop();
      await own.close();
    };
    try {
      await life({ pipeline: 'stock', status: 'failed', error: { code: 'X', message: 'down' } });
      await life({ pipeline: 'stock', status: 'failed', error: { code: 'X', message: 'down' } });
      await life({ pipeline: 'stock', status: 'succeeded' });
      expect(messages().map((m) => [m.incident, m.state])).toEqual([
        ['run-failed:stock', 'firing'],
        ['run-failed:stock', 'resolved'],
      ]);
    } finally {
      removeDir(dir);
    }
  });

  it('logs why an alert could not be sent with the cause the network gave (connect ECONNREFUSED …), not only "fetch failed"', async () => {
    // A port that was free a moment ago: nothing listens on it.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ level: 'info', destination: new Writable({ write: (chunk: Buffer, _e, done) => void (lines.push(...chunk.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)), done()) }) });
    const own = await openState(':memory:');
    const ownEvents = new SyncEvents();
    const w = startAlerts(alertsConfigSchema.parse({ webhook: { url: `http://127.0.0.1:${port}/hook`, retries: 0 } }), { events: ownEvents, state: own, scheduled: [], secrets: [], logger })!;
    ownEvents.emit({ type: 'run-finished', summary: { runId: 1, pipeline: 'stock', mode: 'sync', status: 'failed', error: { code: 'X', message: 'down' }, counts: emptyCounts(), durationMs: 5 } });
    await w.stop();
    await own.close();
    const failed = lines.find((l) => l.msg === 'alert could not be sent');
    expect(failed, JSON.stringify(lines)).toBeDefined();
    expect(String(failed!.err)).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('still sends the alert of a failed run when the state cannot be reached, and the daemon goes on', async () => {
    const own = await openState(':memory:');
    const ownEvents = new SyncEvents();
    const w = startAlerts(alertsConfigSchema.parse({ webhook: { url: webhookUrl, retries: 0 } }), { events: ownEvents, state: own, scheduled: [], secrets: [], logger: silentLogger })!;
    await own.close();
    ownEvents.emit({ type: 'run-finished', summary: { runId: 1, pipeline: 'stock', mode: 'sync', status: 'failed', error: { code: 'STATE_UNAVAILABLE', message: 'the state is gone' }, counts: emptyCounts(), durationMs: 5 } });
    await new Promise((r) => setTimeout(r, 50));
    await w.stop();
    expect(messages().map((m) => [m.incident, m.state])).toEqual([['run-failed:stock', 'firing']]);
  });

  it('sends at most maxPerHour messages', async () => {
    start({ maxPerHour: 2 });
    for (const p of ['a', 'b', 'c', 'd']) finish({ pipeline: p, status: 'failed', error: { code: 'X', message: 'down' } });
    await settle();
    expect(hooks).toHaveLength(2);
  });
});
