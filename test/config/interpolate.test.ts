/**
 * Unquoted `${VAR}` (issue 29 item 9): the value is read as YAML would read it written there (a
 * number, true/false) where the key takes one, and stays the text exactly as set where the key
 * wants text — a numeric or boolean-looking password must not break the documented form.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';

const dir = mkdtempSync(join(tmpdir(), 'shopsync-interp-'));
const parse = (text: string, env: NodeJS.ProcessEnv) => parseConfigText(text, join(dir, 'shopsync.yaml'), { env });

const CONFIG = `shop:
  baseUrl: https://s.example/api
  token: \${SHOP_TOKEN}
  batchSize: \${BATCH}
connections:
  pg:
    kind: postgres
    host: db
    port: \${PG_PORT}
    user: \${PG_USER}
    password: \${PG_PW}
    database: \${PG_DB}
    ssl: \${PG_SSL}
  api:
    kind: http
    baseUrl: https://erp.example/api
    headers:
      X-Api-Key: \${API_KEY}
    retries: \${RETRIES}
alerts:
  email:
    host: smtp.example
    user: alerts
    password: \${SMTP_PW}
    from: shopsync@example.com
    to:
      - \${ALERT_TO}
dashboard:
  port: \${PORT}
`;

describe('unquoted ${VAR}', () => {
  it('keeps a value a string, exactly as set, where the key wants text', () => {
    const { config } = parse(CONFIG, {
      SHOP_TOKEN: '12345678',
      BATCH: '25',
      PG_PORT: '5432',
      PG_USER: '1000',
      PG_PW: '98765432',
      PG_DB: '007',
      PG_SSL: 'true',
      API_KEY: '0042',
      RETRIES: '3',
      SMTP_PW: 'false',
      ALERT_TO: 'ops@example.com',
      PORT: '9100',
    });
    const pg = config.connections.pg as { password?: unknown; user?: unknown; database?: unknown; port?: unknown; ssl?: unknown };
    expect(pg.password).toBe('98765432');
    expect(pg.user).toBe('1000');
    expect(pg.database).toBe('007'); // the text as set, not the number 7
    expect(config.shop!.token).toBe('12345678');
    expect((config.connections.api as { headers: Record<string, string> }).headers['X-Api-Key']).toBe('0042');
    expect(config.alerts.email?.password).toBe('false');
    // Where the key takes a number or true/false, it still gets one.
    expect(pg.port).toBe(5432);
    expect(pg.ssl).toBe(true);
    expect(config.shop!.batchSize).toBe(25);
    expect((config.connections.api as { retries: number }).retries).toBe(3);
    expect(config.dashboard.port).toBe(9100);
  });

  it('keeps null-looking and decimal-looking values as the text set', () => {
    const { config } = parse(CONFIG, {
      SHOP_TOKEN: '1.50',
      BATCH: '25',
      PG_PORT: '5432',
      PG_USER: 'null',
      PG_PW: '~',
      PG_DB: '-12',
      PG_SSL: 'false',
      API_KEY: 'true',
      RETRIES: '3',
      SMTP_PW: '3.14159',
      ALERT_TO: 'ops@example.com',
      PORT: '9100',
    });
    const pg = config.connections.pg as { password?: unknown; user?: unknown; database?: unknown; ssl?: unknown };
    expect(config.shop!.token).toBe('1.50');
    expect(pg).toMatchObject({ user: 'null', password: '~', database: '-12', ssl: false });
    expect((config.connections.api as { headers: Record<string, string> }).headers['X-Api-Key']).toBe('true');
    expect(config.alerts.email?.password).toBe('3.14159');
  });

  it('still reports a value the key cannot take, number or text', () => {
    expect(() => parse(CONFIG, { SHOP_TOKEN: 't-12345678', BATCH: 'many', PG_PORT: '5432', PG_USER: 'u', PG_PW: 'p', PG_DB: 'd', PG_SSL: 'yes', API_KEY: 'k', RETRIES: '3', SMTP_PW: 'x', ALERT_TO: 'ops@example.com', PORT: '9100' })).toThrow(
      /shop\.batchSize: .*\n.*connections\.pg\.ssl: Invalid input: expected boolean, received string/s,
    );
  });
});
