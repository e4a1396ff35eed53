/**
 * `ssl: true` on an ERP database connection verifies the server's certificate. A PostgreSQL
 * server that speaks TLS with a self-signed certificate is played at wire level (the SSLRequest,
 * a real TLS handshake, then a refused login), because the shared test servers run without TLS
 * and must not be reconfigured; MariaDB's driver options are checked as they reach mysql2, and
 * both real servers show that `ssl: true` never falls back to plain text.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectorError } from '../../src/errors.js';
import { connectionSchema, openSqlReader } from '../../src/erp/index.js';
import { mysqlSettings } from '../../src/erp/sql/mysql.js';
import { postgresSettings } from '../../src/erp/sql/postgres.js';
import { requireService } from '../support/services.js';
import { serviceConnection, TEST_CTX } from './sql-suite.js';

const TLS_DIR = join(import.meta.dirname, '..', 'fixtures', 'tls');
const key = readFileSync(join(TLS_DIR, 'server.key'));
const cert = readFileSync(join(TLS_DIR, 'server.crt'));
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

/** A PostgreSQL server's first steps: accept TLS, then refuse every login (SQLSTATE 28P01). */
function fakeTlsPostgres(): { server: Server; logins: () => number } {
  let logins = 0;
  const server = createServer((socket: Socket) => {
    socket.once('data', (first: Buffer) => {
      if (!first.subarray(0, 8).equals(SSL_REQUEST)) return void socket.destroy();
      socket.write('S');
      const tls = new TLSSocket(socket, { isServer: true, key, cert });
      tls.on('error', () => tls.destroy());
      tls.once('data', () => {
        logins++;
        const fields = Buffer.from('SFATAL\0VFATAL\0C28P01\0Mpassword authentication failed for user "shopsync"\0\0');
        const head = Buffer.alloc(5);
        head.write('E', 0);
        head.writeInt32BE(fields.length + 4, 1);
        tls.end(Buffer.concat([head, fields]));
      });
    });
  });
  return { server, logins: () => logins };
}

async function refusal(connection: Record<string, unknown>): Promise<ConnectorError> {
  const err = await openSqlReader(connectionSchema.parse(connection), { ...TEST_CTX, baseDir: TLS_DIR }).then(
    async (driver) => {
      await driver.close();
      throw new Error('the connection was expected to fail');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConnectorError);
  return err as ConnectorError;
}

describe('PostgreSQL over TLS (a wire-level server with a self-signed certificate)', () => {
  const fake = fakeTlsPostgres();
  let port: number;
  beforeAll(async () => {
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    port = (fake.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => fake.server.close(() => resolve()));
  });
  const base = () => ({ kind: 'postgres', host: 'localhost', port, user: 'shopsync', password: 'erp-password', database: 'erp', ssl: true, connectTimeoutMs: 5000 });

  it('refuses a certificate the system CAs do not vouch for, before the login is sent', async () => {
    const before = fake.logins();
    const err = await refusal(base());
    expect(err.code).toBe('CONNECTOR_UNREACHABLE');
    expect(err.message).toContain('did not verify (DEPTH_ZERO_SELF_SIGNED_CERT)');
    expect(err.message).toContain('sslCaFile');
    expect(err.message).not.toContain('erp-password');
    expect(fake.logins()).toBe(before);
  });

  it('refuses it given as a URL too', async () => {
    const before = fake.logins();
    const err = await refusal({ kind: 'postgres', url: `postgres://shopsync:erp-password@localhost:${port}/erp`, ssl: true, connectTimeoutMs: 5000 });
    expect(err.code).toBe('CONNECTOR_UNREACHABLE');
    expect(err.message).toContain('DEPTH_ZERO_SELF_SIGNED_CERT');
    expect(fake.logins()).toBe(before);
  });

  it('trusts the certificate through sslCaFile (relative to the config folder), then logs in', async () => {
    const before = fake.logins();
    const err = await refusal({ ...base(), sslCaFile: 'server.crt' });
    expect(err.code).toBe('CONNECTOR_AUTH_FAILED');
    expect(fake.logins()).toBe(before + 1);
  });

  it('accepts any certificate only with allowUntrustedCertificate: true', async () => {
    const before = fake.logins();
    const err = await refusal({ ...base(), allowUntrustedCertificate: true });
    expect(err.code).toBe('CONNECTOR_AUTH_FAILED');
    expect(fake.logins()).toBe(before + 1);
  });

  it('names an unreadable CA file', async () => {
    const err = await refusal({ ...base(), sslCaFile: 'missing-ca.pem' });
    expect(err.code).toBe('CONNECTOR_UNREACHABLE');
    expect(err.message).toContain(`cannot read the CA file ${join(TLS_DIR, 'missing-ca.pem')} (sslCaFile)`);
  });
});

describe('TLS settings as they reach the drivers', () => {
  const parse = (c: Record<string, unknown>) => connectionSchema.parse(c);

  it('verifies by default under ssl: true, on both drivers', () => {
    expect(postgresSettings(parse({ kind: 'postgres', host: 'db', ssl: true }) as never, {}).ssl).toEqual({ rejectUnauthorized: true });
    expect(mysqlSettings(parse({ kind: 'mysql', host: 'db', ssl: true }) as never, {}).ssl).toEqual({ rejectUnauthorized: true });
  });

  it('passes the CA file\'s text, or the explicit opt-out, and nothing without ssl', () => {
    const ca = cert.toString('utf8');
    expect(mysqlSettings(parse({ kind: 'mysql', host: 'db', ssl: true, sslCaFile: 'server.crt' }) as never, {}, TLS_DIR).ssl).toEqual({ rejectUnauthorized: true, ca });
    expect(postgresSettings(parse({ kind: 'postgres', host: 'db', ssl: true, sslCaFile: join(TLS_DIR, 'server.crt') }) as never, {}).ssl).toEqual({ rejectUnauthorized: true, ca });
    expect(mysqlSettings(parse({ kind: 'mysql', url: 'mysql://u@db/erp', ssl: true, allowUntrustedCertificate: true }) as never, {}).ssl).toEqual({ rejectUnauthorized: false });
    expect(postgresSettings(parse({ kind: 'postgres', host: 'db' }) as never, {}).ssl).toBeUndefined();
  });

  it('refuses TLS options without ssl: true, and the opt-out together with a CA file', () => {
    const noSsl = connectionSchema.safeParse({ kind: 'mysql', host: 'db', allowUntrustedCertificate: true });
    expect(noSsl.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['allowUntrustedCertificate', 'allowUntrustedCertificate applies to TLS connections only: set ssl: true as well, or remove allowUntrustedCertificate']]);
    const both = connectionSchema.safeParse({ kind: 'postgres', host: 'db', ssl: true, sslCaFile: 'ca.pem', allowUntrustedCertificate: true });
    expect(both.error?.issues.map((i) => i.path.join('.'))).toEqual(['allowUntrustedCertificate']);
  });
});

const pgService = await requireService('postgres');
const mariadb = await requireService('mariadb');

describe('ssl: true against the real servers, which run without TLS', () => {
  it.skipIf(!pgService.available)('PostgreSQL: fails instead of falling back to plain text', async () => {
    const err = await refusal({ ...serviceConnection('postgres', pgService), ssl: true });
    expect(err.code).toBe('CONNECTOR_UNREACHABLE');
    expect(err.message).toContain('does not support SSL');
  });

  it.skipIf(!mariadb.available)('MariaDB: fails instead of falling back to plain text', async () => {
    const err = await refusal({ ...serviceConnection('mysql', mariadb), ssl: true });
    expect(err.code).toBe('CONNECTOR_UNREACHABLE');
  });
});
