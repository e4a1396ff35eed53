/** A local webhook receiver for alert tests: every message posted to it, in arrival order. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import type { AlertMessage } from '../../src/alerts/index.js';

/** What the receiver holds: the messages so far (emptied by the caller when it likes) and its URL. */
export interface Receiver {
  readonly received: AlertMessage[];
  url: string;
}

/** Start a receiver before the file's tests and stop it after them. */
export function useWebhookReceiver(): Receiver {
  const receiver: Receiver = { received: [], url: '' };
  let hook: Server;
  beforeAll(async () => {
    hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        receiver.received.push(JSON.parse(body) as AlertMessage);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => hook.close(() => resolve()));
  });
  return receiver;
}
