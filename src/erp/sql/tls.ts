/**
 * TLS for the ERP's database servers. `ssl: true` verifies the server's certificate (system CAs, or
 * the connection's `sslCaFile`) and its host name, as libpq's `verify-full` does: without it a man in
 * the middle would receive the ERP login. `allowUntrustedCertificate` is the explicit way out.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CONNECTOR_CODES, causeText, connectorError } from '../errors.js';

/** The TLS fields of a server connection. */
export interface TlsFields {
  readonly ssl: boolean;
  readonly sslCaFile?: string | undefined;
  readonly allowUntrustedCertificate: boolean;
}

/** Options both drivers pass on to `tls.connect`. */
export interface TlsOptions {
  readonly rejectUnauthorized: boolean;
  readonly ca?: string;
}

/** The driver's TLS options for a connection; undefined without `ssl: true`. */
export function tlsOptions(conn: TlsFields, baseDir: string, connector: string): TlsOptions | undefined {
  if (!conn.ssl) return undefined;
  if (conn.allowUntrustedCertificate) return { rejectUnauthorized: false };
  if (conn.sslCaFile === undefined) return { rejectUnauthorized: true };
  const file = resolve(baseDir, conn.sslCaFile);
  try {
    return { rejectUnauthorized: true, ca: readFileSync(file, 'utf8') };
  } catch (err) {
    throw connectorError(connector, CONNECTOR_CODES.unreachable, `cannot read the CA file ${file} (sslCaFile): ${causeText(err)}. Give the PEM file of the CA that signed the database server's certificate, relative to the config file.`, { cause: err });
  }
}

/** Node's codes for a certificate that did not verify. */
const CERTIFICATE_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The hint for a server whose certificate did not verify, or undefined for any other failure. */
export function certificateHint(err: unknown): string | undefined {
  const code = (err as { code?: unknown }).code;
  const fix = 'give the CA that signed it in sslCaFile, connect by the host name the certificate names, or, only on a network you trust, set allowUntrustedCertificate: true.';
  // mysql2 replaces the TLS error's code by its own; the reason stays in the message.
  if (code === 'HANDSHAKE_SSL_ERROR') return ` The TLS handshake failed; if the server's certificate did not verify, ${fix}`;
  if (typeof code !== 'string' || !CERTIFICATE_CODES.has(code)) return undefined;
  return ` The server's TLS certificate did not verify (${code}): ${fix}`;
}
