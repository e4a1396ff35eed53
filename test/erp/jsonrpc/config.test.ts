import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../src/config/index.js';

const dir = mkdtempSync(join(tmpdir(), 'shopsync-jsonrpc-config-'));
const parse = (text: string, env: NodeJS.ProcessEnv = {}) => parseConfigText(text, join(dir, 'shopsync.yaml'), { env });

const config = (sink: string, side = 'sink') => `
shop: { baseUrl: https://shop.example.com/api, token: tok-123456 }
connections:
  tryton:
    kind: jsonrpc
    dialect: tryton
    url: http://erp.example:8000/
    database: shop
    login: shopsync
    password: \${TRYTON_PASSWORD}
pipelines:
  - name: orders-to-tryton
    direction: pull
    resource: orders
    mapping: orders-to-tryton.yaml
    ${side}: ${sink}
`;

describe('jsonrpc in shopsync.yaml', () => {
  it('takes a Tryton connection with its password from the environment, and a sink naming model, reference and one2many', () => {
    const { config: c } = parse(config('{ connection: tryton, model: sale.sale, reference: { field: reference, from: shop_order }, one2many: [lines] }'), { TRYTON_PASSWORD: 'tryton-s3cret' });
    expect(c.connections.tryton).toMatchObject({ kind: 'jsonrpc', dialect: 'tryton', password: 'tryton-s3cret', sessionIdleMs: 540_000, retries: 5 });
    expect(c.pipelines[0]!.sink).toMatchObject({ connection: 'tryton', model: 'sale.sale', reference: { field: 'reference', from: 'shop_order' }, one2many: ['lines'] });
  });

  it('refuses a sink without a reference: creates could not be made idempotent', () => {
    expect(() => parse(config('{ connection: tryton, model: sale.sale }'), { TRYTON_PASSWORD: 'x-x-x-x' })).toThrow(/reference/);
  });

  it('refuses a jsonrpc connection as a source, saying what to use instead', () => {
    expect(() => parse(config('{ connection: tryton, query: x }', 'source'), { TRYTON_PASSWORD: 'x-x-x-x' })).toThrow(/a jsonrpc connection \(Tryton, Odoo\) is a sink, not a source/);
  });
});
