/**
 * A JSON-RPC server of the tests' own speaking trytond 6.0's envelope (protocols/dispatcher.py,
 * protocols/jsonrpc.py): `POST /<db>/`, `common.db.login` → `[uid, key]` (a wrong password: 401),
 * calls authorised by `Authorization: Session base64(login:uid:key)` (unknown or expired: 401), and
 * errors as HTTP 200 with `error: exception.args` (`['UserError', [message, description, domain]]`).
 * A `create` is one transaction: one refused record leaves the whole call uncreated, as Tryton does.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One record the server holds. */
export type StoredRecord = Record<string, unknown> & { id: number };

/** The server and the knobs a test turns. */
export interface FakeTryton {
  /** The server root, as the connection's `url` takes it. */
  readonly url: string;
  readonly database: string;
  /** Records by model (`sale.sale`, `sale.line`). */
  readonly records: Map<string, StoredRecord[]>;
  /** Every request: method, params and the Authorization header, as they came. */
  readonly requests: { method: string; params: unknown[]; authorization: string | undefined }[];
  logins: number;
  /** What `res.user.get_preferences(True)` answers: the user's company and language. */
  preferences: Record<string, unknown>;
  /** Fields a `sale.sale` must have, with the label Tryton's message names. */
  required: Record<string, string>;
  /** Forget every session (Tryton's `[session] timeout` passed): the next call answers 401. */
  expireSessions(): void;
  /** The next `create` is carried out and committed, then the connection is dropped without an answer. */
  dropNextCreateAnswer(): void;
  /** The next `n` requests (of `method`, when given) are dropped before anything is done. */
  dropRequests(n: number, method?: string): void;
  close(): Promise<void>;
}

const FIELDS: Record<string, Record<string, { type: string; string: string }>> = {
  'sale.sale': {
    reference: { type: 'char', string: 'Reference' },
    party: { type: 'many2one', string: 'Party' },
    company: { type: 'many2one', string: 'Company' },
    description: { type: 'char', string: 'Description' },
    lines: { type: 'one2many', string: 'Lines' },
  },
  'sale.line': {
    product: { type: 'many2one', string: 'Product' },
    quantity: { type: 'float', string: 'Quantity' },
    unit_price: { type: 'numeric', string: 'Unit Price' },
  },
};

class UserError extends Error {
  constructor(readonly msg: string, readonly description = '') {
    super(msg);
  }
}

/** Start the server on a free port of 127.0.0.1. */
export async function startFakeTryton(options: { database?: string; login?: string; password?: string } = {}): Promise<FakeTryton> {
  const database = options.database ?? 'shop';
  const login = options.login ?? 'admin';
  const password = options.password ?? 'tryton-s3cret';
  const sessions = new Set<string>();
  let nextId = 1;
  let dropCreate = false;
  let dropAll = 0;
  let dropMethod: string | undefined;

  function createSales(vlist: unknown, context: Record<string, unknown>): number[] {
    if (!Array.isArray(vlist)) throw new Error("'list' expected");
    const made: StoredRecord[] = [];
    const lines: StoredRecord[] = [];
    for (const values of vlist as Record<string, unknown>[]) {
      for (const field of Object.keys(values)) if (!(field in FIELDS['sale.sale']!)) throw new Error(`KeyError: '${field}'`);
      for (const [field, label] of Object.entries(fake.required)) {
        if (values[field] === undefined || values[field] === null) throw new UserError(`A value is required for field "${label}" in "Sale".`);
      }
      // sale.sale's default_company is context['company'] (what the user's preferences give).
      if ((values.company ?? context.company) === undefined) throw new UserError('A value is required for field "Company" in "Sale".');
      const id = nextId++;
      const { lines: actions, ...rest } = values;
      for (const action of (actions as unknown[] | undefined) ?? []) {
        if (!Array.isArray(action) || action[0] !== 'create' || !Array.isArray(action[1])) throw new Error(`invalid one2many action ${JSON.stringify(action)}`);
        for (const line of action[1] as Record<string, unknown>[]) lines.push({ ...line, id: nextId++, sale: id });
      }
      made.push({ ...rest, company: values.company ?? context.company, id });
    }
    // Nothing is kept unless every record of the call passed: one transaction.
    fake.records.get('sale.sale')!.push(...made);
    fake.records.get('sale.line')!.push(...lines);
    return made.map((r) => r.id);
  }

  function matches(record: StoredRecord, domain: unknown[]): boolean {
    return domain.every((clause) => {
      const [field, op, value] = clause as [string, string, unknown];
      if (op === 'in') return (value as unknown[]).includes(record[field]);
      if (op === '=') return record[field] === value;
      throw new Error(`operator ${op} not supported by the fake`);
    });
  }

  function dispatch(method: string, params: unknown[]): unknown {
    const context = params.at(-1);
    if (context === null || typeof context !== 'object' || Array.isArray(context)) throw new Error('Missing context argument');
    const args = params.slice(0, -1);
    const [, ...rest] = method.split('.');
    const name = rest.pop()!;
    const model = rest.join('.');
    if (model === 'res.user' && name === 'get_preferences') return fake.preferences;
    if (model === 'ir.model.access' && name === 'get_access') return Object.fromEntries((args[0] as string[]).map((m) => [m, { read: true, write: true, create: true, delete: true }]));
    const fields = FIELDS[model];
    if (!fields) throw new Error(`KeyError: '${model}'`);
    const table = fake.records.get(model)!;
    if (name === 'fields_get') {
      const names = (args[0] as string[] | null) ?? Object.keys(fields);
      return Object.fromEntries(names.filter((n) => n in fields).map((n) => [n, fields[n]]));
    }
    if (name === 'search') return table.filter((r) => matches(r, args[0] as unknown[])).map((r) => r.id);
    if (name === 'search_read') {
      const wanted = (args[4] as string[] | null) ?? ['id', ...Object.keys(fields)];
      return table.filter((r) => matches(r, args[0] as unknown[])).map((r) => Object.fromEntries(wanted.map((f) => [f, r[f] ?? null])));
    }
    if (name === 'create' && model === 'sale.sale') return createSales(args[0], context as Record<string, unknown>);
    throw new Error(`method ${method} not in the fake`);
  }

  function answer(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  function handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    if (req.url !== `/${database}/`) return answer(res, 404, null);
    const { id, method, params } = JSON.parse(raw) as { id: number; method: string; params: unknown[] };
    const authorization = req.headers.authorization;
    fake.requests.push({ method, params, authorization });
    if (dropAll > 0 && (dropMethod === undefined || dropMethod === method)) {
      dropAll--;
      req.socket.destroy();
      return;
    }
    if (method === 'common.db.login') {
      const [user, parameters] = params as [string, { password?: string }];
      if (user !== login || parameters?.password !== password) {
        res.writeHead(401, { 'content-type': 'text/html' });
        res.end('<h1>Unauthorized</h1>');
        return;
      }
      fake.logins++;
      const key = `key${fake.logins}-${Math.random().toString(36).slice(2)}`;
      sessions.add(key);
      return answer(res, 200, { id, result: [1, key] });
    }
    // trytond's auth_required: no session, an unknown or an expired one → 401 before anything runs.
    const decoded = authorization?.startsWith('Session ') ? Buffer.from(authorization.slice(8), 'base64').toString().split(':') : [];
    if (decoded.length !== 3 || decoded[0] !== login || decoded[1] !== '1' || !sessions.has(decoded[2]!)) {
      res.writeHead(401, { 'content-type': 'text/html' });
      res.end('<h1>Unauthorized</h1>');
      return;
    }
    if (method === 'common.db.logout') {
      sessions.delete(decoded[2]!);
      return answer(res, 200, { id, result: null });
    }
    try {
      const result = dispatch(method, params);
      if (dropCreate && method.endsWith('.create')) {
        dropCreate = false;
        req.socket.destroy();
        return;
      }
      answer(res, 200, { id, result });
    } catch (err) {
      if (err instanceof UserError) return answer(res, 200, { id, error: ['UserError', [err.msg, err.description, null]] });
      answer(res, 200, { id, error: [(err as Error).message, 'Traceback (most recent call last): …'] });
    }
  }

  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => handle(req, res, raw));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeTryton = {
    url: `http://127.0.0.1:${port}/`,
    database,
    records: new Map([['sale.sale', []], ['sale.line', []]]),
    requests: [],
    logins: 0,
    preferences: { company: 1, language: 'en' },
    required: { party: 'Party' },
    expireSessions: () => sessions.clear(),
    dropNextCreateAnswer: () => {
      dropCreate = true;
    },
    dropRequests: (n, method) => {
      dropAll = n;
      dropMethod = method;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return fake;
}
