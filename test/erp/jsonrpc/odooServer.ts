/**
 * A JSON-RPC server of the tests' own in Odoo's published envelope (odoo/http.py's JSON-RPC 2.0
 * dispatch of `/jsonrpc`: `{"jsonrpc":"2.0","method":"call","params":{"service","method","args"}}`).
 * Odoo itself cannot be installed on the test machines, so the Odoo dialect is tested against this:
 * `common.login` → uid or `false`; `object.execute_kw(db, uid, password, model, method, args, kwargs)`;
 * errors as HTTP 200 with `error: {code: 200, message: 'Odoo Server Error', data: {name, message}}`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The server and what it holds. */
export interface FakeOdoo {
  /** The `/jsonrpc` endpoint. */
  readonly url: string;
  readonly orders: (Record<string, unknown> & { id: number })[];
  readonly lines: (Record<string, unknown> & { id: number; order_id: number })[];
  readonly calls: { service: string; method: string; args: unknown[] }[];
  /** The user's password (or API key) as Odoo checks it now. */
  password: string;
  close(): Promise<void>;
}

/** Start it on a free port of 127.0.0.1 (database `odoo`, user `admin`, password `odoo-s3cret`). */
export async function startFakeOdoo(): Promise<FakeOdoo> {
  let nextId = 40;
  const fields: Record<string, { type: string }> = { client_order_ref: { type: 'char' }, partner_id: { type: 'many2one' }, order_line: { type: 'one2many' }, note: { type: 'text' } };
  const fault = (name: string, message: string) => ({ code: 200, message: 'Odoo Server Error', data: { name, debug: 'Traceback (most recent call last): …', message, arguments: [message], context: {} } });

  function executeKw(model: string, method: string, args: unknown[], kwargs: Record<string, unknown>): unknown {
    if (model !== 'sale.order') throw fault('builtins.KeyError', `'${model}'`);
    if (method === 'fields_get') return Object.fromEntries(((args[0] as string[] | undefined) ?? Object.keys(fields)).filter((n) => n in fields).map((n) => [n, fields[n]]));
    if (method === 'check_access_rights') return true;
    if (method === 'search_read') {
      const [[field, op, values]] = args[0] as [[string, string, unknown[]]];
      if (op !== 'in') throw fault('builtins.ValueError', `operator ${op}`);
      const wanted = (kwargs.fields as string[]) ?? ['id'];
      return fake.orders.filter((o) => values.includes(o[field])).map((o) => Object.fromEntries(wanted.map((f) => [f, o[f] ?? false])));
    }
    if (method === 'create') {
      const vlist = args[0] as Record<string, unknown>[];
      for (const v of vlist) if (!v.partner_id) throw fault('odoo.exceptions.ValidationError', 'The operation cannot be completed: Customer is required.');
      return vlist.map((values) => {
        const id = nextId++;
        const { order_line, ...rest } = values;
        for (const command of (order_line as unknown[][] | undefined) ?? []) {
          if (command[0] !== 0 || command[1] !== 0) throw fault('builtins.ValueError', `unexpected command ${JSON.stringify(command)}`);
          fake.lines.push({ ...(command[2] as Record<string, unknown>), id: nextId++, order_id: id });
        }
        fake.orders.push({ ...rest, id });
        return id;
      });
    }
    throw fault('builtins.AttributeError', `type object 'sale.order' has no attribute '${method}'`);
  }

  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      const send = (body: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.url !== '/jsonrpc') return send({ jsonrpc: '2.0', id: null, error: { code: 404, message: '404: Not Found' } });
      const { id, params } = JSON.parse(raw) as { id: number; params: { service: string; method: string; args: unknown[] } };
      fake.calls.push(params);
      try {
        if (params.service === 'common' && params.method === 'login') {
          const [db, login, password] = params.args as string[];
          return send({ jsonrpc: '2.0', id, result: db === 'odoo' && login === 'admin' && password === fake.password ? 2 : false });
        }
        if (params.service === 'object' && params.method === 'execute_kw') {
          const [db, uid, password, model, method, args, kwargs] = params.args as [string, number, string, string, string, unknown[], Record<string, unknown>];
          if (db !== 'odoo' || uid !== 2 || password !== fake.password) throw fault('odoo.exceptions.AccessDenied', 'Access Denied');
          return send({ jsonrpc: '2.0', id, result: executeKw(model, method, args, kwargs ?? {}) });
        }
        throw fault('builtins.NotImplementedError', `${params.service}.${params.method}`);
      } catch (error) {
        send({ jsonrpc: '2.0', id, error });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeOdoo = {
    url: `http://127.0.0.1:${port}/jsonrpc`,
    orders: [],
    lines: [],
    calls: [],
    password: 'odoo-s3cret',
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return fake;
}
