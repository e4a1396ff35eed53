import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../src/config/index.js';
import { runDoctor } from '../../../src/ops/doctor.js';
import { useSandbox } from '../../support/sandbox.js';
import { startFakeTryton, type FakeTryton } from './trytonServer.js';

const sandbox = useSandbox();
let tryton: FakeTryton;
let dir: string;

beforeAll(async () => {
  tryton = await startFakeTryton();
  dir = mkdtempSync(join(tmpdir(), 'shopsync-jsonrpc-doctor-'));
});
afterAll(async () => {
  await tryton.close();
  rmSync(dir, { recursive: true, force: true });
});

const config = (password: string, model = 'sale.sale') => `
shop: { baseUrl: ${sandbox.url}, token: ${sandbox.token} }
state: { path: state.db }
connections:
  tryton: { kind: jsonrpc, dialect: tryton, url: "${tryton.url}", database: ${tryton.database}, login: admin, password: "${password}", retries: 0 }
pipelines:
  - name: orders-to-tryton
    direction: pull
    resource: orders
    mapping: orders.yaml
    sink: { connection: tryton, model: ${model}, reference: { field: reference }, one2many: [lines] }
`;

const sinkCheck = async (text: string) => (await runDoctor(parseConfigText(text, join(dir, 'shopsync.yaml'), { env: {} }))).find((c) => c.name.startsWith('pipeline orders-to-tryton: sink tryton'));

describe('shopsync doctor on a jsonrpc sink', () => {
  it('passes it by logging in and asking the model, and says what it checked', async () => {
    const check = await sinkCheck(config('tryton-s3cret'));
    expect(check).toMatchObject({ ok: true, detail: expect.stringMatching(/^logged in as admin; sale\.sale on tryton database shop .* the user may create there; each create is looked up by its reference first$/) });
  });

  it('fails it on a refused login and on a model the ERP does not have, naming why', async () => {
    expect(await sinkCheck(config('wrong-pass'))).toMatchObject({ ok: false, detail: expect.stringContaining('[JSONRPC_LOGIN_FAILED]') });
    expect(await sinkCheck(config('tryton-s3cret', 'sale.order'))).toMatchObject({ ok: false, detail: expect.stringContaining('[JSONRPC_MODEL_MISMATCH] sale.order does not answer fields_get') });
  });
});
