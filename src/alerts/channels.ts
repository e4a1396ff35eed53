/** Where alert messages go: a signed JSON webhook with retries, and e-mail over SMTP (nodemailer). */
import { createHmac } from 'node:crypto';
import type { Transporter } from 'nodemailer';
import type { AlertsConfig } from './config.js';
import type { AlertMessage } from './incidents.js';
import { DEFAULT_SHOP } from '../state/store.js';
import { SyncError } from '../errors.js';

/** One way to send a message. */
export interface AlertChannel {
  readonly name: string;
  send(message: AlertMessage): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The webhook channel: POST JSON, `X-Shopsync-Signature: sha256=<hex>` when a secret is set, retried with backoff; a redirect is a failed delivery. */
export function webhookChannel(cfg: NonNullable<AlertsConfig['webhook']>): AlertChannel {
  return {
    name: 'webhook',
    async send(message) {
      const body = JSON.stringify(message);
      const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'shopsync-alerts' };
      if (cfg.secret) headers['x-shopsync-signature'] = `sha256=${createHmac('sha256', cfg.secret).update(body).digest('hex')}`;
      let last: unknown;
      for (let attempt = 0; attempt <= cfg.retries; attempt++) {
        if (attempt > 0) await sleep(500 * 2 ** (attempt - 1));
        try {
          // Never follow: a 307/308 would re-POST the alert and its signature to wherever the receiver (or whoever took its address) points.
          const res = await fetch(cfg.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(cfg.timeoutMs) });
          if (res.ok) return;
          await res.body?.cancel();
          if (res.status >= 300 && res.status < 400) {
            // An answer, not an outage: retrying would only repeat it.
            throw new SyncError(
              'ALERT_WEBHOOK_REDIRECT',
              `the alert webhook answered HTTP ${res.status} (a redirect${res.headers.get('location') ? ` to ${res.headers.get('location')!.slice(0, 200)}` : ''}); shopsync does not follow redirects with an alert: set alerts.webhook.url to the receiver's final address`,
              { details: { status: res.status } },
            );
          }
          last = new Error(`the webhook answered HTTP ${res.status}`);
          if (res.status < 500 && res.status !== 429) break;
        } catch (err) {
          if (err instanceof SyncError) throw err;
          last = err;
        }
      }
      throw last instanceof Error ? last : new Error(String(last));
    },
  };
}

/** The e-mail channel. */
export function emailChannel(cfg: NonNullable<AlertsConfig['email']>): AlertChannel {
  // nodemailer (about 40 files) loads with the first message, not with every process that could send one.
  let transport: Promise<Transporter> | undefined;
  const open = async (): Promise<Transporter> => {
    const { default: nodemailer } = await import('nodemailer');
    return nodemailer.createTransport({
      host: cfg.host,
      port: cfg.port,
      secure: cfg.secure,
      ...(cfg.user ? { auth: { user: cfg.user, pass: cfg.password ?? '' } } : {}),
      // Verified by default: with STARTTLS the SMTP login goes over this connection.
      tls: { rejectUnauthorized: !cfg.allowUntrustedCertificate },
    });
  };
  return {
    name: 'email',
    async send(message) {
      // The shop in the subject and a header of its own, so mail rules can route per shop (per client of an agency).
      const named = message.shop !== undefined && message.shop !== DEFAULT_SHOP;
      transport ??= open();
      await (await transport).sendMail({
        from: cfg.from,
        to: cfg.to,
        subject: `[shopsync${named ? ` ${message.shop}` : ''}] ${message.state === 'firing' ? 'ALERT' : 'resolved'}: ${message.title}`,
        text: `${message.text}\n\nincident: ${message.incident}\n${message.shop ? `shop: ${message.shop}\n` : ''}since: ${message.since}\nat: ${message.at}\n`,
        ...(message.shop ? { headers: { 'X-Shopsync-Shop': message.shop } } : {}),
      });
    },
  };
}
