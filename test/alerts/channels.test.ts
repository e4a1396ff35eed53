/**
 * The webhook channel delivers to the address configured and nowhere else: a receiver that answers
 * with a redirect gets a failed delivery, and the address it points to never sees the alert or its
 * signature (issue 42, finding 14).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alertsConfigSchema, type AlertMessage } from '../../src/alerts/index.js';
import { webhookChannel } from '../../src/alerts/channels.js';

let elsewhere: Server;
let redirector: Server;
let elsewhereHits: { signature: string | undefined; body: string }[];
let redirectorHits: number;
let redirectStatus: number;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let redirectorUrl: string;

beforeEach(async () => {
  elsewhereHits = [];
  redirectorHits = 0;
  redirectStatus = 307;
  elsewhere = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      elsewhereHits.push({ body, signature: req.headers['x-shopsync-signature'] as string | undefined });
      res.writeHead(204).end();
    });
  });
  const elsewhereUrl = await listen(elsewhere);
  redirector = createServer((req, res) => {
    redirectorHits++;
    req.resume();
    req.on('end', () => res.writeHead(redirectStatus, { location: `${elsewhereUrl}/collect` }).end());
  });
  redirectorUrl = await listen(redirector);
});

afterEach(async () => {
  await new Promise<void>((resolve) => redirector.close(() => resolve()));
  await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
});

const message: AlertMessage = {
  incident: 'run-failed:products',
  kind: 'run-failed',
  state: 'firing',
  title: 'products failed',
  text: 'the shop answered 503',
  since: new Date(0).toISOString(),
  at: new Date(0).toISOString(),
};

describe('the alert webhook', () => {
  it.each([301, 302, 303, 307, 308])('counts an HTTP %i redirect as a failed delivery and never posts the alert to where it points', async (status) => {
    redirectStatus = status;
    const cfg = alertsConfigSchema.parse({ webhook: { url: `${redirectorUrl}/hook`, secret: 'hmac-key-for-tests', retries: 2 } }).webhook!;
    const error = await webhookChannel(cfg).send(message).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as { code?: string }).code).toBe('ALERT_WEBHOOK_REDIRECT');
    expect((error as Error).message).toContain(`HTTP ${status}`);
    expect((error as Error).message).toContain('alerts.webhook.url');
    expect(elsewhereHits).toEqual([]);
    // A redirect is an answer, not an outage: retrying would only repeat it.
    expect(redirectorHits).toBe(1);
  });
});
