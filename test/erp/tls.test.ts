/**
 * `ssl: true` on an ERP database connection verifies the server's certificate and host name.
 * PostgreSQL and MariaDB servers that speak TLS are played at wire level (tlsServers.ts), because
 * the shared test servers run without TLS and must not be reconfigured; the real servers show that
 * `ssl: true` never falls back to plain text.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectorError } from '../../src/errors.js';
import { connectionSchema, openSqlReader } from '../../src/erp/index.js';
import { mysqlSettings } from '../../src/erp/sql/mysql.js';
import { postgresSettings } from '../../src/erp/sql/postgres.js';
import { requireService } from '../support/services.js';
import { serviceConnection, TEST_CTX } from './sql-suite.js';
import { fakeTlsMysql, fakeTlsPostgres, type TlsServer } from './tlsServers.js';

const TLS_DIR = join(import.meta.dirname, '..', 'fixtures', 'tls');
const key = readFileSync(join(TLS_DIR, 'server.key'));
const cert = readFileSync(join(TLS_DIR, 'server.crt'));
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

const otherKey = readFileSync(join(TLS_DIR, 'other-host.key'));
const otherCert = readFileSync(join(TLS_DIR, 'other-host.crt'));

describe.each([
  // mysql2 replaces Node's error code by HANDSHAKE_SSL_ERROR and keeps Node's message.
  { kind: 'postgres', fake: fakeTlsPostgres, selfSigned: 'did not verify (DEPTH_ZERO_SELF_SIGNED_CERT)', otherHost: 'ERR_TLS_CERT_ALTNAME_INVALID' },
  { kind: 'mysql', fake: fakeTlsMysql, selfSigned: 'self-signed certificate (HANDSHAKE_SSL_ERROR)', otherHost: "does not match certificate's altnames" },
] as const)('$kind over TLS (a wire-level server with a self-signed certificate)', ({ kind, fake, selfSigned, otherHost }) => {
  const refusedLogin = 'CONNECTOR_AUTH_FAILED';
  let server: TlsServer;
  let wrongHost: TlsServer;
  beforeAll(async () => {
    server = await fake(key, cert);
    wrongHost = await fake(otherKey, otherCert);
  });
  afterAll(async () => {
    await server.close();
    await wrongHost.close();
  });
  const base = (port = server.port) => ({ kind, host: 'localhost', port, user: 'shopsync', password: 'erp-password', database: 'erp', ssl: true, connectTimeoutMs: 5000 });

  it('refuses a certificate the system CAs do not vouch for, before the login is sent', async () => {
    const before = server.logins();
    const err = await refusal(base());
    expect(err.code).toBe('CONNECTOR_UNREACHABLE');
    expect(err.message).toContain(selfSigned);
    expect(err.message).toContain('sslCaFile');
    expect(err.message).not.toContain('erp-password');
    expect(server.logins()).toBe(before);
  });

  it('refuses it given as a URL too', async () => {
    const before = server.logins();
    const err = await refusal({ kind, url: `${kind}://shopsync:erp-password@localhost:${server.port}/erp`, ssl: true, connectTimeoutMs: 5000 });
    expect(err.code).toBe('CONNECTOR_UNREACHABLE');
    expect(err.message).toContain(selfSigned);
    expect(server.logins()).toBe(before);
  });

  it('trusts the certificate through sslCaFile (relative to the config folder), then logs in', async () => {
    const before = server.logins();
    const err = await refusal({ ...base(), sslCaFile: 'server.crt' });
    expect(err.code).toBe(refusedLogin);
    expect(server.logins()).toBe(before + 1);
  });

  it('refuses a certificate from the trusted CA that names another host', async () => {
    const err = await refusal({ ...base(wrongHost.port), sslCaFile: 'other-host.crt' });
    expect(err.code).toBe('CONNECTOR_UNREACHABLE');
    expect(err.message).toContain(otherHost);
    expect(err.message).toContain('sslCaFile');
    expect(wrongHost.logins()).toBe(0);
  });

  it('accepts any certificate only with allowUntrustedCertificate: true', async () => {
    const before = wrongHost.logins();
    const err = await refusal({ ...base(wrongHost.port), allowUntrustedCertificate: true });
    expect(err.code).toBe(refusedLogin);
    expect(wrongHost.logins()).toBe(before + 1);
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
    expect(mysqlSettings(parse({ kind: 'mysql', host: 'db', ssl: true }) as never, {}).ssl).toEqual({ rejectUnauthorized: true, verifyIdentity: true });
  });

  it('passes the CA file\'s text, or the explicit opt-out, and nothing without ssl', () => {
    const ca = cert.toString('utf8');
    expect(mysqlSettings(parse({ kind: 'mysql', host: 'db', ssl: true, sslCaFile: 'server.crt' }) as never, {}, TLS_DIR).ssl).toEqual({ rejectUnauthorized: true, verifyIdentity: true, ca });
    expect(postgresSettings(parse({ kind: 'postgres', host: 'db', ssl: true, sslCaFile: join(TLS_DIR, 'server.crt') }) as never, {}).ssl).toEqual({ rejectUnauthorized: true, ca });
    expect(mysqlSettings(parse({ kind: 'mysql', url: 'mysql://u@db/erp', ssl: true, allowUntrustedCertificate: true }) as never, {}).ssl).toEqual({ rejectUnauthorized: false, verifyIdentity: false });
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
