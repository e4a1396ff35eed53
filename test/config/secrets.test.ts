/**
 * Every secret the config can hold is collected for redaction (issue 29, "Must do"): shop
 * credentials, passwords in connection URLs, ERP HTTP auth (bearer, basic, a custom header, headers
 * of a connection or a pipeline, a key in a URL), alert channels and the dashboard token. Each is
 * then kept out of every log line, wherever it appears in the line.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';
import { createCliLogger } from '../../src/cli/logging.js';

const dir = mkdtempSync(join(tmpdir(), 'shopsync-secrets-'));

const ENV = {
  SHOP_TOKEN: 'shop-static-token-4711',
  SHOP_PW: 'shop-url-pw-0815',
  OAUTH_SECRET: 'oauth-client-secret-77',
  TOKEN_URL_PW: 'token-url-pw-31',
  PG_URL: 'postgres://erp:pg-url-pw-1234@db.example:5432/erp',
  PG_QUERY_URL: 'postgres://db.example/erp?user=erp&password=pg-query-pw-55',
  MYSQL_URL: 'mysql://erp:mysql-url-pw-99@db.example/erp',
  PG_PW: '98765432',
  STATE_URL: 'postgres://shopsync:state-url-pw-66@db.example/shopsync',
  ERP_BEARER: 'erp-bearer-token-abc',
  ERP_BASIC: Buffer.from('erp:basic-pw-xyz').toString('base64'),
  ERP_KEY: 'erp-custom-key-321',
  ERP_HEADER: 'erp-header-value-654',
  ERP_URL_PW: 'erp-url-pw-987',
  ERP_URL_KEY: 'erp-url-apikey-246',
  SOURCE_HEADER: 'source-header-secret-13',
  SINK_HEADER: 'sink-header-secret-24',
  WEBHOOK_URL: 'https://hooks.chat.example/services/T000/B000/webhook-path-token-57',
  WEBHOOK_SECRET: 'webhook-hmac-secret-68',
  SMTP_PW: 'smtp-password-79',
  DASHBOARD_TOKEN: 'dashboard-token-0123456789abcdefghijkl',
};

const CONFIG = `shop:
  baseUrl: https://shopsync:\${SHOP_PW}@shop.example/api
  token: \${SHOP_TOKEN}
shops:
  b2b:
    baseUrl: https://b2b.example/api
    oauth:
      clientId: shopsync
      clientSecret: \${OAUTH_SECRET}
      tokenUrl: https://shopsync:\${TOKEN_URL_PW}@auth.example/token
connections:
  pg: { kind: postgres, url: "\${PG_URL}" }
  pgq: { kind: postgres, url: "\${PG_QUERY_URL}" }
  my: { kind: mysql, url: "\${MYSQL_URL}" }
  pgfields:
    kind: postgres
    host: db.example
    password: \${PG_PW}
  bearer:
    kind: http
    baseUrl: https://erp.example/api
    auth: { value: "Bearer \${ERP_BEARER}" }
  basic:
    kind: http
    baseUrl: https://erp.example/api
    auth: { value: "Basic \${ERP_BASIC}" }
  custom:
    kind: http
    baseUrl: https://erp.example/api
    auth: { header: X-Erp-Key, value: "\${ERP_KEY}" }
    headers:
      X-Tenant-Secret: \${ERP_HEADER}
  inurl:
    kind: http
    baseUrl: https://erp:\${ERP_URL_PW}@erp.example/api?api_key=\${ERP_URL_KEY}&format=json
pipelines:
  - name: pull
    direction: push
    resource: products
    mapping: products.yaml
    source:
      connection: custom
      path: /articles
      key: id
      headers:
        X-Source-Key: \${SOURCE_HEADER}
  - name: push
    direction: pull
    resource: orders
    mapping: orders.yaml
    sink:
      connection: custom
      path: /orders
      headers:
        X-Sink-Key: \${SINK_HEADER}
state:
  kind: postgres
  url: \${STATE_URL}
alerts:
  webhook:
    url: \${WEBHOOK_URL}
    secret: \${WEBHOOK_SECRET}
  email:
    host: smtp.example
    user: alerts
    password: \${SMTP_PW}
    from: shopsync@example.com
    to:
      - ops@example.com
dashboard:
  token: \${DASHBOARD_TOKEN}
`;

const SECRETS: [string, string][] = [
  ['shop token', ENV.SHOP_TOKEN],
  ['password in the shop base URL', ENV.SHOP_PW],
  ['OAuth client secret', ENV.OAUTH_SECRET],
  ['password in the OAuth token URL', ENV.TOKEN_URL_PW],
  ['password in a postgres:// URL', 'pg-url-pw-1234'],
  ['password in a postgres URL query (?password=)', 'pg-query-pw-55'],
  ['password in a mysql:// URL', 'mysql-url-pw-99'],
  ['numeric password from an unquoted ${VAR}', ENV.PG_PW],
  ['password in the state URL', 'state-url-pw-66'],
  ['ERP bearer token without its "Bearer "', ENV.ERP_BEARER],
  ['ERP basic credentials without their "Basic "', ENV.ERP_BASIC],
  ['ERP custom auth header value', ENV.ERP_KEY],
  ['ERP connection header value', ENV.ERP_HEADER],
  ['password in the ERP base URL', ENV.ERP_URL_PW],
  ['API key in the ERP base URL query', ENV.ERP_URL_KEY],
  ['header of a pipeline source', ENV.SOURCE_HEADER],
  ['header of a pipeline sink', ENV.SINK_HEADER],
  ['webhook URL (its path is the credential)', ENV.WEBHOOK_URL],
  ['webhook signing secret', ENV.WEBHOOK_SECRET],
  ['SMTP password', ENV.SMTP_PW],
  ['dashboard token', ENV.DASHBOARD_TOKEN],
];

/** What the process's logger writes for a line carrying `secret` in its message and in a field. */
function logged(secrets: readonly string[], secret: string): string {
  let out = '';
  const cli = createCliLogger({ pretty: false, level: 'trace', destination: new Writable({ write: (chunk: Buffer, _e, done) => ((out += chunk.toString()), done()) }) });
  cli.addSecrets(secrets);
  cli.logger.warn({ error: `connect to host failed (${secret})`, attempt: 2 }, `request failed: ${secret}; retrying`);
  return out;
}

describe('secrets the config holds', () => {
  const loaded = parseConfigText(CONFIG, join(dir, 'shopsync.yaml'), { env: ENV });

  it.each(SECRETS)('collects the %s and keeps it out of every log line', (_, secret) => {
    expect(loaded.secrets).toContain(secret);
    const line = logged(loaded.secrets, secret);
    expect(line).toContain('request failed: [redacted]; retrying');
    expect(line).not.toContain(secret);
  });

  it('does not redact what only describes the connection (format=json, host names, user names)', () => {
    for (const plain of ['json', 'format', 'erp.example', 'shopsync', 'alerts', 'ops@example.com']) expect(loaded.secrets).not.toContain(plain);
  });
});
