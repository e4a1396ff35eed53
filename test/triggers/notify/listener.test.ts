/**
 * The LISTEN connection on its own: a connection that stops answering without closing (a NAT that
 * forgot the flow, a server behind a dead link) is noticed by the liveness query, dropped and
 * replaced, and the replacement listens and asks for a catch-up run. The silent link is a real
 * TCP relay to the real server that stops forwarding, as a half-open connection does.
 */
import { createServer, Socket, type AddressInfo, type Server } from 'node:net';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListener } from '../../../src/triggers/notify/index.js';
import { requireService } from '../../support/services.js';
import { until } from '../../support/wait.js';

const postgres = await requireService('postgres');
const channel = `shopsync_listener_${process.pid}`;

/** A TCP relay to PostgreSQL whose existing connections can be made to go silent (both ways, sockets kept open). */
function relay(): Promise<{ port: number; silence(): void; close(): Promise<void> }> {
  const links: { silent: boolean; sockets: Socket[] }[] = [];
  const server: Server = createServer((down) => {
    const up = new Socket();
    const link = { silent: false, sockets: [down, up] };
    links.push(link);
    up.connect(postgres.port, postgres.host);
    down.on('data', (d) => void (link.silent || up.write(d)));
    up.on('data', (d) => void (link.silent || down.write(d)));
    for (const s of link.sockets) {
      s.on('error', () => undefined);
      s.on('close', () => link.sockets.forEach((o) => o.destroy()));
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        silence: () => links.forEach((l) => (l.silent = true)),
        close: () => {
          links.forEach((l) => l.sockets.forEach((s) => s.destroy()));
          return new Promise((r) => server.close(() => r()));
        },
      }),
    );
  });
}

describe.skipIf(!postgres.available)('the LISTEN connection', () => {
  let admin: pg.Client;
  beforeAll(async () => {
    admin = new pg.Client({ host: postgres.host, port: postgres.port, user: postgres.user, database: postgres.database });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
  });

  it('drops a connection that no longer answers SELECT 1, reconnects, listens again and asks for a catch-up run', async () => {
    const link = await relay();
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push((JSON.parse(line) as { msg: string }).msg) });
    let connected = 0;
    const payloads: string[] = [];
    const listener = startListener({
      client: { host: '127.0.0.1', port: link.port, user: postgres.user, database: postgres.database },
      channel,
      logger,
      onNotify: (p) => payloads.push(p),
      onConnected: () => void (connected += 1),
      livenessMs: 200,
      livenessTimeoutMs: 400,
      backoffMs: 50,
    });
    try {
      await until(() => connected === 1, 10_000);
      await admin.query(`SELECT pg_notify($1, 'before')`, [channel]);
      await until(() => payloads.includes('before'), 5000);

      link.silence();
      await until(() => connected === 2, 10_000);
      expect(listener.state()).toBe('listening');
      expect(warnings).toEqual([expect.stringMatching(/LISTEN connection lost.*catch-up run follows the reconnect/)]);

      await admin.query(`SELECT pg_notify($1, 'after')`, [channel]);
      await until(() => payloads.includes('after'), 5000);
    } finally {
      await listener.close();
      await link.close();
    }
  });

  it('closes while the server is unreachable without waiting for it, and stops retrying', async () => {
    let connected = 0;
    const listener = startListener({
      client: { host: '127.0.0.1', port: 1, user: postgres.user, database: postgres.database },
      channel,
      logger: pino({ level: 'silent' }),
      onNotify: () => undefined,
      onConnected: () => void (connected += 1),
      backoffMs: 20,
    });
    await until(() => listener.state() === 'reconnecting', 5000);
    expect(listener.lastError()).toMatch(/ECONNREFUSED/);
    await listener.close();
    expect(connected).toBe(0);
  });
});
